// Node type and node count in the hardware fingerprint: what `mdtune compare`
// groups procurement tables by, and what keeps multi-node trials apart.
#include <gtest/gtest.h>

#include <cstdlib>

#include "hardware_id.h"

namespace mdtune {
namespace {

HardwareInfo machine() {
    HardwareInfo hw;
    hw.cpu_vendor = "GenuineIntel";
    hw.cpu_model = "Intel Xeon Gold 6338";
    hw.physical_cores = 64;
    hw.hardware_threads = 128;
    hw.memory_bytes = 256L * 1024 * 1024 * 1024;
    return hw;
}

TEST(NodeType, SlurmFeaturesWinOverTheCpuDescription) {
    EXPECT_EQ(node_type_of(machine(), ""), "Intel Xeon Gold 6338 | 64 cores | 256 GiB");
    EXPECT_EQ(node_type_of(machine(), "icelake,ib"), "features: icelake+ib");  // no commas: --hardware A,B
}

TEST(NodeType, OneNodeKeepsOldIdsMoreNodesAreOtherHardware) {
    HardwareInfo one = machine();
    const std::string before = hardware_id(one);
    one.node_count = 1;
    one.node_type = "features: icelake";  // a label, not part of the id
    EXPECT_EQ(hardware_id(one), before);
    HardwareInfo two = machine();
    two.node_count = 2;
    EXPECT_NE(hardware_id(two), before);
}

TEST(NodeType, NodeCountComesFromTheAllocation) {
    unsetenv("SLURM_JOB_NUM_NODES");
    unsetenv("SLURM_NNODES");
    EXPECT_EQ(allocation_node_count(), 1);
    setenv("SLURM_JOB_NUM_NODES", "4", 1);
    EXPECT_EQ(allocation_node_count(), 4);
    setenv("SLURM_JOB_NUM_NODES", "four", 1);
    EXPECT_EQ(allocation_node_count(), 1);
    unsetenv("SLURM_JOB_NUM_NODES");
}

}  // namespace
}  // namespace mdtune
