#pragma once
// Fixture with an empty directory per test: `class MyTest : public mdtest::TempDirTest`, then path("f"), write("f", text).
//
// The directory is named by suite, test and pid (tests of one binary may run concurrently) and is
// removed afterwards, unless MDT_KEEP_TEST_DIR is set or keep_on_failure_ is set and the test failed.
// It is readable by other users, so a test may act as an unprivileged user inside it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace mdtest {

class TempDirTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = std::filesystem::temp_directory_path() /
               ("mdtune_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" + std::to_string(getpid()));
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
        using std::filesystem::perms;
        std::filesystem::permissions(dir_, perms::owner_all | perms::group_read | perms::group_exec |
                                               perms::others_read | perms::others_exec);
    }
    void TearDown() override {
        if (std::getenv("MDT_KEEP_TEST_DIR") || (keep_on_failure_ && HasFailure())) return;
        std::error_code ignored;  // a test may have taken the owner's write bit away
        std::filesystem::permissions(dir_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                     ignored);
        std::filesystem::remove_all(dir_);
    }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    // Writes `text` to the file `name` in the directory and returns its path.
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(dir_ / name) << text;
        return path(name);
    }

    std::filesystem::path dir_;
    bool keep_on_failure_ = false;  // set in a derived SetUp where the files tell why a test failed
};

}  // namespace mdtest
