#include "util/machine_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

namespace mdcore {
namespace {

// A "Key: N kB" field of /proc/meminfo (or /proc/self/status) in bytes, or a negative value.
double meminfo_bytes(const std::string& key, const char* file = "/proc/meminfo") {
    std::ifstream in(file);
    std::string line;
    const std::string prefix = key + ":";
    while (std::getline(in, line))
        if (line.rfind(prefix, 0) == 0) return std::strtod(line.c_str() + prefix.size(), nullptr) * 1024.0;
    return -1;
}

// The memory controller of this process's cgroup: v2 (one hierarchy) or v1.
struct CgroupFiles {
    std::string dir, limit, usage, cache_key;
};

std::optional<CgroupFiles> memory_cgroup() {
    std::ifstream cgroup("/proc/self/cgroup");
    std::string line;
    while (std::getline(cgroup, line)) {
        if (line.rfind("0::", 0) == 0)
            return CgroupFiles{"/sys/fs/cgroup" + line.substr(3), "memory.max", "memory.current", "file"};
        const auto pos = line.find(":memory:");
        if (pos != std::string::npos)
            return CgroupFiles{"/sys/fs/cgroup/memory" + line.substr(pos + 8), "memory.limit_in_bytes",
                               "memory.usage_in_bytes", "cache"};
    }
    return std::nullopt;
}

// The first number of a file, or the one after `key` (memory.stat); negative when
// absent or "max" (no limit).
double file_number(const std::string& path, const std::string& key = "") {
    std::ifstream f(path);
    std::string name;
    double v = -1;
    if (key.empty()) return f >> v ? v : -1;
    while (f >> name >> v)
        if (name == key) return v;
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
    // A cgroup's usage includes page cache, which the kernel reclaims before failing;
    // v1 reports "no limit" as a huge number.
    const auto cg = memory_cgroup();
    const double cg_max = cg ? file_number(cg->dir + "/" + cg->limit) : -1;
    if (cg_max >= 0 && cg_max < 1e18) {
        const double cache = std::max(0.0, file_number(cg->dir + "/memory.stat", cg->cache_key));
        const double used = std::max(0.0, file_number(cg->dir + "/" + cg->usage) - cache);
        keep_smaller(best, std::max(0.0, cg_max - used),
                     "the cgroup memory limit of " + format_bytes(cg_max) + " leaves " +
                         format_bytes(std::max(0.0, cg_max - used)));
    }
    // What the process has mapped already (libraries, thread stacks) counts against ulimit -v.
    const double mapped = std::max(0.0, meminfo_bytes("VmSize", "/proc/self/status"));
    for (const auto& [resource, flag] : {std::pair{RLIMIT_AS, "-v"}, std::pair{RLIMIT_DATA, "-d"}}) {
        rlimit rl{};
        if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) continue;
        const double limit = static_cast<double>(rl.rlim_cur);
        const double left = resource == RLIMIT_AS ? limit - mapped : limit;
        keep_smaller(best, std::max(0.0, left),
                     std::string("the memory limit (ulimit ") + flag + ") of " + format_bytes(limit) + " leaves " +
                         format_bytes(std::max(0.0, left)));
    }
    return {best.bytes, best.description};
}

}  // namespace mdcore
