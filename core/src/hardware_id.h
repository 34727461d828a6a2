#pragma once
// Internal pieces of the hardware fingerprint, exposed as pure functions so the
// tests can check them without depending on the machine they run on.
#include <string>
#include <string_view>
#include <vector>

#include "mdtune/core/hardware.h"

namespace mdtune::inline core {

// "hw-" + 16 hex digits: FNV-1a 64 over the performance-relevant fields only
// (see hardware.cpp for what is in and what is deliberately left out).
std::string hardware_id(const HardwareInfo& info);

// What /proc/cpuinfo tells about the CPU; the fallback where CPUID is missing.
struct CpuInfoText {
    std::string vendor, model;
    std::vector<std::string> simd;  // known SIMD flags only, in a fixed order
};
CpuInfoText parse_cpuinfo(std::string_view text);

// The node type: "features: <Slurm node features, + for commas>" when given, else
// "<CPU model> | <cores> cores | <memory> GiB"; and the node count of a Slurm allocation (SLURM_JOB_NUM_NODES,
// 1 outside one). Both from slurm/node_type.cpp.
std::string node_type_of(const HardwareInfo& info, const std::string& slurm_features);
int allocation_node_count();
// AvailableFeatures of this Slurm node (SLURMD_NODENAME) from scontrol, "" when none.
std::string slurm_node_features();

}  // namespace mdtune::core
