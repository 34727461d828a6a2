#pragma once
// Hardware fingerprint: what shapes MD performance on this machine, and a stable
// id derived from those parts only (never the hostname).
#include <string>
#include <vector>

namespace mdtune::inline core {

struct CacheInfo {
    int level = 0;
    std::string type;  // Data, Instruction, Unified
    long size_bytes = 0;
    int shared_by_cores = 0;
};

struct GpuInfo {
    std::string model;
    long memory_bytes = 0;
    std::string compute_capability;
    int multiprocessors = 0;            // SM count
    int clock_mhz = 0;                  // peak SM clock
    double memory_bandwidth_gbs = 0.0;  // peak: 2 x memory clock x bus width
};

struct HardwareInfo {
    std::string cpu_vendor, cpu_model;
    int physical_cores = 0, hardware_threads = 0, sockets = 0, numa_nodes = 0;
    std::vector<std::string> simd;  // CPUID features: sse4_2 avx avx2 fma avx512f avx512vl ...
    std::vector<CacheInfo> caches;
    long memory_bytes = 0;
    std::vector<GpuInfo> gpus;      // empty without CUDA or without a device
    std::string mpi_library;        // e.g. "Open MPI 4.1.4" or ""
    std::string compiler;           // of this build
    std::string os_kernel;          // uname -sr
    // What `mdtune compare` groups by: the Slurm node's features when it has any,
    // else "<CPU model> | <cores> cores | <memory> GiB"; and the nodes of the allocation.
    std::string node_type;
    int node_count = 1;
    std::string id;                 // stable hash of the performance-relevant parts
    std::string to_json() const;
};

// Probes CPUID, hwloc, CUDA and MPI afresh on every call (a few ms; cache it if
// needed). Never throws: whatever cannot be detected stays empty/zero.
HardwareInfo detect_hardware();

}  // namespace mdtune::core
