#pragma once
// The memory this process may use: the smallest of what the kernel reports as
// available (MemAvailable), the cgroup's remaining limit and the address-space
// and data rlimits (ulimit -v / -d). Used to refuse runs that cannot fit before
// they allocate, rather than dying of std::bad_alloc or the OOM killer.
#include <string>

namespace mdcore {

struct MachineMemory {
    double usable_bytes = 0;  // the smallest limit found
    std::string description;  // which limit that is, e.g. "22.8 GiB available (of 23.4 GiB)"
};

MachineMemory machine_memory();

// "512 MiB", "3.4 GiB", "6.4 TiB".
std::string format_bytes(double bytes);

}  // namespace mdcore
