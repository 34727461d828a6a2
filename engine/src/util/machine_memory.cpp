#include "util/machine_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>

namespace mdcore {
namespace {

// A "Key: N kB" field of /proc/meminfo in bytes, or a negative value.
double meminfo_bytes(const std::string& key) {
    std::ifstream in("/proc/meminfo");
    std::string name, unit;
    double value = 0;
    while (in >> name >> value) {
        std::getline(in, unit);
        if (name == key + ":") return value * 1024.0;
    }
    return -1;
}

// A cgroup v2 file of this process's cgroup holding one number ("max": none).
double cgroup_value(const std::string& file) {
    std::ifstream cgroup("/proc/self/cgroup");
    std::string line;
    while (std::getline(cgroup, line)) {
        if (line.rfind("0::", 0) != 0) continue;
        std::ifstream f("/sys/fs/cgroup" + line.substr(3) + "/" + file);
        double v = -1;
        if (f >> v) return v;
    }
    return -1;
}

struct Limit {
    double bytes;
    std::string description;
};

void keep_smaller(Limit& best, double bytes, const std::string& description) {
    if (bytes >= 0 && bytes < best.bytes) best = {bytes, description};
}

}  // namespace

std::string format_bytes(double bytes) {
    static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 6) {
        bytes /= 1024.0;
        ++u;
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, kUnits[u]);
    return buf;
}

MachineMemory machine_memory() {
    Limit best{HUGE_VAL, "no limit found"};
    const double total = meminfo_bytes("MemTotal");
    const double available = meminfo_bytes("MemAvailable");
    keep_smaller(best, available, "this machine has " + format_bytes(available) + " available (of " +
                                      format_bytes(total) + ")");
    if (available < 0) {
        const double phys = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
        keep_smaller(best, phys, "this machine has " + format_bytes(phys));
    }
    const double cg_max = cgroup_value("memory.max"), cg_used = cgroup_value("memory.current");
    if (cg_max >= 0)
        keep_smaller(best, cg_max - std::max(0.0, cg_used),
                     "the cgroup memory limit leaves " + format_bytes(cg_max - std::max(0.0, cg_used)) + " (of " +
                         format_bytes(cg_max) + ")");
    for (const auto& [resource, flag] : {std::pair{RLIMIT_AS, "-v"}, std::pair{RLIMIT_DATA, "-d"}}) {
        rlimit rl{};
        if (getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            keep_smaller(best, static_cast<double>(rl.rlim_cur),
                         std::string("the memory limit (ulimit ") + flag + ") is " +
                             format_bytes(static_cast<double>(rl.rlim_cur)));
    }
    return {best.bytes, best.description};
}

}  // namespace mdcore
