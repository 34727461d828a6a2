#pragma once
// A test fixture with its own temporary folder and, on fill(), a trial database
// holding the synthetic trials of model_test_util.h (hardware "hw-test").
#include <string>

#include "../common/temp_dir_test.h"
#include "model_test_util.h"
#include "mdtune/db/store.h"

namespace mdtune::test {

class SyntheticDbTest : public mdtest::TempDirTest {
protected:
    std::string db() const { return path("trials.db"); }
    void fill() {
        db::Store store(db());
        const auto hw = test_hardware();
        store.put_hardware(hw.id, hardware_json(hw));
        for (db::StoredTrial t : synthetic_trials(hw, SyntheticSpec{})) {
            t.id = 0;
            store.insert_trial(t);
        }
    }
};

}  // namespace mdtune::test
