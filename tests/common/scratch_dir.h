#pragma once
// A fresh directory per test (named after the process and the test), removed afterwards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace mdtest {

class ScratchDirTest : public ::testing::Test {
protected:
    // prefix tells the suites' leftovers apart in /tmp should a test crash.
    explicit ScratchDirTest(const std::string& prefix) : prefix_(prefix) {}
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               (prefix_ + std::to_string(getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::string db() const { return (dir_ / "trials.db").string(); }
    std::filesystem::path dir_;

private:
    std::string prefix_;
};

}  // namespace mdtest
