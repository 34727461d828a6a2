// The tunable table: every entry parses what it formats, refuses what mdcore's
// flags refuse with the value as typed, and what is set on a RunConfig is what
// resolve_config reports back.
#include <gtest/gtest.h>

#include "mdcore/system_summary.h"

#include <set>
#include <string>
#include <vector>

#include "../common/error_message.h"
#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdcore/tunables.h"

namespace mdcore {
namespace {

std::string error_of(Tunable t, const std::string& text) {
    return mdtest::message_of<TunableError>([&] { parse_tunable(t, text); });
}

TEST(Tunables, OneEntryPerTunableInEnumOrderWithUniqueNames) {
    std::set<std::string_view> names, flags;
    for (std::size_t k = 0; k < tunables().size(); ++k) {
        const TunableInfo& t = tunables()[k];
        EXPECT_EQ(static_cast<std::size_t>(t.id), k) << t.name;
        EXPECT_TRUE(names.insert(t.name).second) << t.name;
        EXPECT_TRUE(flags.insert(t.flag).second) << t.flag;
        EXPECT_EQ(tunable_by_name(t.name), t.id);
        EXPECT_FALSE(t.default_doc.empty()) << t.name;
        EXPECT_TRUE(t.set && t.used) << t.name;
    }
    EXPECT_EQ(tunables().size(), 17u);
    EXPECT_FALSE(tunable_by_name("bogus"));
}

TEST(Tunables, ParseFormatRoundTrip) {
    const std::vector<std::pair<Tunable, std::string>> cases{
        {Tunable::Cluster, "4x8"},      {Tunable::Nstlist, "40"},       {Tunable::Nstprune, "100000"},
        {Tunable::Rlist, "1.1"},        {Tunable::PmeScale, "1.25"},    {Tunable::PmeSpacing, "0.125"},
        {Tunable::PmeOrder, "6"},       {Tunable::Threads, "4096"},     {Tunable::Simd, "avx2"},
        {Tunable::PmeGrid, "52x52x48"}, {Tunable::NbOffload, "gpu"},   {Tunable::PmeOffload, "cpu"},
        {Tunable::UpdateOffload, "gpu"}, {Tunable::GpuId, "1"},        {Tunable::Dd, "2x2x1"},
        {Tunable::Dd, "auto"},          {Tunable::Npme, "3"},          {Tunable::Ranks, "4"}};
    for (const auto& [t, text] : cases) EXPECT_EQ(format_tunable(parse_tunable(t, text)), text) << text;
    for (std::string_view shape : tunable_info(Tunable::Cluster).choices)
        EXPECT_EQ(std::get<ClusterShape>(parse_tunable(Tunable::Cluster, shape)), *parse_cluster_shape(shape));
}

TEST(Tunables, RefusalsNameTheFlagAndQuoteTheText) {
    EXPECT_EQ(error_of(Tunable::Cluster, "2x2"), "--cluster: '2x2' is not one of 4x4, 4x8, 8x4, 1x1");
    EXPECT_EQ(error_of(Tunable::Simd, "sse"), "--simd: 'sse' is not one of auto, none, avx2, avx512");
    EXPECT_EQ(error_of(Tunable::Nstlist, "0"), "--nstlist: 0 must be positive");
    EXPECT_EQ(error_of(Tunable::Nstlist, "100001"), "--nstlist: 100001 is above the limit of 100000");
    EXPECT_EQ(error_of(Tunable::Nstlist, "2.5"), "--nstlist: '2.5' is not an integer");
    EXPECT_EQ(error_of(Tunable::PmeOrder, "7"), "--pme-order: 7 is not 4, 5 or 6");
    EXPECT_EQ(error_of(Tunable::PmeOrder, "3"), "--pme-order: 3 is not 4, 5 or 6");
    EXPECT_EQ(error_of(Tunable::Rlist, "-0.0"), "--rlist: -0.0 must be positive");
    EXPECT_EQ(error_of(Tunable::Rlist, "inf"), "--rlist: inf is above the limit of 1000");
    EXPECT_EQ(error_of(Tunable::PmeScale, "nan"), "--pme-scale: nan is not a number");
    EXPECT_EQ(error_of(Tunable::PmeScale, "x1"), "--pme-scale: 'x1' is not a number");
    EXPECT_EQ(error_of(Tunable::PmeGrid, "52x52"), "--pme-grid: '52x52' is not NXxNYxNZ with positive sizes");
    EXPECT_EQ(error_of(Tunable::PmeGrid, "52x0x52"), "--pme-grid: '52x0x52' is not NXxNYxNZ with positive sizes");
    EXPECT_EQ(error_of(Tunable::Threads, "4097"), "--threads: 4097 is above the limit of 4096");
    // -1 holds "auto" inside; typed, it is below the range (it was taken as auto).
    EXPECT_EQ(error_of(Tunable::Npme, "-1"), "--npme: -1 is below the minimum of 0 ('auto' lets mdcore choose)");
    EXPECT_EQ(error_of(Tunable::Threads, "-1"), "--threads: -1 must be positive");
    // A size too large is out of range (it said "not ... positive sizes").
    EXPECT_EQ(error_of(Tunable::Dd, "99999999999x1x1"),
              "--dd: '99999999999x1x1': 99999999999 is out of range (each size is 1 to 1000000)");
    EXPECT_EQ(
        error_of(Tunable::Dd, "1x1x99999999999999999999999"),
        "--dd: '1x1x99999999999999999999999': 99999999999999999999999 is out of range (each size is 1 to 1000000)");
    EXPECT_EQ(error_of(Tunable::PmeGrid, "52x1000001x52"),
              "--pme-grid: '52x1000001x52': 1000001 is out of range (each size is 1 to 1000000)");
    // Typed values obey the same rules, under the caller's label.
    try {
        check_tunable(Tunable::PmeOrder, TunableValue{8L}, "pme_order");
        FAIL() << "pme_order 8 accepted";
    } catch (const TunableError& e) {
        EXPECT_STREQ(e.what(), "pme_order: 8 is not 4, 5 or 6");
    }
    EXPECT_THROW(check_tunable(Tunable::Cluster, TunableValue{4L}), TunableError);
    EXPECT_NO_THROW(check_tunable(Tunable::Rlist, TunableValue{2L}));  // an integer where a real goes
}

// What the table sets on a RunConfig is what the run reports it used.
TEST(Tunables, SetOnRunConfigReadBackFromEffectiveConfig) {
    WaterSpec spec;
    spec.nwater = 1000;
    spec.relax_steps = 0;
    const System water = make_water_system(spec);
    const std::vector<std::pair<Tunable, std::string>> settings{
        {Tunable::Cluster, "4x8"}, {Tunable::Nstlist, "40"},      {Tunable::Nstprune, "10"},
        {Tunable::Rlist, "1.2"},   {Tunable::PmeScale, "1.1"},    {Tunable::PmeOrder, "5"},
        {Tunable::Threads, "1"},   {Tunable::Simd, "none"},       {Tunable::PmeGrid, "40x40x40"}};
    RunConfig config;
    for (const auto& [t, text] : settings) set_tunable(config, t, parse_tunable(t, text));
    const EffectiveConfig eff = resolve_config(water, config, RunControl{});
    for (const auto& [t, text] : settings) {
        const TunableValue used = tunable_info(t).used(eff);
        if (t == Tunable::PmeScale || t == Tunable::Rlist)
            EXPECT_DOUBLE_EQ(std::get<double>(used), std::get<double>(parse_tunable(t, text)));
        else
            EXPECT_EQ(format_tunable(used), text) << tunable_info(t).name;
    }
    // pme_spacing is reported after scaling.
    EXPECT_DOUBLE_EQ(std::get<double>(tunable_info(Tunable::PmeSpacing).used(eff)), 0.12 * 1.1);
}

// nstlist grows by GROMACS' rule only under a thermostat on CPU; a given value,
// --rlist or NVE keep the fixed defaults (list_intervals.h).
TEST(Tunables, DefaultListIntervalsFollowGromacsUnderAThermostat) {
    WaterSpec spec;
    spec.nwater = 8000;
    const SystemSummary water = water_summary(spec);
    RunConfig config;
    config.cluster = ClusterShape::k4x8;
    config.simd = SimdLevel::None;
    RunControl nve, nvt;
    nvt.thermostat = Thermostat::VRescale;
    nvt.tau_t = 0.1;
    const EffectiveConfig grown = resolve_config(water, config, nvt);
    const EffectiveConfig fixed = resolve_config(water, config, nve);
    EXPECT_EQ(fixed.nstlist, 20);
    EXPECT_GT(grown.nstlist, 20);
    EXPECT_GT(grown.rlist, fixed.rlist);
    // The inner list is unbuffered and pruned every 10 steps either way (this box
    // is water-24k's composition and density).
    EXPECT_EQ(grown.nstprune, 10);
    EXPECT_EQ(fixed.nstprune, 10);
    EXPECT_DOUBLE_EQ(grown.rlist_inner, water.rc);
    config.nstlist = 30;
    EXPECT_EQ(resolve_config(water, config, nvt).nstlist, 30);
    config.nstlist = 0;
    config.rlist = 1.1;
    EXPECT_EQ(resolve_config(water, config, nvt).nstlist, 20);
}

TEST(Tunables, DefaultShapeFollowsTheSimdLevel) {
    EXPECT_EQ(default_cluster_shape(SimdLevel::Avx512), ClusterShape::k8x4);
    EXPECT_EQ(default_cluster_shape(SimdLevel::Avx2), ClusterShape::k4x4);
    EXPECT_EQ(default_cluster_shape(SimdLevel::None), ClusterShape::k4x4);
    EXPECT_EQ(default_cluster_shape(SimdLevel::Avx2, Offload::Gpu, true), ClusterShape::k8x4);
    EXPECT_EQ(default_cluster_shape(SimdLevel::Avx2, Offload::Cpu, true), ClusterShape::k4x4);
    EXPECT_EQ(default_cluster_shape(SimdLevel::Avx512, Offload::Cpu, true), ClusterShape::k4x8);
    EXPECT_EQ(default_cluster_shape(SimdLevel::Avx512, Offload::Cpu, false), ClusterShape::k8x4);
    EXPECT_EQ(default_cluster_shape(SimdLevel::Avx512, Offload::Gpu, true), ClusterShape::k8x4);
    RunConfig config;
    config.simd = SimdLevel::None;
    config.threads = 1;
    const System lj = make_named_system(SystemKind::Lj, 1000, 1);
    EXPECT_EQ(resolve_config(lj, config, RunControl{}).cluster, ClusterShape::k4x4);
}

TEST(SimdCapability, AvxFiveTwelveNeedsFVlAndDq) {
    const std::vector<std::string> f_only{"avx2", "fma", "avx512f"};
    const std::vector<std::string> full{"avx2", "fma", "avx512f", "avx512vl", "avx512dq"};
    const std::vector<std::string> no_fma{"avx2"};
    EXPECT_FALSE(simd_supported(SimdLevel::Avx512, f_only));
    EXPECT_TRUE(simd_supported(SimdLevel::Avx2, f_only));
    EXPECT_TRUE(simd_supported(SimdLevel::Avx512, full));
    EXPECT_FALSE(simd_supported(SimdLevel::Avx2, no_fma));
    EXPECT_TRUE(simd_supported(SimdLevel::None, std::vector<std::string>{}));
    EXPECT_FALSE(simd_supported(SimdLevel::Auto, full));
    for (SimdLevel l : available_simd_levels()) EXPECT_TRUE(simd_supported(l)) << to_string(l);
}

TEST(SystemKinds, ParseAndSpecs) {
    EXPECT_EQ(system_kind_names(), "lj, argon, lammps-lj, water, water-ions");
    for (const char* name : {"lj", "argon", "lammps-lj", "water", "water-ions"})
        EXPECT_EQ(to_string(*parse_system_kind(name)), name);
    EXPECT_FALSE(parse_system_kind("water2"));
    EXPECT_TRUE(is_water(SystemKind::WaterIons));
    EXPECT_FALSE(is_water(SystemKind::LammpsLj));
    EXPECT_DOUBLE_EQ(water_spec_of(SystemKind::WaterIons).nacl_molar, 0.15);
    EXPECT_DOUBLE_EQ(water_spec_of(SystemKind::Water).nacl_molar, 0.0);
    EXPECT_THROW(lj_spec_of(SystemKind::Water), std::invalid_argument);
    EXPECT_THROW(make_named_system("water2", 300, 1), std::invalid_argument);
}

}  // namespace
}  // namespace mdcore
