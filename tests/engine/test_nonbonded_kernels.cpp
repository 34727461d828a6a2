// Every cluster shape and SIMD level against the double-precision reference kernel:
// LJ potential-shift, force-switch and potential-switch, with PME (Ewald real
// space) or reaction-field Coulomb.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>

#include "md_runner.h"
#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdcore/units.h"
#include "nonbonded/reference_kernel.h"
#include "test_systems.h"

namespace mdcore {
namespace {

struct Case {
    ClusterShape shape;
    SimdLevel simd;
};

std::vector<Case> all_cases() {
    std::vector<Case> cases;
    for (SimdLevel l : available_simd_levels())
        for (ClusterShape s : {ClusterShape::k4x4, ClusterShape::k4x8, ClusterShape::k8x4, ClusterShape::k1x1})
            cases.push_back({s, l});
    return cases;
}

std::string name(const Case& c) { return std::string(to_string(c.shape)) + "/" + std::string(to_string(c.simd)); }

// Per-pair sum of |F_ij| and |V_ij| in double: the scale of rounding errors.
struct Magnitudes {
    std::vector<double> force_abs;
    double energy_abs = 0.0;
};

Magnitudes magnitudes(const System& sys, double rc) {
    Magnitudes m;
    m.force_abs.assign(sys.natoms(), 0.0);
    const double rc6 = std::pow(rc, -6);
    for (std::size_t i = 0; i < sys.natoms(); ++i)
        for (std::size_t j = i + 1; j < sys.natoms(); ++j) {
            double r2 = 0;
            for (int k = 0; k < 3; ++k) {
                double d = sys.positions[i][k] - sys.positions[j][k];
                d -= sys.box.lengths[k] * std::round(d / sys.box.lengths[k]);
                r2 += d * d;
            }
            if (r2 >= rc * rc) continue;
            const double c6 = sys.lj.c6_at(sys.type[i], sys.type[j]);
            const double c12 = sys.lj.c12_at(sys.type[i], sys.type[j]);
            const double ri6 = 1.0 / (r2 * r2 * r2);
            const double f = std::abs(12 * c12 * ri6 * ri6 - 6 * c6 * ri6) / std::sqrt(r2);
            m.force_abs[i] += f;
            m.force_abs[j] += f;
            m.energy_abs += std::abs(c12 * (ri6 * ri6 - rc6 * rc6)) + std::abs(c6 * (ri6 - rc6));
        }
    return m;
}

// Float kernels: coordinates carry a relative error of ~6e-8 * box / r per
// difference; the r^-13 force amplifies it 13-fold. 1e-4 of the summed pair
// magnitudes covers that with room for accumulation order, and is still
// hundreds of times below any real bug (a missed or doubled pair).
constexpr double kForceTolerance = 1e-4;
constexpr double kEnergyTolerance = 1e-5;

// The force-only kernels (what every step but the energy steps runs) on the same
// single-list set-up as compute_forces().
std::vector<Vec3> force_only_forces(const System& sys, const RunConfig& cfg) {
    System copy = sys;
    RunControl control;
    control.steps = 0;
    EffectiveConfig ec = resolve_config(copy, cfg, control);
    ec.nstprune = ec.nstlist;
    ec.rlist_inner = ec.rlist;
    MdRunner md(copy, ec);
    md.search();
    md.compute_nonbonded(EnergyOutput::No);
    return md.forces_in_input_order();
}

void expect_matches_reference(const System& sys, const Case& c) {
    RunConfig cfg;
    cfg.cluster = c.shape;
    cfg.simd = c.simd;
    cfg.threads = 2;
    const ForceResult got = compute_forces(sys, cfg);
    const ReferenceResult ref = reference_lj_forces(sys, sys.rc);
    const Magnitudes mag = magnitudes(sys, sys.rc);
    EXPECT_NEAR(got.lj, ref.lj, kEnergyTolerance * mag.energy_abs + 1e-9) << name(c);
    auto expect_forces = [&](const std::vector<Vec3>& forces, const char* path) {
        int bad = 0;
        for (std::size_t a = 0; a < sys.natoms(); ++a)
            for (int k = 0; k < 3; ++k) {
                const double tol = kForceTolerance * mag.force_abs[a] + 1e-6;
                if (std::abs(forces[a][k] - ref.forces[a][k]) > tol && bad++ < 5)
                    ADD_FAILURE() << name(c) << " " << path << " atom " << a << " dim " << k << ": " << forces[a][k]
                                  << " vs " << ref.forces[a][k] << " (tol " << tol << ")";
            }
    };
    expect_forces(got.forces, "energy kernel");
    expect_forces(force_only_forces(sys, cfg), "force-only kernel");
}

TEST(NonbondedKernels, JitteredLatticeUnevenCount) {
    const System sys = testing::lj_system(997, 0.8442, 0.04, 11);
    for (const Case& c : all_cases()) expect_matches_reference(sys, c);
}

TEST(NonbondedKernels, PerfectLattice) {
    const System sys = testing::lj_system(864, 0.8442, 0.0);  // 6^3 fcc cells
    for (const Case& c : all_cases()) expect_matches_reference(sys, c);
}

TEST(NonbondedKernels, RandomDilutePositions) {
    // Random insertion with a minimum separation (no overlaps that overflow float).
    System sys = testing::lj_system(301, 0.3, 0.0);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(0.0, sys.box.lengths[0]);
    for (std::size_t a = 0; a < sys.natoms(); ++a) {
        for (int attempt = 0; attempt < 1000; ++attempt) {
            Vec3 p{u(rng), u(rng), u(rng)};
            bool ok = true;
            for (std::size_t b = 0; b < a && ok; ++b) {
                double r2 = 0;
                for (int k = 0; k < 3; ++k) {
                    double d = p[k] - sys.positions[b][k];
                    d -= sys.box.lengths[k] * std::round(d / sys.box.lengths[k]);
                    r2 += d * d;
                }
                ok = r2 > 0.3 * 0.3;
            }
            if (ok) {
                sys.positions[a] = p;
                break;
            }
        }
    }
    for (const Case& c : all_cases()) expect_matches_reference(sys, c);
}

TEST(NonbondedKernels, SmallBoxJustAboveTwiceCutoff) {
    // 1.71 nm box with rc 0.85: images of the same pair within rlist, one within rc.
    System sys = testing::lj_system(108, 0.8442, 0.03);
    ASSERT_GT(sys.box.lengths[0], 2 * sys.rc);
    for (const Case& c : all_cases()) expect_matches_reference(sys, c);
}

TEST(NonbondedKernels, PairsExactlyAtCutoffAreExcluded) {
    // rc = 1 and separations of exactly 1.0 (representable in float and double):
    // both the kernels and the reference use r < rc, so these pairs contribute nothing.
    System sys = testing::lj_system(8, 0.1, 0.0);
    sys.box.lengths = {4.0, 4.0, 4.0};
    sys.rc = 1.0;
    sys.positions = {{0.5, 0.5, 0.5}, {1.5, 0.5, 0.5}, {0.5, 1.5, 0.5}, {0.5, 0.5, 1.5},
                     {2.5, 2.5, 2.5}, {2.5, 2.5, 3.5}, {3.5, 0.5, 2.0}, {3.5, 0.5, 2.5}};
    for (const Case& c : all_cases()) {
        expect_matches_reference(sys, c);
        RunConfig cfg;
        cfg.cluster = c.shape;
        cfg.simd = c.simd;
        const ForceResult got = compute_forces(sys, cfg);
        for (int a = 0; a < 6; ++a)
            for (int k = 0; k < 3; ++k) EXPECT_EQ(got.forces[a][k], 0.0) << name(c) << " atom " << a;
        EXPECT_NE(got.forces[6][2], 0.0);  // 0.5 nm apart: inside
    }
}

TEST(NonbondedKernels, LorentzBerthelotUsesTableKernels) {
    const System sys = testing::two_type_lb_system(500);
    ASSERT_FALSE(sys.lj.is_geometric());
    for (const Case& c : all_cases()) expect_matches_reference(sys, c);
}

TEST(NonbondedKernels, ExclusionsAreHonoured) {
    System sys = testing::lj_system(400, 0.8442, 0.03);
    sys.exclusions.assign(sys.natoms(), {});
    // Exclude each atom's nearest index partner, as in a chain of dimers.
    for (std::size_t a = 0; a + 1 < sys.natoms(); a += 2) {
        sys.exclusions[a].push_back(static_cast<int>(a + 1));
        sys.exclusions[a + 1].push_back(static_cast<int>(a));
    }
    for (const Case& c : all_cases()) expect_matches_reference(sys, c);
}

// ---- LJ modifiers and reaction field: every variant x shape x SIMD level ----

// One interaction form: the LJ modifier and, for charged systems, the Coulomb method.
struct Variant {
    VdwModifier vdw = VdwModifier::PotentialShift;
    double rvdw_switch = 0.0;
    CoulombType coulomb = CoulombType::Pme;
    double epsilon_rf = 1.0;
};

std::string name(const Variant& v) {
    std::string s = std::string(to_string(v.vdw));
    if (v.vdw != VdwModifier::PotentialShift) s += "@" + std::to_string(v.rvdw_switch).substr(0, 4);
    s += "/" + std::string(to_string(v.coulomb));
    if (v.coulomb == CoulombType::ReactionField) s += "(eps_rf " + std::to_string(v.epsilon_rf).substr(0, 4) + ")";
    return s;
}

System with_variant(System sys, const Variant& v) {
    sys.vdw_modifier = v.vdw;
    sys.rvdw_switch = v.rvdw_switch;
    sys.coulomb_type = v.coulomb;
    sys.epsilon_rf = v.epsilon_rf;
    return sys;
}

// The reference evaluation of what resolve_config made of the system.
ReferenceInteraction reference_interaction(const System& sys, const EffectiveConfig& eff) {
    ReferenceInteraction in;
    in.rc = eff.rc;
    in.vdw = eff.vdw_modifier;
    in.rvdw_switch = eff.rvdw_switch;
    in.ewald_beta = eff.ewald_beta;
    in.epsilon_rf = eff.epsilon_rf;
    const bool charged = std::any_of(sys.charge.begin(), sys.charge.end(), [](double q) { return q != 0.0; });
    in.coulomb = !charged ? ReferenceInteraction::Coulomb::None
                 : eff.pme ? ReferenceInteraction::Coulomb::Ewald
                           : ReferenceInteraction::Coulomb::ReactionField;
    return in;
}

// The kernels of one shape and level on one list (energy and force-only
// variants) against the reference: LJ, short-range Coulomb with its exclusion
// corrections and self term, and forces, within float rounding of the summed
// pair magnitudes (as above; Coulomb energies 1e-5 of their total, as the Ewald
// kernels' test).
void expect_variant_matches_reference(const System& sys, const Case& c, const std::string& what) {
    System copy = sys;
    RunConfig rc;
    rc.cluster = c.shape;
    rc.simd = c.simd;
    rc.threads = 2;
    const EffectiveConfig cfg = resolve_config(copy, rc, RunControl{});
    const ReferenceResult ref = reference_forces(sys, reference_interaction(sys, cfg));
    MdRunner md(copy, cfg);
    md.search();
    const ForceEnergies e = md.compute_nonbonded(EnergyOutput::Yes);
    const std::string label = what + " " + name(c);
    const double coulomb = ref.coulomb + ref.coulomb_self;
    EXPECT_NEAR(e.lj, ref.lj, kEnergyTolerance * ref.lj_abs + 1e-5 * std::abs(coulomb) + 1e-9) << label;
    EXPECT_NEAR(e.coulomb_sr, coulomb, 1e-5 * std::abs(coulomb) + 1e-9) << label;
    EXPECT_EQ(e.pairs_in_cutoff, static_cast<double>(ref.pairs_in_cutoff)) << label;
    auto expect_forces = [&](const char* path) {
        const std::vector<Vec3> forces = md.forces_in_input_order();
        int bad = 0;
        for (std::size_t a = 0; a < sys.natoms(); ++a)
            for (int k = 0; k < 3; ++k) {
                const double tol = kForceTolerance * ref.force_abs[a] + 1e-4;
                if (std::abs(forces[a][k] - ref.forces[a][k]) > tol && bad++ < 3)
                    ADD_FAILURE() << label << " " << path << " atom " << a << " dim " << k << ": " << forces[a][k]
                                  << " vs " << ref.forces[a][k] << " (tol " << tol << ")";
            }
    };
    expect_forces("energy kernel");
    md.compute_nonbonded(EnergyOutput::No);
    expect_forces("force-only kernel");
}

void check_variants(const System& sys, const std::vector<Variant>& variants) {
    for (const Variant& v : variants) {
        const System s = with_variant(sys, v);
        for (const Case& c : all_cases()) expect_variant_matches_reference(s, c, name(v));
    }
}

// Argon units (rc 0.85 nm): switching over the last 0.25 nm holds many pairs.
const std::vector<Variant> kLjVariants = {{VdwModifier::ForceSwitch, 0.6}, {VdwModifier::PotentialSwitch, 0.6}};

TEST(NonbondedModifiers, LjSwitchesOnAJitteredLattice) {
    check_variants(testing::lj_system(997, 0.8442, 0.04, 11), kLjVariants);
}

TEST(NonbondedModifiers, LjSwitchesWithTableKernelsAndExclusions) {
    System sys = testing::two_type_lb_system(500);
    sys.exclusions.assign(sys.natoms(), {});
    for (std::size_t a = 0; a + 1 < sys.natoms(); a += 2) {
        sys.exclusions[a].push_back(static_cast<int>(a + 1));
        sys.exclusions[a + 1].push_back(static_cast<int>(a));
    }
    check_variants(sys, kLjVariants);
}

TEST(NonbondedModifiers, SwitchStartingAtZeroAndJustBelowTheCutoff) {
    const System sys = testing::lj_system(400, 0.8442, 0.03);
    check_variants(sys, {{VdwModifier::ForceSwitch, 0.0},
                         {VdwModifier::PotentialSwitch, 0.0},
                         {VdwModifier::ForceSwitch, 0.84},
                         {VdwModifier::PotentialSwitch, 0.84}});
}

// Every LJ modifier with PME and with reaction field (finite and infinite
// epsilon_rf) on SPC/E water, with NaCl (table LJ) and without (geometric).
std::vector<Variant> charged_variants() {
    std::vector<Variant> out;
    for (auto [vdw, rsw] : {std::pair{VdwModifier::PotentialShift, 0.0}, std::pair{VdwModifier::ForceSwitch, 0.8},
                            std::pair{VdwModifier::PotentialSwitch, 0.8}})
        for (auto [coulomb, eps_rf] : {std::pair{CoulombType::Pme, 1.0}, std::pair{CoulombType::ReactionField, 62.0},
                                       std::pair{CoulombType::ReactionField, 0.0}})
            out.push_back({vdw, rsw, coulomb, eps_rf});
    return out;
}

const System& small_water(double nacl) {
    static std::map<double, System> cache;
    auto it = cache.find(nacl);
    if (it == cache.end()) {
        WaterSpec spec;
        spec.nwater = 400;  // 2.29 nm box: rc 1.0 below half of it
        spec.nacl_molar = nacl;
        spec.relax_steps = 100;
        spec.threads = 2;
        it = cache.emplace(nacl, make_water_system(spec)).first;
    }
    return it->second;
}

TEST(NonbondedModifiers, WaterWithPmeAndReactionField) { check_variants(small_water(0.0), charged_variants()); }

TEST(NonbondedModifiers, WaterWithNaClUsesTablesWithEveryVariant) {
    const System& sys = small_water(0.5);
    ASSERT_FALSE(sys.lj.is_geometric());
    check_variants(sys, charged_variants());
}

// The reference pair functions themselves, against the definitions: F = -dV/dr
// (central differences), V and F continuous at the switch radius, zero at rc.
TEST(NonbondedModifiers, ReferencePairFormsAreConsistent) {
    const double c6 = 2.6e-3, c12 = 2.6e-6;  // SPC/E oxygen
    for (VdwModifier vdw : {VdwModifier::PotentialShift, VdwModifier::ForceSwitch, VdwModifier::PotentialSwitch}) {
        ReferenceInteraction in;
        in.rc = 1.2;
        in.rvdw_switch = 1.0;
        in.vdw = vdw;
        const std::string what(to_string(vdw));
        for (double r = 0.3; r < in.rc; r += 0.0123) {
            const double h = 1e-6;
            const double dv = (reference_lj_pair(r + h, c6, c12, in).v - reference_lj_pair(r - h, c6, c12, in).v) / (2 * h);
            const PairEnergyForce p = reference_lj_pair(r, c6, c12, in);
            EXPECT_NEAR(p.f, -dv, 1e-6 * (12 * c12 * std::pow(r, -13) + 6 * c6 * std::pow(r, -7))) << what << " r " << r;
        }
        const PairEnergyForce at_rc = reference_lj_pair(in.rc, c6, c12, in);
        EXPECT_NEAR(at_rc.v, 0.0, 1e-15) << what;
        if (vdw != VdwModifier::PotentialShift) {
            EXPECT_NEAR(at_rc.f, 0.0, 1e-14) << what;
            // Below the switch radius the force is the plain LJ force.
            const PairEnergyForce below = reference_lj_pair(0.99, c6, c12, in);
            EXPECT_NEAR(below.f, 12 * c12 * std::pow(0.99, -13) - 6 * c6 * std::pow(0.99, -7), 1e-12) << what;
            // Across r1: V and F change by their derivatives' share only (no step).
            const double h = 1e-7, r1 = in.rvdw_switch;
            const PairEnergyForce lo = reference_lj_pair(r1 - h, c6, c12, in), hi = reference_lj_pair(r1 + h, c6, c12, in);
            const double df = 156 * c12 * std::pow(r1, -14) + 42 * c6 * std::pow(r1, -8);  // |dF/dr| scale
            EXPECT_NEAR(hi.v - lo.v, -2 * h * reference_lj_pair(r1, c6, c12, in).f, 1e-3 * h * df) << what;
            EXPECT_NEAR(hi.f, lo.f, 3 * h * df) << what;
        }
    }
}

// GROMACS' Verlet-scheme reaction field: excluded pairs within rc get
// qq (k_rf r^2 - c_rf) and each atom -c_rf/2 f q^2, which together make a neutral
// molecule's "Coulomb (SR)" the same whether its atoms are excluded or not, up to
// the 1/r terms. Two ions far apart: only the self terms are left.
TEST(NonbondedModifiers, ReactionFieldSelfAndExclusionTermsAsGromacs) {
    System sys = testing::lj_system(8, 0.1, 0.0);
    sys.box.lengths = {4.0, 4.0, 4.0};
    sys.rc = 1.0;
    sys.positions = {{0.5, 0.5, 0.5}, {0.8, 0.5, 0.5}, {2.5, 2.5, 2.5}, {2.5, 2.9, 2.5},
                     {3.5, 0.5, 2.0}, {1.5, 3.5, 3.5}, {0.5, 2.5, 3.5}, {3.5, 3.5, 0.5}};
    sys.charge = {0.5, -0.5, 1.0, -1.0, 0, 0, 0, 0};
    sys.exclusions.assign(sys.natoms(), {});
    sys.exclusions[2] = {3};
    sys.exclusions[3] = {2};
    sys.coulomb_type = CoulombType::ReactionField;
    sys.epsilon_rf = 62.0;
    RunConfig rc;
    rc.threads = 1;
    System copy = sys;
    const EffectiveConfig cfg = resolve_config(copy, rc, RunControl{});
    EXPECT_FALSE(cfg.pme);
    EXPECT_EQ(cfg.coulomb_type, CoulombType::ReactionField);
    MdRunner md(copy, cfg);
    md.search();
    const ForceEnergies e = md.compute_nonbonded(EnergyOutput::Yes);
    const double f = units::kCoulomb, k = (62.0 - 1.0) / (2 * 62.0 + 1.0), c = 1.0 + k;
    const double q2 = 0.25 + 0.25 + 1 + 1;
    const double pair01 = f * -0.25 * (1 / 0.3 + k * 0.09 - c);  // interacting
    const double pair23 = f * -1.0 * (k * 0.16 - c);             // excluded: no 1/r
    EXPECT_NEAR(e.coulomb_sr, pair01 + pair23 - 0.5 * c * f * q2, 1e-4);
    EXPECT_EQ(md.pme(), nullptr);  // no mesh with a reaction field
}

TEST(NonbondedModifiers, ResolveConfigChecksTheSettings) {
    System lj = testing::lj_system(400, 0.8442, 0.03);  // rc 0.85
    lj.vdw_modifier = VdwModifier::ForceSwitch;
    lj.rvdw_switch = 0.85;
    EXPECT_THROW(resolve_config(lj, RunConfig{}, RunControl{}), std::invalid_argument);
    lj.rvdw_switch = -0.1;
    EXPECT_THROW(resolve_config(lj, RunConfig{}, RunControl{}), std::invalid_argument);
    lj.rvdw_switch = 0.7;
    const EffectiveConfig eff = resolve_config(lj, RunConfig{}, RunControl{});
    EXPECT_EQ(eff.vdw_modifier, VdwModifier::ForceSwitch);
    EXPECT_EQ(eff.rvdw_switch, 0.7);
    RunConfig gpu;
    gpu.nb = Offload::Gpu;
    try {
        resolve_config(lj, gpu, RunControl{});
        ADD_FAILURE() << "--nb gpu with force-switch accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("force-switch"), std::string::npos) << e.what();
    }

    System water = small_water(0.0);
    water.coulomb_type = CoulombType::ReactionField;
    water.epsilon_rf = 0.5;  // below epsilon_r
    EXPECT_THROW(resolve_config(water, RunConfig{}, RunControl{}), std::invalid_argument);
    water.epsilon_rf = 0.0;
    const EffectiveConfig rf = resolve_config(water, RunConfig{}, RunControl{});
    EXPECT_FALSE(rf.pme);
    EXPECT_EQ(rf.ewald_beta, 0.0);
    EXPECT_EQ(rf.pme_grid, (std::array<int, 3>{0, 0, 0}));
    RunConfig scaled;
    scaled.pme_scale = 1.1;
    EXPECT_THROW(resolve_config(water, scaled, RunControl{}), std::invalid_argument);
    try {
        resolve_config(water, gpu, RunControl{});
        ADD_FAILURE() << "--nb gpu with reaction field accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("reaction-field"), std::string::npos) << e.what();
    }
}

// NVE with the new forms: forces consistent with the energies and a buffer from
// each form's derivatives keep the conserved energy within the drift tolerance.
TEST(ModifierDynamics, WaterWithReactionFieldAndForceSwitchConservesEnergy) {
    WaterSpec spec;
    spec.nwater = 400;
    spec.threads = 2;
    System sys = make_water_system(spec);
    sys.coulomb_type = CoulombType::ReactionField;
    sys.epsilon_rf = 62.0;
    sys.vdw_modifier = VdwModifier::ForceSwitch;
    sys.rvdw_switch = 0.8;
    RunConfig cfg;
    cfg.threads = 2;
    // The outer list alone first: its buffer is estimated for the tolerance.
    cfg.nstlist = 20;
    cfg.nstprune = 20;
    RunControl control;
    control.steps = 2500;
    control.nstcalcenergy = 50;
    System copy = sys;
    const RunReport rep = run(copy, cfg, control);
    ASSERT_EQ(rep.status, "ok") << rep.error;
    EXPECT_EQ(rep.config.coulomb_type, CoulombType::ReactionField);
    EXPECT_FALSE(rep.config.pme);
    EXPECT_EQ(rep.end.coulomb_recip, 0.0);
    EXPECT_LT(std::abs(rep.drift_per_atom_per_ps), sys.drift_tolerance) << rep.drift_per_atom_per_ps;
    EXPECT_GT(rep.end.temperature, 250.0);
    EXPECT_LT(rep.end.temperature, 380.0);
    // With dynamic pruning the inner list (pruned every 4 steps to rc + 0.02 nm)
    // is estimated for the tolerance on its own and its drift adds to the outer
    // list's: measured at 0.8-1.25 times the tolerance with a reaction field,
    // whose curvature at rc is large (PME: 0.05 times). Within twice the tolerance.
    cfg.nstprune = 0;
    const RunReport pruned = run(sys, cfg, control);
    ASSERT_EQ(pruned.status, "ok") << pruned.error;
    EXPECT_LT(pruned.config.nstprune, pruned.config.nstlist);
    EXPECT_LT(std::abs(pruned.drift_per_atom_per_ps), 2 * sys.drift_tolerance) << pruned.drift_per_atom_per_ps;
}

TEST(ModifierDynamics, LjFluidWithPotentialSwitchConservesEnergy) {
    System sys = testing::lj_system(2000, 0.8442, 0.03, 5);
    sys.vdw_modifier = VdwModifier::PotentialSwitch;
    sys.rvdw_switch = 0.7;
    RunConfig cfg;
    cfg.threads = 2;
    RunControl control;
    control.steps = 2000;
    control.nstcalcenergy = 50;
    const RunReport rep = run(sys, cfg, control);
    ASSERT_EQ(rep.status, "ok") << rep.error;
    EXPECT_EQ(rep.config.vdw_modifier, VdwModifier::PotentialSwitch);
    EXPECT_LT(std::abs(rep.drift_per_atom_per_ps), sys.drift_tolerance) << rep.drift_per_atom_per_ps;
}

TEST(PruneKernels, EveryLevelKeepsExactlyTheEntriesWithAPairInside) {
    // The outer list of a jittered lattice with exclusions (masked entries) pruned to
    // 0.8 rlist by every shape's prune kernel at every SIMD level, against a double
    // check of the same float coordinates: an entry is kept when a listed pair
    // (interacting or excluded) lies inside, up to float rounding at the radius.
    System sys = testing::lj_system(997, 0.8442, 0.04, 11);
    sys.exclusions.assign(sys.natoms(), {});
    for (std::size_t a = 0; a + 1 < sys.natoms(); a += 2) {
        sys.exclusions[a].push_back(static_cast<int>(a + 1));
        sys.exclusions[a + 1].push_back(static_cast<int>(a));
    }
    for (const Case& c : all_cases()) {
        RunConfig rc;
        rc.cluster = c.shape;
        rc.simd = c.simd;
        rc.threads = 2;
        System copy = sys;
        const EffectiveConfig cfg = resolve_config(copy, rc, RunControl{});
        MdRunner md(copy, cfg);
        md.search();
        const PairList& list = md.outer_list();
        const std::size_t n = md.state().size();
        std::vector<float> x(n), y(n), z(n);
        for (std::size_t s = 0; s < n; ++s) {
            x[s] = static_cast<float>(md.state().x[s]);
            y[s] = static_cast<float>(md.state().y[s]);
            z[s] = static_cast<float>(md.state().z[s]);
        }
        float shift[kNumShifts][3];
        fill_shift_table(md.grid().box(), shift);
        const double r_inner = 0.8 * list.rlist;
        const PruneInput in{{x.data(), y.data(), z.data(), shift}, &list, static_cast<float>(r_inner * r_inner)};
        std::vector<unsigned char> keep(list.j.size(), 2);
        kernel_set(c.simd, c.shape).prune(in, 0, static_cast<int>(list.i.size()), keep.data());

        const int ni = list.cluster_i, nj = list.cluster_j;
        int bad = 0, kept = 0;
        for (const IEntry& ei : list.i)
            for (int e = ei.j_begin; e < ei.j_end; ++e) {
                const JEntry& je = list.j[e];
                double r2_min = 1e30;
                for (int p = 0; p < ni * nj; ++p) {
                    if (!((je.mask | je.excluded) >> p & 1u)) continue;
                    const int a = ei.ci * ni + p / nj, b = je.cj * nj + p % nj;
                    const double dx = double(x[a]) - (double(x[b]) + shift[je.shift][0]);
                    const double dy = double(y[a]) - (double(y[b]) + shift[je.shift][1]);
                    const double dz = double(z[a]) - (double(z[b]) + shift[je.shift][2]);
                    r2_min = std::min(r2_min, dx * dx + dy * dy + dz * dz);
                }
                const double ratio = r2_min / (r_inner * r_inner);
                const bool must_keep = ratio < 1 - 1e-5, must_drop = ratio > 1 + 1e-5;
                kept += keep[e] == 1;
                if ((keep[e] > 1 || (must_keep && keep[e] != 1) || (must_drop && keep[e] != 0)) && bad++ < 5)
                    ADD_FAILURE() << name(c) << " entry " << e << ": keep " << int(keep[e]) << ", closest pair at "
                                  << std::sqrt(ratio) << " r_inner";
            }
        // Both outcomes occur, so neither "keep all" nor "drop all" passes.
        EXPECT_GT(kept, 0) << name(c);
        EXPECT_LT(kept, static_cast<int>(list.j.size())) << name(c);
    }
}

}  // namespace
}  // namespace mdcore
