#include <cstdio>
#include <iostream>

#include "commands.h"
#include "mdtune/core/hardware.h"

namespace mdtune::cli {

namespace {

int hw(bool json) {
    const HardwareInfo hw = detect_hardware();
    if (json) {
        std::cout << hw.to_json() << "\n";
        return 0;
    }
    std::printf("id         %s\n", hw.id.c_str());
    std::printf("cpu        %s (%s)\n", hw.cpu_model.c_str(), hw.cpu_vendor.c_str());
    std::printf("cores      %d physical, %d threads, %d socket(s), %d NUMA node(s)\n", hw.physical_cores,
                hw.hardware_threads, hw.sockets, hw.numa_nodes);
    std::printf("memory     %.1f GiB\n", static_cast<double>(hw.memory_bytes) / (1024.0 * 1024 * 1024));
    std::string simd;
    for (const auto& s : hw.simd) simd += s + " ";
    std::printf("simd       %s\n", simd.c_str());
    for (const auto& c : hw.caches)
        std::printf("cache      L%d %-11s %8.0f KiB, shared by %d core(s)\n", c.level, c.type.c_str(),
                    static_cast<double>(c.size_bytes) / 1024.0, c.shared_by_cores);
    for (const auto& g : hw.gpus)
        std::printf("gpu        %s, %.1f GiB, sm %s, %d SMs at %d MHz, %.0f GB/s peak\n", g.model.c_str(),
                    static_cast<double>(g.memory_bytes) / (1024.0 * 1024 * 1024), g.compute_capability.c_str(),
                    g.multiprocessors, g.clock_mhz, g.memory_bandwidth_gbs);
    if (hw.gpus.empty()) std::printf("gpu        none\n");
    std::printf("mpi        %s\n", hw.mpi_library.empty() ? "none" : hw.mpi_library.c_str());
    std::printf("compiler   %s\n", hw.compiler.c_str());
    std::printf("kernel     %s\n", hw.os_kernel.c_str());
    return 0;
}

}  // namespace

void add_hw_command(CLI::App& app, int& exit_code) {
    CLI::App* cmd = app.add_subcommand("hw", "Show this machine's hardware fingerprint (the id trials are keyed by)");
    auto json = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json, "The fingerprint as JSON");
    cmd->callback([json, &exit_code] { exit_code = hw(*json); });
}

}  // namespace mdtune::cli
