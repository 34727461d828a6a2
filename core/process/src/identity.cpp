// Process identity from /proc; see identity.h.
#include "mdtune/process/identity.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace mdtune::process {
namespace {

std::string boot_id() {
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string id;
    std::getline(in, id);
    return id;
}

// Field 22 of /proc/PID/stat (after the parenthesised command, which may hold
// spaces); "" when there is no such process or it has already exited (a zombie).
std::string start_ticks(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    if (!std::getline(in, stat)) return "";
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) return "";
    std::istringstream fields(stat.substr(close + 1));
    std::string field;
    for (int k = 3; k <= 22; ++k) {
        if (!(fields >> field)) return "";
        if (k == 3 && (field == "Z" || field == "X")) return "";
    }
    return field;
}

std::string host_name() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
    return buf;
}

std::string start_token(long pid) {
    const std::string ticks = start_ticks(pid);
    return ticks.empty() ? "" : boot_id() + "/" + ticks;
}

}  // namespace

ProcessIdentity current_process() { return process_on_this_host(static_cast<long>(getpid())); }

ProcessIdentity process_on_this_host(long pid) { return {host_name(), pid, start_token(pid)}; }

Liveness liveness(const ProcessIdentity& p) {
    if (p.host != host_name()) return Liveness::Unknown;
    if (p.pid <= 0) return Liveness::Gone;
    const std::string now = start_token(p.pid);
    return !now.empty() && now == p.start ? Liveness::Alive : Liveness::Gone;
}

}  // namespace mdtune::process
