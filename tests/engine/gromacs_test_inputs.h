#pragma once
// Inputs and helpers shared by the GROMACS reader tests: a temporary directory per
// test, a two-water .gro/.top in pieces that tests swap out, and error checks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "../common/temp_dir_test.h"
#include "io/gromacs_io.h"

#ifndef MDT_TEST_DATA_DIR
#error "MDT_TEST_DATA_DIR is set by tests/CMakeLists.txt"
#endif

namespace mdcore::testing {

namespace fs = std::filesystem;

inline const std::string kWaterDir = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm";
inline const std::string kWaterGro = kWaterDir + "/conf.gro";
inline const std::string kWaterTop = kWaterDir + "/topol.top";

// A fresh directory per test (and per process, as tests may run concurrently).
class GromacsTempDir : public mdtest::TempDirTest {
public:
    using TempDirTest::path;
    using TempDirTest::write;
};

// Two SPC/E waters; the pieces are separate so tests can swap one out.
inline const std::string kDefaults =
    "[ defaults ]\n"
    "; nbfunc comb-rule gen-pairs fudgeLJ fudgeQQ\n"
    "  1      2         no        1.0     1.0\n\n";
inline const std::string kAtomTypes =
    "[ atomtypes ]\n"
    "  OW    8       15.99940  0.0     A      3.16557e-01  6.50194e-01\n"
    "  HW    1       1.00800   0.0     A      0.00000e+00  0.00000e+00\n\n";
inline const std::string kMoleculeType =
    "[ moleculetype ]\n"
    "  SOL  2\n\n"
    "[ atoms ]\n"
    "  1    OW   1     SOL OW   1    -0.8476  15.99940\n"
    "  2    HW   1     SOL HW1  1     0.4238   1.00800\n"
    "  3    HW   1     SOL HW2  1     0.4238\n\n"  // mass from the atom type
    "[ settles ]\n"
    "  1   1     0.1  0.16330\n\n"
    "[ exclusions ]\n"
    "  1 2 3\n"
    "  2 1 3\n"
    "  3 1 2\n\n";
inline const std::string kSystem =
    "[ system ]\n"
    "two waters\n\n"
    "[ molecules ]\n"
    "SOL 2\n";
inline const std::string kTwoWaterTop = kDefaults + kAtomTypes + kMoleculeType + kSystem;

inline const std::string kTwoWaterGro =
    "two waters\n"
    "    6\n"
    "    1SOL     OW    1   0.246   0.664   0.115\n"
    "    1SOL    HW1    2   0.171   0.617   0.162\n"
    "    1SOL    HW2    3   0.260   0.621   0.026\n"
    "    2SOL     OW    4   1.246   1.664   1.115\n"
    "    2SOL    HW1    5   1.171   1.617   1.162\n"
    "    2SOL    HW2    6   1.260   1.621   1.026\n"
    "   3.00000   3.00000   3.00000\n";

// Runs `f`, which must throw InputError whose message contains every fragment.
inline void expect_input_error(const std::function<void()>& f, const std::vector<std::string>& fragments) {
    try {
        f();
        ADD_FAILURE() << "expected InputError";
    } catch (const InputError& e) {
        const std::string msg = e.what();
        for (const std::string& frag : fragments)
            EXPECT_NE(msg.find(frag), std::string::npos) << "'" << frag << "' missing from: " << msg;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected InputError, got: " << e.what();
    }
}

inline std::string replace_once(std::string text, const std::string& from, const std::string& to) {
    const auto pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    if (pos != std::string::npos) text.replace(pos, from.size(), to);
    return text;
}

}  // namespace mdcore::testing
