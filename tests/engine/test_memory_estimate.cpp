// The memory estimate a run is admitted by: it must cover what the engine really
// allocates (measured with glibc's heap statistics) without refusing runs that
// fit by a wide margin, and it must refuse the reproducers.
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/resource.h>

#include <fstream>
#include <stdexcept>
#include <string>

#include "io/gromacs_io.h"
#include "md_runner.h"
#include "memory_estimate.h"
#include "mdcore/engine.h"
#include "test_systems.h"
#include "util/machine_memory.h"

namespace mdcore {
namespace {

double heap_bytes() {
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
    rlimit saved{};
    ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
    const double before = machine_memory().usable_bytes;
    // A limit 256 MiB above what is mapped now leaves at most 256 MiB.
    std::ifstream status("/proc/self/status");
    std::string key;
    double mapped_kb = 0;
    while (status >> key && key != "VmSize:") status.ignore(1 << 20, '\n');
    ASSERT_TRUE(status >> mapped_kb);
    const double headroom = 256.0 * (1 << 20);
    rlimit tight = saved;
    tight.rlim_cur = static_cast<rlim_t>(mapped_kb * 1024 + headroom);
    ASSERT_EQ(setrlimit(RLIMIT_AS, &tight), 0);
    const MachineMemory limited = machine_memory();
    ASSERT_EQ(setrlimit(RLIMIT_AS, &saved), 0);
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

}  // namespace
}  // namespace mdcore

