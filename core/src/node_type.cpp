// The node type and node count of the hardware fingerprint: inside a Slurm job
// they come from the allocation (SLURM_JOB_NUM_NODES, the node's features), so
// trials from partitions of different hardware merged into one database can be
// told apart by what the site calls its node types.
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "hardware_id.h"
#include "mdtune/process/launcher.h"

namespace mdtune::inline core {

std::string node_type_of(const HardwareInfo& info, const std::string& slurm_features) {
    // No commas: `mdtune compare --hardware A,B` takes node types in a comma list.
    if (!slurm_features.empty()) {
        std::string f = slurm_features;
        for (char& c : f)
            if (c == ',') c = '+';
        return "features: " + f;
    }
    constexpr long kGiB = 1024L * 1024L * 1024L;
    return info.cpu_model + " | " + std::to_string(info.physical_cores) + " cores | " +
           std::to_string((info.memory_bytes + kGiB / 2) / kGiB) + " GiB";
}

int allocation_node_count() {
    for (const char* name : {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"})
        if (const char* v = std::getenv(name)) {
            char* end = nullptr;
            const long n = std::strtol(v, &end, 10);
            if (end != v && *end == '\0' && n >= 1 && n <= 1'000'000) return static_cast<int>(n);
        }
    return 1;
}

std::string slurm_node_features() {
    const char* node = std::getenv("SLURMD_NODENAME");
    if (!node || !*node) return "";
    process::LaunchResult r;
    try {
        r = process::launch({"scontrol", "-o", "show", "node", node}, {.timeout_s = 30});
    } catch (const std::runtime_error&) {
        return "";  // no scontrol on PATH: outside Slurm as far as the node type goes
    }
    if (!r.exited_ok()) return "";
    std::istringstream in(r.stdout_text);
    for (std::string word; in >> word;)
        if (word.rfind("AvailableFeatures=", 0) == 0) {
            const std::string v = word.substr(18);
            return v == "(null)" ? "" : v;
        }
    return "";
}

}  // namespace mdtune::core
