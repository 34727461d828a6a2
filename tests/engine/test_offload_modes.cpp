// The offload modes (--nb, --pme, --update, --gpu-id): tunable values, the rules
// between them, and the fallback where no GPU can run them (this machine and CI
// have none: the GPU runs themselves are test_gpu_offload, label gpu).
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "gpu/gpu_device.h"
#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdcore/tunables.h"
#include "test_systems.h"

namespace mdcore {
namespace {

std::string refusal(const System& sys, const RunConfig& config) {
    try {
        resolve_config(sys, config, RunControl{});
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

RunConfig base() {
    RunConfig c;
    c.threads = 1;
    c.simd = SimdLevel::None;
    return c;
}

TEST(OffloadModes, TunableValuesParseFormatAndRefuse) {
    for (Tunable t : {Tunable::NbOffload, Tunable::PmeOffload, Tunable::UpdateOffload}) {
        EXPECT_EQ(std::get<Offload>(parse_tunable(t, "gpu")), Offload::Gpu);
        EXPECT_EQ(format_tunable(parse_tunable(t, "cpu")), "cpu");
        EXPECT_EQ(tunable_choices(t), "cpu, gpu");
        EXPECT_TRUE(tunable_info(t).machine_bound);
    }
    try {
        parse_tunable(Tunable::NbOffload, "tpu");
        FAIL();
    } catch (const TunableError& e) {
        EXPECT_STREQ(e.what(), "--nb: 'tpu' is not one of cpu, gpu");
    }
    EXPECT_THROW(parse_tunable(Tunable::GpuId, "-1"), TunableError);
    EXPECT_EQ(format_tunable(parse_tunable(Tunable::GpuId, "3")), "3");
    EXPECT_THROW(check_tunable(Tunable::PmeOffload, TunableValue{SimdLevel::None}), TunableError);
    EXPECT_EQ(tunable_by_name("update_offload"), Tunable::UpdateOffload);
    EXPECT_EQ(tunable_info(Tunable::PmeOffload).flag, "--pme");
}

TEST(OffloadModes, PmeAndUpdateOnTheGpuNeedTheNonbondedThere) {
    const System sys = testing::lj_system(500);
    RunConfig c = base();
    c.pme = Offload::Gpu;
    EXPECT_EQ(refusal(sys, c), "--pme gpu needs --nb gpu (PME offload shares the nonbonded task's GPU)");
    c = base();
    c.update = Offload::Gpu;
    EXPECT_EQ(refusal(sys, c),
              "--update gpu needs --nb gpu (the GPU update keeps the state next to the nonbonded task)");
}

// Mode E: the update reads every force on the device, so a charged system needs
// the mesh there too; without charges the nonbonded task is all it needs.
TEST(OffloadModes, GpuUpdateNeedsEveryForceOnTheGpu) {
    const System lj = testing::lj_system(500);
    RunConfig c = base();
    c.nb = c.update = Offload::Gpu;
    EXPECT_EQ(refusal(lj, c), "");  // the rules only: the device is checked at the run
    WaterSpec spec;
    spec.nwater = 300;
    spec.relax_steps = 0;
    const System water = make_water_system(spec);
    EXPECT_EQ(refusal(water, c), "--update gpu needs --pme gpu on a charged system (the GPU update reads every force on the GPU)");
    c.pme = Offload::Gpu;
    EXPECT_EQ(refusal(water, c), "");
    const EffectiveConfig eff = resolve_config(water, c, RunControl{});
    EXPECT_EQ(eff.update, Offload::Gpu);
    EXPECT_EQ(format_tunable(tunable_info(Tunable::UpdateOffload).used(eff)), "gpu");
}

TEST(OffloadModes, NonbondedOnTheGpuUsesTheEightByFourSearch) {
    const System sys = testing::lj_system(500);
    RunConfig c = base();
    c.nb = Offload::Gpu;
    c.cluster = ClusterShape::k4x4;
    EXPECT_EQ(refusal(sys, c),
              "--cluster 4x4 does not apply with --nb gpu: the GPU pair list is built from the 8x4 search");
    c.cluster.reset();
    c.gpu_id = 2;
    const EffectiveConfig eff = resolve_config(sys, c, RunControl{});  // the rules only: no device needed
    EXPECT_EQ(eff.cluster, ClusterShape::k8x4);
    EXPECT_EQ(eff.nb, Offload::Gpu);
    EXPECT_EQ(eff.pme_offload, Offload::Cpu);
    EXPECT_EQ(eff.gpu_id, 2);
    EXPECT_EQ(format_tunable(tunable_info(Tunable::NbOffload).used(eff)), "gpu");
    EXPECT_EQ(format_tunable(tunable_info(Tunable::GpuId).used(eff)), "2");
}

TEST(OffloadModes, CpuModesRunAsBefore) {
    System sys = testing::lj_system(500);
    RunConfig c = base();
    c.nb = c.pme = c.update = Offload::Cpu;
    RunControl control;
    control.steps = 5;
    const RunReport rep = run(sys, c, control);
    EXPECT_EQ(rep.config.nb, Offload::Cpu);
    EXPECT_TRUE(rep.gpu.name.empty());
    EXPECT_TRUE(rep.gpu.kernel_seconds.empty());
}

// Without CUDA or without a device, a GPU mode is refused with one line naming
// why; with a device, find_gpu describes it.
TEST(OffloadModes, NoGpuMeansOneClearRefusal) {
    const auto found = find_gpu(0);
    if (const GpuDevice* d = std::get_if<GpuDevice>(&found)) {
        EXPECT_TRUE(cuda_compiled());
        EXPECT_FALSE(d->name.empty());
        EXPECT_GT(d->memory_bytes, 0);
        GTEST_SKIP() << "a GPU is present (" << d->name << "): the refusal cannot be seen here";
    }
    const std::string why = std::get<std::string>(found);
    EXPECT_EQ(why.rfind("no usable GPU: ", 0), 0u) << why;
    EXPECT_EQ(why.find('\n'), std::string::npos);
    if (!cuda_compiled()) EXPECT_NE(why.find("built without CUDA"), std::string::npos);
    System sys = testing::lj_system(500);
    RunConfig c = base();
    c.nb = Offload::Gpu;
    RunControl control;
    control.steps = 2;
    try {
        run(sys, c, control);
        FAIL() << "a GPU run started without a GPU";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), why);
    }
}

}  // namespace
}  // namespace mdcore
