// Hostile and mistaken inputs, as a fuzzer or a typo produces them: indices near INT_MAX, #include chains,
// unphysical values and runs that turn non-finite must be refused with a message
// naming where and the limit, never crash or report "ok".
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "gromacs_test_inputs.h"
#include "io/gromacs_io.h"
#include "io/topology.h"
#include "mdcore/engine.h"
#include "pme/pme.h"
#include "test_systems.h"

namespace mdcore {
namespace {

using namespace mdcore::testing;  // NOLINT: the shared inputs and helpers

class InputLimits : public GromacsTempDir {
protected:
    void expect_top_error(const std::string& name, const std::string& top, const std::vector<std::string>& fragments) {
        const std::string gro = write("w.gro", kTwoWaterGro);
        const std::string path = write(name, top);
        std::vector<std::string> all = fragments;
        all.push_back(name + ":");
        expect_input_error([&] { read_gromacs_system(gro, path); }, all);
    }
};

const std::string kSettleLine = "  1   1     0.1  0.16330";

TEST_F(InputLimits, SettleOxygenIndexNearIntMaxIsRefused) {
    // 2147483647 + 2 overflowed the range check and crashed in settle_parameters.
    expect_top_error("max.top", replace_once(kTwoWaterTop, kSettleLine, "  2147483647 1 0.1 0.16330"),
                     {"settle oxygen 2147483647", "2147483647 to 2147483647 + 2", "the molecule has 3"});
    // 2147483646 was refused, but its message printed "..-2147483648".
    expect_top_error("max1.top", replace_once(kTwoWaterTop, kSettleLine, "  2147483646 1 0.1 0.16330"),
                     {"2147483646 to 2147483646 + 2"});
    expect_top_error("neg.top", replace_once(kTwoWaterTop, kSettleLine, "  -2147483648 1 0.1 0.16330"),
                     {"settle oxygen -2147483648"});
}

TEST_F(InputLimits, MoleculeCountTimesAtomsCannotOverflow) {
    // Blocks of 2^31 - 1 molecules: counts x atoms are summed in 64 bits and stop at the first block past the .gro.
    std::string top = replace_once(kTwoWaterTop, "SOL 2\n", "");
    for (int k = 0; k < 4; ++k) top += "SOL 2147483647\n";
    expect_top_error("count.top", top, {"w.gro:2:", "the .gro has 6 atoms", "at least 6442450941", "count.top:29"});
}

TEST_F(InputLimits, ExclusionIndexNearIntMaxIsRefused) {
    expect_top_error("excl.top", replace_once(kTwoWaterTop, "  3 1 2\n", "  3 1 2147483647\n"),
                     {"exclusion atom 2147483647", "outside the molecule (1..3)"});
}

// A chain a0 -> a1 -> ... -> a{depth-1}; the last file holds the whole topology.
std::string write_include_chain(const GromacsTempDir& dir, int depth) {
    for (int k = 0; k < depth; ++k) {
        const std::string next = k + 1 < depth ? "#include \"a" + std::to_string(k + 1) + ".top\"\n" : kTwoWaterTop;
        dir.write("a" + std::to_string(k) + ".top", next);
    }
    return dir.path("a0.top");
}

TEST_F(InputLimits, IncludeDepthIsLimited) {
    const std::string gro = write("w.gro", kTwoWaterGro);
    // 8,000 levels overflowed the stack. Parsing now stops at the limit whatever the
    // chain's length, so a chain a few times the limit shows it (files are slow to make).
    const std::string deep = write_include_chain(*this, 4 * kMaxIncludeDepth);
    const std::string at_limit = "a" + std::to_string(kMaxIncludeDepth - 1) + ".top:1:";
    expect_input_error([&] { read_gromacs_system(gro, deep); },
                       {at_limit, "nests deeper than the limit of " + std::to_string(kMaxIncludeDepth)});
    // Exactly the limit still reads.
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::string gro2 = write("w.gro", kTwoWaterGro);
    EXPECT_EQ(read_gromacs_system(gro2, write_include_chain(*this, kMaxIncludeDepth)).natoms(), 6u);
}

TEST_F(InputLimits, UnphysicalTopologyValuesAreRefused) {
    const std::string oxygen = "  1    OW   1     SOL OW   1    -0.8476  15.99940";
    expect_top_error("mass.top", replace_once(kTwoWaterTop, oxygen, "  1    OW   1     SOL OW   1    -0.8476  1e-300"),
                     {"mass.top:", "atom 'OW'", "mass 1e-300 amu", "[0.001, 1e+06] amu"});
    expect_top_error("charge.top", replace_once(kTwoWaterTop, oxygen, "  1    OW   1     SOL OW   1    -1e300  15.9994"),
                     {"atom 'OW'", "charge -1e+300 e", "[-100, 100] e"});
    expect_top_error("eps.top", replace_once(kTwoWaterTop, "3.16557e-01  6.50194e-01", "3.16557e-01  1e300"),
                     {"eps.top:6:", "atom type 'OW'", "LJ epsilon 1e+300", "10000"});
    expect_top_error("sigma.top", replace_once(kTwoWaterTop, "3.16557e-01  6.50194e-01", "1e5  6.50194e-01"),
                     {"atom type 'OW'", "LJ sigma 100000 nm"});
}

TEST_F(InputLimits, GroAtomFarOutsideTheBoxIsRefused) {
    // Fixed columns: three 8-character fields with their decimal points evenly spaced.
    const std::string far = write("far.gro", replace_once(kTwoWaterGro, "   0.246   0.664   0.115",
                                                          "1.00e3000.6640000.115000"));
    expect_input_error([&] { read_gro(far); }, {"far.gro:3:", "atom OW", "coordinate x = 1e+300 nm", "box lengths"});
    // Molecules made whole may stick out of the box a little: that stays accepted.
    const std::string near = write("near.gro", replace_once(kTwoWaterGro, "   0.246   0.664   0.115",
                                                            "  -0.246   0.664   3.115"));
    EXPECT_NO_THROW(read_gro(near));
    const std::string box = write("box.gro", replace_once(kTwoWaterGro, "   3.00000   3.00000   3.00000",
                                                          "   3.00000   3.00000   1e300"));
    expect_input_error([&] { read_gro(box); }, {"box.gro:9:", "box edge z"});
}

TEST(SystemValidation, UnphysicalValuesNameTheAtomAndLimit) {
    const auto expect_refused = [](System sys, const std::string& fragment) {
        try {
            sys.validate();
            ADD_FAILURE() << "expected std::invalid_argument mentioning " << fragment;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        }
    };
    const System lj = lj_system(108);
    System far = lj;
    far.positions[5][0] = 1e300;
    expect_refused(far, "atom 6 of 108: coordinate x = 1e+300 nm");
    System light = lj;
    light.mass[3] = 1e-300;
    expect_refused(light, "atom 4 of 108: mass 1e-300 amu");
    System charged = lj;
    charged.charge[0] = -1e300;
    expect_refused(charged, "charge -1e+300 e");
    System strong = lj;
    strong.atom_types[0].epsilon = 1e300;
    expect_refused(strong, "atom type 'LJ': LJ epsilon 1e+300");
    System fast = lj;
    fast.velocities[7] = {std::numeric_limits<double>::infinity(), 0.0, 0.0};
    expect_refused(fast, "atom 8 of 108: speed inf");
    System settled = lj;
    settled.settles.push_back({0, 1, 2147483646, 0.1, 0.16});
    expect_refused(settled, "SETTLE atom index 2147483646");
}

// Two atoms on top of each other: the LJ energy and force overflow at step 0.
TEST(RunFailure, NonFiniteStateAtStepZeroThrowsWithTheStep) {
    System sys = lj_system(108);
    sys.positions[1] = sys.positions[0];
    RunControl control;
    control.steps = 10;
    RunConfig config;
    config.threads = 1;
    try {
        run(sys, config, control);
        ADD_FAILURE() << "expected RunFailed";
    } catch (const RunFailed& f) {
        EXPECT_EQ(f.report().status, "failed");
        EXPECT_EQ(f.report().failed_step, 0);
        EXPECT_NE(std::string(f.what()).find("step 0: non-finite"), std::string::npos) << f.what();
    }
}

// Head-on at 75 nm/ps each, 0.3 nm apart: after one step of 2 fs they coincide,
// on a step without energies, so only the per-step force check can catch it.
TEST(RunFailure, NonFiniteForceOnAStepWithoutEnergiesIsCaught) {
    System sys = lj_system(108);
    sys.dt = 0.002;
    for (auto& v : sys.velocities) v = {0.0, 0.0, 0.0};
    const Vec3 c = sys.positions[0];
    for (std::size_t a = 1; a < sys.natoms(); ++a) {  // keep others out of the way of the pair
        double r2 = 0;
        for (int d = 0; d < 3; ++d) r2 += std::pow(sys.positions[a][d] - c[d], 2);
        if (r2 < 0.36) sys.positions[a] = {c[0] + 0.1 + 0.01 * a, c[1] + 2.0, c[2] + 1.0};
    }
    sys.positions[1] = {c[0] + 0.3, c[1], c[2]};
    sys.velocities[0] = {75.0, 0.0, 0.0};
    sys.velocities[1] = {-75.0, 0.0, 0.0};
    RunControl control;
    control.steps = 10;
    control.nstcalcenergy = 5;
    RunConfig config;
    config.threads = 1;
    config.rlist = 1.0;
    try {
        run(sys, config, control);
        ADD_FAILURE() << "expected RunFailed";
    } catch (const RunFailed& f) {
        EXPECT_EQ(f.report().failed_step, 1);
        EXPECT_NE(std::string(f.what()).find("non-finite force"), std::string::npos) << f.what();
    }
}

TEST(PmeGrid, AbsurdRatioOfBoxToSpacingIsRefused) {
    EXPECT_THROW(pme_grid_size(1e6, 1e-300, 4), std::invalid_argument);
    EXPECT_EQ(pme_grid_size(3.0, 0.1, 4), 30);
}

}  // namespace
}  // namespace mdcore
