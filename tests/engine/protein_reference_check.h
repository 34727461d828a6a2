#pragma once
// GROMACS 2022.5 double-precision single points of protein systems (tests/data:
// dhfr-jac and topologies/<family>): every energy term GROMACS reports and the
// forces, against mdcore's step-0 evaluation of the same .gro/.top.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "io/gromacs_io.h"
#include "reference_forces.h"
#include "mdcore/engine.h"
#include "mdcore/run_report.h"

#ifndef MDT_TEST_DATA_DIR
#error "MDT_TEST_DATA_DIR is set by tests/CMakeLists.txt"
#endif

namespace mdcore::testing {

inline std::string protein_data_dir(const std::string& name) { return std::string(MDT_TEST_DATA_DIR) + "/" + name + "/"; }

// The force fields the topologies include come with GROMACS (Debian's gromacs-data,
// which scripts/bootstrap.sh installs); without them the comparison cannot run.
inline bool gromacs_force_fields_installed() {
    return std::filesystem::exists("/usr/share/gromacs/top/amber99sb-ildn.ff/forcefield.itp") ||
           std::getenv("GMXLIB") != nullptr || std::getenv("GMXDATA") != nullptr;
}

// RMS of the force difference over the RMS force.
inline double relative_rms_force_error(const std::vector<Vec3>& f, const std::vector<Vec3>& ref) {
    double diff2 = 0.0, ref2 = 0.0;
    for (std::size_t i = 0; i < ref.size(); ++i)
        for (int d = 0; d < 3; ++d) {
            diff2 += (f[i][d] - ref[i][d]) * (f[i][d] - ref[i][d]);
            ref2 += ref[i][d] * ref[i][d];
        }
    return std::sqrt(diff2 / ref2);
}

struct ProteinReference {
    std::string dir;             // under tests/data
    std::array<int, 3> pme_grid;  // the reference's fourier-nx/ny/nz
    double rc = 1.0;
    std::string energies = "energies.json";
};

// Every term of the reference (`dir` + `energies`) within `tolerance` relative
// (the terms GROMACS printed, under its names), and the forces of `forces` (none
// when empty) within 1e-3 RMS.
inline void expect_system_matches_reference(const System& sys, const RunConfig& cfg, const std::string& dir,
                                            const std::string& energies, const std::string& forces,
                                            double tolerance = 1e-4) {
    const ForceResult r = compute_forces(sys, cfg);
    EnergySample e;
    e.lj = r.lj;
    e.coulomb_sr = r.coulomb_sr;
    e.coulomb_recip = r.coulomb_recip;
    e.bonded = r.bonded;
    e.dispersion_correction = r.dispersion_correction;
    e.pressure_dc = r.pressure_dc;
    e.potential = r.potential;
    std::map<std::string, double> ours;
    for (const auto& [name, value] : gromacs_energy_terms(e)) ours[name] = value;

    nlohmann::json json;
    std::ifstream(dir + energies) >> json;
    for (const auto& [term, value] : json["energies_kJ_per_mol"].items()) {
        const double expected = value.get<double>();
        if (expected == 0.0 && !ours.count(term)) continue;  // e.g. no reciprocal part with reaction field
        const auto it = ours.find(term);
        ASSERT_NE(it, ours.end()) << "mdcore reports no '" << term << "' term";
        EXPECT_LE(std::abs(it->second - expected), tolerance * std::abs(expected))
            << term << ": mdcore " << it->second << ", GROMACS " << expected;
    }
    for (const auto& [term, value] : ours)
        if (value != 0.0)
            EXPECT_TRUE(json["energies_kJ_per_mol"].contains(term)) << "GROMACS reports no '" << term << "' term (" << value << ")";

    if (forces.empty()) return;
    const std::vector<Vec3> ref_forces = read_force_file(dir + forces);
    ASSERT_EQ(ref_forces.size(), r.forces.size());
    EXPECT_LT(relative_rms_force_error(r.forces, ref_forces), 1e-3);
}

// The same for a reference single point with rc 1.0 nm, potential shift, PME order 4
// on the given grid and ewald-rtol 1e-5, read from the reference's .gro/.top.
inline void expect_matches_protein_reference(const ProteinReference& ref, RunConfig cfg, double tolerance = 1e-4) {
    const std::string dir = protein_data_dir(ref.dir);
    System sys = read_gromacs_system(dir + "conf.gro", dir + "topol.top");
    sys.rc = ref.rc;
    sys.ewald_rtol = 1e-5;
    cfg.pme_grid = ref.pme_grid;
    cfg.pme_order = 4;
    if (cfg.threads == 0) cfg.threads = 2;
    expect_system_matches_reference(sys, cfg, dir, ref.energies, "forces.txt", tolerance);
}

}  // namespace mdcore::testing
