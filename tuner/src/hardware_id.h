#pragma once
// Internal pieces of the hardware fingerprint, exposed as pure functions so the
// tests can check them without depending on the machine they run on.
#include <string>
#include <string_view>
#include <vector>

#include "mdtune/hardware.h"

namespace mdtune {

// "hw-" + 16 hex digits: FNV-1a 64 over the performance-relevant fields only
// (see hardware.cpp for what is in and what is deliberately left out).
std::string hardware_id(const HardwareInfo& info);

// What /proc/cpuinfo tells about the CPU; the fallback where CPUID is missing.
struct CpuInfoText {
    std::string vendor, model;
    std::vector<std::string> simd;  // known SIMD flags only, in a fixed order
};
CpuInfoText parse_cpuinfo(std::string_view text);

}  // namespace mdtune
