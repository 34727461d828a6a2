#pragma once
// Wall-clock accounting per MD task; disabled during warm-up steps.
#include <array>
#include <chrono>
#include <map>
#include <string>

namespace mdcore {

enum class Task { Search, Prune, Nonbonded, Bonded, PmeSpread, PmeFft, PmeSolve, PmeGather, Constraints, Update, Other, Count };

inline const char* task_name(Task t) {
    static constexpr const char* names[] = {"search",     "prune",      "nonbonded",   "bonded", "pme_spread", "pme_fft",
                                            "pme_solve",  "pme_gather", "constraints", "update", "other"};
    return names[static_cast<int>(t)];
}

class TaskTimer {
public:
    using Clock = std::chrono::steady_clock;
    void set_enabled(bool on) { enabled_ = on; }
    // Times `fn` under `task` when enabled.
    template <class Fn>
    decltype(auto) time(Task task, Fn&& fn) {
        if (!enabled_) return fn();
        const auto t0 = Clock::now();
        struct Stop {
            TaskTimer* self; Task task; Clock::time_point t0;
            ~Stop() { self->seconds_[static_cast<int>(task)] += std::chrono::duration<double>(Clock::now() - t0).count(); }
        } stop{this, task, t0};
        return fn();
    }
    double seconds(Task t) const { return seconds_[static_cast<int>(t)]; }
    void add(Task t, double s) { if (enabled_) seconds_[static_cast<int>(t)] += s; }
    std::map<std::string, double> as_map() const {
        std::map<std::string, double> m;
        for (int t = 0; t < static_cast<int>(Task::Count); ++t) m[task_name(static_cast<Task>(t))] = seconds_[t];
        return m;
    }

private:
    bool enabled_ = true;
    std::array<double, static_cast<int>(Task::Count)> seconds_{};
};

}  // namespace mdcore
