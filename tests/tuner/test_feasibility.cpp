// The one feasibility check: machine limits, then mdcore's own resolve_config on
// a stand-in of the system; the tuner's parameters are the engine's tunables.
#include <gtest/gtest.h>

#include "../common/address_space_limit.h"
#include "memory_estimate.h"
#include "mdtune/core/feasibility.h"
#include "mdtune/tuner/space.h"

namespace mdtune {
namespace {

HardwareCaps caps(int cores = 4) { return HardwareCaps{cores, false, {"none", "avx2"}}; }

Config config(std::initializer_list<std::pair<Param, ParamValue>> values) {
    Config c;
    for (const auto& [p, v] : values) c.set(p, v);
    return c;
}

TEST(Feasibility, MachineLimitsComeFirst) {
    const SystemDescriptor lj{mdcore::SystemKind::Lj, 4000, 1};
    EXPECT_EQ(infeasible_reason(lj, config({{Param::Threads, 5L}}), caps()), "threads = 5 exceeds the 4 hardware threads");
    EXPECT_EQ(infeasible_reason(lj, config({{Param::Simd, std::string("avx512")}}), caps()),
              "simd = avx512 is not available on this machine");
    EXPECT_EQ(infeasible_reason(lj, config({{Param::Simd, std::string("avx2")}, {Param::Threads, 4L}}), caps()), "");
}

// Offload modes: infeasible on a machine without a GPU; on one with a GPU the
// engine's rules (PME on the GPU needs the nonbonded task there) still apply.
TEST(Feasibility, GpuModesNeedAGpu) {
    const SystemDescriptor water{mdcore::SystemKind::Water, 3000, 1};
    const Config nb_gpu = config({{Param::NbOffload, std::string("gpu")}});
    EXPECT_EQ(infeasible_reason(water, nb_gpu, caps()), "nb_offload = gpu needs a GPU; this machine has none");
    EXPECT_EQ(infeasible_reason(water, config({{Param::PmeOffload, std::string("gpu")}}), caps()),
              "pme_offload = gpu needs a GPU; this machine has none");
    HardwareCaps gpu_machine = caps();
    gpu_machine.has_gpu = true;  // a fixture descriptor: this machine has no GPU
    EXPECT_EQ(infeasible_reason(water, nb_gpu, gpu_machine), "");
    EXPECT_EQ(infeasible_reason(water, config({{Param::PmeOffload, std::string("gpu")}}), gpu_machine),
              "--pme gpu needs --nb gpu (PME offload shares the nonbonded task's GPU)");
    EXPECT_EQ(infeasible_reason(water,
                                config({{Param::NbOffload, std::string("gpu")}, {Param::PmeOffload, std::string("gpu")}}),
                                gpu_machine),
              "");
    EXPECT_EQ(infeasible_reason(water,
                                config({{Param::NbOffload, std::string("gpu")}, {Param::UpdateOffload, std::string("gpu")}}),
                                gpu_machine),
              "--update gpu needs --pme gpu on a charged system (the GPU update reads every force on the GPU)");
    EXPECT_EQ(infeasible_reason(water,
                                config({{Param::NbOffload, std::string("gpu")},
                                        {Param::PmeOffload, std::string("gpu")},
                                        {Param::UpdateOffload, std::string("gpu")}}),
                                gpu_machine),
              "");  // mode E
    EXPECT_EQ(infeasible_reason(water, config({{Param::NbOffload, std::string("cpu")}}), caps()), "");
    // Modes sweep like any choice tunable.
    EXPECT_EQ(param_info(Param::NbOffload).choices.size(), 2u);
}

// The example space of offload modes (tuner/spaces/gpu_modes.toml): on a machine
// without a GPU only the CPU points are feasible; on one with a GPU the modes of
// the paper (PME and update join a GPU that holds the nonbonded task; the update
// needs the mesh there too on this charged box).
TEST(Feasibility, OffloadModesInASearchSpace) {
    const tuner::SearchSpace space = tuner::load_space(std::string(MDT_SPACES_DIR) + "/gpu_modes.toml");
    HardwareCaps gpu_machine = caps();
    gpu_machine.has_gpu = true;
    int cpu_feasible = 0, gpu_feasible = 0;
    for (const Config& c : space.configs()) {
        cpu_feasible += infeasible_reason(space.systems[0], c, caps()).empty();
        gpu_feasible += infeasible_reason(space.systems[0], c, gpu_machine).empty();
    }
    EXPECT_EQ(space.configs().size(), 48u);
    EXPECT_EQ(cpu_feasible, 6);   // nb, pme and update on the cpu
    EXPECT_EQ(gpu_feasible, 24);  // and modes B (nb gpu), C (and pme gpu), E (and update gpu)
}

// mdcore's refusals reach sweeps unchanged: here the PME accuracy target, which
// the tuner never modelled before.
TEST(Feasibility, MdcoresOwnChecksOnTheStandIn) {
    const SystemDescriptor water{mdcore::SystemKind::Water, 3000, 1};
    EXPECT_EQ(infeasible_reason(water, Config{}, caps()), "");
    const std::string coarse = infeasible_reason(water, config({{Param::PmeGrid, std::string("12x12x12")}}), caps());
    EXPECT_NE(coarse.find("estimated RMS force error"), std::string::npos) << coarse;
    EXPECT_NE(coarse.find("is above the limit"), std::string::npos) << coarse;
    EXPECT_NE(infeasible_reason(water, config({{Param::PmeGrid, std::string("6x6x6")}}), caps()).find("below 2 x pme-order"),
              std::string::npos);
    EXPECT_EQ(infeasible_reason({mdcore::SystemKind::Lj, 4000, 1}, config({{Param::PmeGrid, std::string("6x6x6")}}), caps()), "")
        << "no mesh without charges";
    // An unknown kind cannot reach the check: spaces, --system and the store refuse its name
    // (test_space SystemErrors, test_store UnknownSystemKindIsAClearError).
}

// mdcore's memory check compares with this machine's memory: it judges caps of this machine
// only, not those of compute nodes planned from a smaller login node.
TEST(Feasibility, ThisMachinesMemoryJudgesOnlyThisMachine) {
    const SystemDescriptor lj{mdcore::SystemKind::Lj, 32768, 3};  // a system no other test resolves (cached)
    mdcore::RunConfig rc;  // what the check resolves: one thread, the default shape of the target
    rc.threads = 1;
    rc.simd = mdcore::SimdLevel::None;
    rc.cluster = mdcore::default_cluster_shape(mdcore::SimdLevel::Avx2);
    const auto summary = system_summary(lj);  // computed (and cached) before the limit
    const auto eff = mdcore::resolve_config(*summary, rc, mdcore::RunControl{});
    const double need =
        mdcore::estimate_run_memory(static_cast<double>(summary->natoms), summary->box, summary->topology, eff).total();
    HardwareCaps compute_node = caps();
    compute_node.local = false;
    std::string here, there;
    {
        const mdtest::AddressSpaceLimit limit(need / 3);  // this machine is smaller than the run
        here = infeasible_reason(lj, Config{}, caps());
        there = infeasible_reason(lj, Config{}, compute_node);
    }
    EXPECT_NE(here.find("needs about"), std::string::npos) << here;
    EXPECT_EQ(there, "");
    // Refusals that hold on every machine stay refusals for another one.
    EXPECT_NE(infeasible_reason({mdcore::SystemKind::Lj, 100, 1}, Config{}, compute_node)
                  .find("must be below half the shortest box edge"),
              std::string::npos);
}

// nstprune >= nstlist means no pruning in mdcore; the tuner agrees.
TEST(Feasibility, PruningOffIsFeasibleAndResolvesToNoPruning) {
    const SystemDescriptor lj{mdcore::SystemKind::Lj, 4000, 1};
    const Config c = config({{Param::Nstlist, 10L}, {Param::Nstprune, 20L}});
    EXPECT_EQ(infeasible_reason(lj, c, caps()), "");
    const mdcore::EffectiveConfig eff = resolve_for_system(lj, c, mdcore::SimdLevel::Avx2, 2);
    EXPECT_EQ(eff.nstprune, eff.nstlist);
    EXPECT_DOUBLE_EQ(eff.rlist_inner, eff.rlist);
    EXPECT_EQ(eff.threads, 2);
}

// Ranks are launched by the tuner: ranks x threads per rank must fit the cores
// unless the space allows oversubscription; the layout is the one mdcore picks
// when started on those ranks (this test process is one rank).
TEST(Feasibility, RanksTimesThreadsFitTheCoresAndResolveTheirLayout) {
    const SystemDescriptor water{mdcore::SystemKind::Water, 6000, 1};
    const Config two = config({{Param::Ranks, 2L}});
#ifndef MDCORE_HAVE_MPI
    EXPECT_NE(infeasible_reason(water, two, caps()).find("built without MPI"), std::string::npos);
    GTEST_SKIP() << "mdcore built without MPI: one rank only";
#endif
    EXPECT_EQ(infeasible_reason(water, two, caps()), "");  // 2 ranks x 2 threads (the cores shared)
    EXPECT_EQ(infeasible_reason(water, config({{Param::Ranks, 2L}, {Param::Threads, 3L}}), caps()),
              "ranks x threads = 2 x 3 exceeds the 4 hardware threads ([launch] oversubscribe = true allows it)");
    EXPECT_NE(infeasible_reason(water, config({{Param::Ranks, 8L}}), caps()).find("8 x 1 exceeds"), std::string::npos);
    HardwareCaps shared = caps();
    shared.oversubscribe = true;
    EXPECT_EQ(infeasible_reason(water, config({{Param::Ranks, 2L}, {Param::Threads, 3L}}), shared), "");
    const mdcore::EffectiveConfig eff = resolve_for_system(water, two, mdcore::SimdLevel::Avx2, threads_per_rank(two, 4));
    EXPECT_EQ(eff.ranks, 2);
    EXPECT_EQ(eff.dd[0] * eff.dd[1] * eff.dd[2], 2);
    EXPECT_EQ(eff.threads, 2);
    EXPECT_EQ(resolve_for_system(water, Config{}, mdcore::SimdLevel::Avx2, 4).ranks, 1);
    // An impossible layout is mdcore's refusal, before any run.
    EXPECT_NE(infeasible_reason(water, config({{Param::Ranks, 2L}, {Param::Dd, std::string("1x1x3")}}), shared),
              "");
    const tuner::SearchSpace space = tuner::parse_space(
        "[system]\nkind = \"water\"\nnatoms = 6000\n[space]\nranks = 2\nthreads = 3\n[launch]\noversubscribe = true\n",
        "over.toml");
    EXPECT_EQ(space.infeasible_reason(space.systems[0], space.configs()[0], caps()), "");
}

// The default shape follows the target machine's SIMD level, not this CPU's.
TEST(Feasibility, DefaultShapeOfTheTarget) {
    const SystemDescriptor lj{mdcore::SystemKind::Lj, 4000, 1};
    EXPECT_EQ(resolve_for_system(lj, Config{}, mdcore::SimdLevel::Avx512, 1).cluster, mdcore::ClusterShape::k8x4);
    EXPECT_EQ(resolve_for_system(lj, Config{}, mdcore::SimdLevel::Avx2, 1).cluster, mdcore::ClusterShape::k4x4);
    EXPECT_EQ(resolve_for_system(lj, config({{Param::Simd, std::string("avx2")}}), mdcore::SimdLevel::Avx512, 1).cluster,
              mdcore::ClusterShape::k4x4);
}

// Config -> RunConfig goes through the table, values checked by mdcore's rules.
TEST(Params, ConfigMapsThroughTheTable) {
    const Config c = Config::from_canonical("cluster=4x8;nstlist=40;pme_scale=1.2;simd=avx2;pme_grid=32x32x48");
    const mdcore::RunConfig rc = c.run_config();
    EXPECT_EQ(rc.cluster, mdcore::ClusterShape::k4x8);
    EXPECT_EQ(rc.nstlist, 40);
    EXPECT_DOUBLE_EQ(rc.pme_scale, 1.2);
    EXPECT_EQ(rc.simd, mdcore::SimdLevel::Avx2);
    EXPECT_EQ(*rc.pme_grid, (std::array<int, 3>{32, 32, 48}));
    EXPECT_EQ(c.canonical(), "cluster=4x8;nstlist=40;pme_scale=1.2;simd=avx2;pme_grid=32x32x48");
    EXPECT_EQ(c.mdcore_args(), (std::vector<std::string>{"--cluster", "4x8", "--nstlist", "40", "--pme-scale", "1.2",
                                                         "--simd", "avx2", "--pme-grid", "32x32x48"}));
    EXPECT_THROW(Config::from_canonical("nstlist=ten"), std::invalid_argument);
    EXPECT_THROW(Config::from_canonical("cluster=2x2").run_config(), mdcore::TunableError);
    EXPECT_THROW(config({{Param::PmeOrder, 9L}}).run_config(), mdcore::TunableError);
    EXPECT_EQ(all_params().size(), mdcore::tunables().size());
    EXPECT_EQ(param_by_name("pme_grid"), mdcore::Tunable::PmeGrid);
}

TEST(Params, SpaceAcceptsEveryTunableIncludingTheGrid) {
    const tuner::SearchSpace s = tuner::parse_space(
        "[system]\nkind = \"water\"\nnatoms = 3000\n[space]\npme_grid = [\"28x28x28\", \"32x32x32\"]\n", "grid.toml");
    ASSERT_EQ(s.configs().size(), 2u);
    EXPECT_EQ(s.configs()[1].canonical(), "pme_grid=32x32x32");
    EXPECT_THROW(tuner::parse_space("[system]\nkind = \"water\"\nnatoms = 3000\n[space]\npme_grid = \"32x32\"\n", "g.toml"),
                 tuner::SpaceError);
}

}  // namespace
}  // namespace mdtune
