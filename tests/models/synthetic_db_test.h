#pragma once
// A test fixture with its own temporary folder and, on fill(), a trial database
// holding the synthetic trials of model_test_util.h (hardware "hw-test").
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "model_test_util.h"
#include "mdtune/store.h"

namespace mdtune::test {

class SyntheticDbTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("mdtune_synthetic_db_" + std::to_string(getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::string db() const { return (dir_ / "trials.db").string(); }
    void fill() {
        Store store(db());
        const auto hw = test_hardware();
        store.put_hardware(hw.id, hardware_json(hw));
        for (StoredTrial t : synthetic_trials(hw, SyntheticSpec{})) {
            t.id = 0;
            store.insert_trial(t);
        }
    }
    std::filesystem::path dir_;
};

}  // namespace mdtune::test
