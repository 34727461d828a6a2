#pragma once
// Whether a process still runs, from /proc: for tests that check children die.
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace mdtest {

// True once pid no longer runs (gone, or a zombie nobody reaps yet), polling up to limit.
inline bool ends_within(long pid, std::chrono::milliseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    do {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string line;
        if (!std::getline(stat, line)) return true;
        const auto close = line.rfind(')');
        if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z') return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } while (std::chrono::steady_clock::now() < until);
    return false;
}

}  // namespace mdtest
