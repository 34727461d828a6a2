// The memory estimate a run is admitted by: it must cover what the engine really
// allocates (measured with glibc's heap statistics) without refusing runs that
// fit by a wide margin, and it must refuse the reproducers.
#include <gtest/gtest.h>
#include <malloc.h>

#include <stdexcept>
#include <string>

#include "../common/address_space_limit.h"
#include "io/gromacs_io.h"
#include "md_runner.h"
#include "memory_estimate.h"
#include "mdcore/engine.h"
#include "test_systems.h"
#include "util/machine_memory.h"

namespace mdcore {
namespace {

// Every thread allocates from the main arena, the only one mallinfo2() reports.
// With per-thread arenas the OpenMP workers' buffers went uncounted, and the
// measured peak moved with how much of the search the main thread happened to
// take (dynamic schedule): the test failed now and then under ctest -j2.
// Set before main(), so before any thread has an arena of its own.
const bool kOneArena = mallopt(M_ARENA_MAX, 1) == 1;

double heap_bytes() {
    EXPECT_TRUE(kOneArena) << "mallopt(M_ARENA_MAX, 1) failed";
    const struct mallinfo2 m = mallinfo2();
    return static_cast<double>(m.uordblks + m.hblkhd);
}

// Heap growth of building `sys` again, resolving and running one search and force
// evaluation (the high-water mark of a run), against the estimate.
void expect_estimate_covers_run(const System& prototype, const RunConfig& config) {
    const double before = heap_bytes();
    double peak = 0;
    MemoryEstimate estimate;
    {
        System sys = prototype;
        RunControl control;
        const EffectiveConfig cfg = resolve_config(sys, config, control);
        estimate = estimate_run_memory(sys, cfg);
        MdRunner md(sys, cfg);
        md.search();
        md.compute_forces(EnergyOutput::Yes);
        md.update(cfg.dt, 1.0);
        md.search();
        peak = heap_bytes() - before;
    }
    EXPECT_GE(estimate.total(), peak) << estimate.summary() << " vs measured " << format_bytes(peak);
    EXPECT_LE(estimate.total(), 3.0 * peak) << estimate.summary() << " vs measured " << format_bytes(peak);
}

TEST(MemoryEstimate, CoversLjRun) {
    RunConfig config;
    config.threads = 2;
    expect_estimate_covers_run(testing::lj_system(32000), config);
}

TEST(MemoryEstimate, CoversLjRunWithOtherShapes) {
    for (ClusterShape shape : {ClusterShape::k4x4, ClusterShape::k4x8, ClusterShape::k8x4, ClusterShape::k1x1}) {
        RunConfig config;
        config.threads = 1;
        config.cluster = shape;
        SCOPED_TRACE(std::string(to_string(shape)));
        expect_estimate_covers_run(testing::lj_system(8000), config);
    }
}

TEST(MemoryEstimate, CoversWaterRunWithPme) {
    const std::string dir = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm/";
    RunConfig config;
    config.threads = 2;
    expect_estimate_covers_run(read_gromacs_system(dir + "conf.gro", dir + "topol.top"), config);
}

TEST(MemoryEstimate, MachineMemoryIsKnown) {
    const MachineMemory m = machine_memory();
    EXPECT_GT(m.usable_bytes, 0.0);
    EXPECT_FALSE(m.description.empty());
}

// ulimit -v counts what is mapped already: the usable memory is what it leaves.
TEST(MemoryEstimate, AddressSpaceLimitIsHonoured) {
    const double before = machine_memory().usable_bytes;
    const double headroom = 256.0 * (1 << 20);
    MachineMemory limited;
    {
        // A limit 256 MiB above what is mapped now leaves at most 256 MiB.
        const mdtest::AddressSpaceLimit limit(headroom);
        limited = machine_memory();
    }
    EXPECT_LE(limited.usable_bytes, headroom);
    EXPECT_GT(limited.usable_bytes, 0.5 * headroom);
    EXPECT_NE(limited.description.find("ulimit -v"), std::string::npos) << limited.description;

    MemoryEstimate huge;
    huge.atom_bytes = 2 * before + 1e12;
    try {
        require_memory(huge, "this test run");
        ADD_FAILURE() << "expected a refusal";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("this test run needs about"), std::string::npos) << e.what();
    }
}

// Judging a run for another machine (a login node planning for compute nodes): the
// option drops the comparison with this machine's memory and changes nothing else.
TEST(MemoryEstimate, HostMemoryCheckCanBeLeftToTheMachineThatRuns) {
    const System sys = testing::lj_system(32000);
    RunConfig config;
    config.threads = 2;
    const EffectiveConfig eff = resolve_config(sys, config, RunControl{});
    const double need = estimate_run_memory(sys, eff).total();
    ResolveOptions other_machine;
    other_machine.check_host_memory = false;
    EffectiveConfig judged;
    {
        const mdtest::AddressSpaceLimit limit(need / 3);  // this machine is smaller than the run
        try {
            (void)resolve_config(sys, config, RunControl{});
            ADD_FAILURE() << "expected a refusal for this machine";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("needs about"), std::string::npos) << e.what();
        }
        EXPECT_NO_THROW(judged = resolve_config(sys, config, RunControl{}, other_machine));
    }
    EXPECT_EQ(judged.rlist, eff.rlist);
    EXPECT_EQ(judged.rlist_inner, eff.rlist_inner);
    EXPECT_EQ(judged.threads, eff.threads);
}

}  // namespace
}  // namespace mdcore

