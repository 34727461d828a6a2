#pragma once
// Who a process is, durably enough to tell later whether it still runs: host
// name, pid, and a start token (boot id + start time) that a reused pid or a
// reboot does not repeat. Sweeps and trial claims record their owner this way.
#include <string>

namespace mdtune::process {

struct ProcessIdentity {
    std::string host;
    long pid = 0;
    std::string start;  // "<boot id>/<start time in clock ticks since boot>"
};

ProcessIdentity current_process();
// A process of this host by pid; start is "" when no such process runs.
ProcessIdentity process_on_this_host(long pid);

enum class Liveness {
    Alive,
    Gone,     // on this host, and that pid is not running or is another process
    Unknown,  // on another host: only a heartbeat can tell
};

Liveness liveness(const ProcessIdentity& p);

}  // namespace mdtune::process
