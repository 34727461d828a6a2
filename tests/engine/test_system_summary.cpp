// A system's summary (mdcore/system_summary.h) resolves every config exactly as
// the System does, and a generated kind's summary, computed without building it,
// equals the summary of the built system.
#include <gtest/gtest.h>

#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdcore/system_summary.h"

namespace mdcore {
namespace {

void expect_same_resolution(const System& sys, const SystemSummary& summary, const RunConfig& rc) {
    const EffectiveConfig a = resolve_config(sys, rc, RunControl{});
    const EffectiveConfig b = resolve_config(summary, rc, RunControl{});
    EXPECT_EQ(a.cluster, b.cluster);
    EXPECT_DOUBLE_EQ(a.rc, b.rc);
    EXPECT_NEAR(a.rlist, b.rlist, 1e-12);
    EXPECT_NEAR(a.rlist_inner, b.rlist_inner, 1e-12);
    EXPECT_EQ(a.pme, b.pme);
    EXPECT_EQ(a.pme_grid, b.pme_grid);
    EXPECT_NEAR(a.pme_force_error, b.pme_force_error, 1e-9 * std::max(1.0, a.pme_force_error));
    EXPECT_EQ(a.constraints, b.constraints);
}

TEST(SystemSummary, GeneratedKindsWithoutBuildingThem) {
    for (const auto& [kind, natoms] : {std::pair{SystemKind::Water, 1500L}, std::pair{SystemKind::WaterIons, 6000L},
                                       std::pair{SystemKind::Lj, 2000L}, std::pair{SystemKind::Argon, 999L}}) {
        const System built = make_named_system(kind, natoms, 7);
        const SystemSummary from_built = summarize(built);
        const SystemSummary direct = named_system_summary(kind, natoms, 7);
        SCOPED_TRACE(std::string(to_string(kind)));
        EXPECT_EQ(direct.kind, built.kind);
        EXPECT_EQ(direct.natoms, static_cast<long>(built.natoms()));
        for (int d = 0; d < 3; ++d) EXPECT_NEAR(direct.box.lengths[d], built.box.lengths[d], 1e-12);
        ASSERT_EQ(direct.classes.size(), from_built.classes.size());
        for (std::size_t c = 0; c < direct.classes.size(); ++c) {
            EXPECT_DOUBLE_EQ(direct.classes[c].mass, from_built.classes[c].mass);
            EXPECT_EQ(direct.classes[c].lj_type, from_built.classes[c].lj_type);
            EXPECT_DOUBLE_EQ(direct.classes[c].charge, from_built.classes[c].charge);
            EXPECT_DOUBLE_EQ(direct.classes[c].count, from_built.classes[c].count);
        }
        EXPECT_EQ(direct.lj.c6, built.lj.c6);
        EXPECT_EQ(direct.lj.c12, built.lj.c12);
        EXPECT_EQ(direct.settles, from_built.settles);
        EXPECT_EQ(direct.topology, from_built.topology);
        // Ideal SETTLE geometry against the equilibrated cell's (written to 3 decimals).
        EXPECT_NEAR(direct.update_group_radius, from_built.update_group_radius, 2e-3);
        EXPECT_DOUBLE_EQ(direct.rc, built.rc);
        EXPECT_DOUBLE_EQ(direct.dt, built.dt);
        EXPECT_DOUBLE_EQ(direct.temperature, built.temperature);
        EXPECT_NEAR(direct.mass_density_g_cm3(), built.mass_density_g_cm3(), 1e-9);
        for (const char* shape : {"4x4", "8x4"})
            for (int nstlist : {10, 80})
                for (double scale : {1.0, 1.1}) {
                    RunConfig rc;
                    rc.cluster = parse_cluster_shape(shape);
                    rc.nstlist = nstlist;
                    rc.pme_scale = scale;
                    rc.threads = 1;
                    rc.simd = SimdLevel::None;
                    expect_same_resolution(built, direct, rc);
                }
    }
}

TEST(SystemSummary, RefusesWhatTheGeneratorRefuses) {
    EXPECT_THROW(named_system_summary(SystemKind::Lj, 0, 1), std::invalid_argument);
    WaterSpec spec;
    spec.nwater = 10;
    spec.nacl_molar = 50.0;  // 9 ion pairs for 10 waters
    EXPECT_THROW(water_summary(spec), std::invalid_argument);
}

}  // namespace
}  // namespace mdcore
