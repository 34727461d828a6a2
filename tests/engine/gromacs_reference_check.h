#pragma once
// The GROMACS 2022.5 reference of tests/data/gromacs/water-3nm (SPC/E water, rc
// 1.0 nm, potential shift for LJ and Coulomb, PME order 4 on a 32^3 grid,
// ewald_rtol 1e-5, no dispersion correction) as one check that any RunConfig can
// be held to: the CPU kernels (test_gromacs_reference) and the GPU offload modes
// (test_gpu_offload) share it.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "io/gromacs_io.h"
#include "mdcore/engine.h"
#include "reference_forces.h"

#ifndef MDT_TEST_DATA_DIR
#error "MDT_TEST_DATA_DIR is set by tests/CMakeLists.txt"
#endif

namespace mdcore::testing {

inline std::string gromacs_reference_dir() { return std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm/"; }

inline std::vector<Vec3> read_reference_forces() { return read_force_file(gromacs_reference_dir() + "forces.txt"); }

// Energies within the tolerances (potential 0.05 %, each term 0.1 %) and
// forces within 1 % RMS of GROMACS'. `cfg` chooses kernels and offload; the box's
// cut-off, accuracy and grid are set here.
inline void expect_matches_gromacs_reference(RunConfig cfg) {
    const std::string dir = gromacs_reference_dir();
    System sys = read_gromacs_system(dir + "conf.gro", dir + "topol.top");
    sys.rc = 1.0;
    sys.ewald_rtol = 1e-5;
    cfg.pme_grid = std::array<int, 3>{32, 32, 32};
    cfg.pme_order = 4;
    cfg.threads = 2;
    const ForceResult r = compute_forces(sys, cfg);

    nlohmann::json ref;
    std::ifstream(dir + "energies.json") >> ref;
    const auto& e = ref["energies_kJ_per_mol"];
    auto rel = [](double a, double b) { return std::abs(a - b) / std::abs(b); };
    EXPECT_LT(rel(r.potential, e["Potential"].get<double>()), 5e-4) << r.potential;
    EXPECT_LT(rel(r.lj, e["LJ (SR)"].get<double>()), 1e-3) << r.lj;
    EXPECT_LT(rel(r.coulomb_sr, e["Coulomb (SR)"].get<double>()), 1e-3) << r.coulomb_sr;
    EXPECT_LT(rel(r.coulomb_recip, e["Coul. recip."].get<double>()), 1e-3) << r.coulomb_recip;

    const std::vector<Vec3> fref = read_reference_forces();
    ASSERT_EQ(fref.size(), r.forces.size());
    double diff2 = 0, ref2 = 0;
    for (std::size_t a = 0; a < fref.size(); ++a)
        for (int k = 0; k < 3; ++k) {
            diff2 += (r.forces[a][k] - fref[a][k]) * (r.forces[a][k] - fref[a][k]);
            ref2 += fref[a][k] * fref[a][k];
        }
    const double ratio = std::sqrt(diff2 / ref2);
    EXPECT_LT(ratio, 0.01);
    ::testing::Test::RecordProperty("rms_force_error_ratio", std::to_string(ratio));
}

}  // namespace mdcore::testing
