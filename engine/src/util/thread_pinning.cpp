#include "util/thread_pinning.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <stdexcept>

namespace mdcore {

namespace {

int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    char* end = nullptr;
    const long x = std::strtol(v, &end, 10);
    return end && *end == '\0' && x >= 0 && x < 1'000'000 ? static_cast<int>(x) : fallback;
}

std::string count_text(int n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

}  // namespace

ThreadStats plan_pinning(PinMode mode, int threads, int offset, const PinContext& where) {
    ThreadStats s;
    s.pin = mode;
    if (mode == PinMode::Off) {
        s.pin_note = "--pin off";
        return s;
    }
    const int available = static_cast<int>(where.allowed.size());
    const bool launcher_mask = available < where.online;
    const int ranks = launcher_mask ? 1 : std::max(where.local_ranks, 1);
    const int base = offset + (launcher_mask ? 0 : where.local_rank * threads);
    const bool fits = threads >= 1 && base + threads <= available;
    const std::string scene = count_text(threads, "thread") + (ranks > 1 ? " x " + count_text(ranks, "rank") : "") +
                              " on " + count_text(available, "CPU") +
                              (launcher_mask ? " (this process's mask, of " + std::to_string(where.online) + ")" : "");
    if (mode == PinMode::On && !fits)
        throw std::invalid_argument("--pin on: " + count_text(threads, "thread") + " from CPU " + std::to_string(base) +
                                    " (--pin-offset " + std::to_string(offset) +
                                    (ranks > 1 ? ", local rank " + std::to_string(where.local_rank) : "") + ") need " +
                                    std::to_string(base + threads) + " CPUs; this process may use " +
                                    std::to_string(available));
    if (mode == PinMode::Auto && !(fits && offset == 0 && ranks * threads == available)) {
        s.pin_note = "auto: not pinned, " + scene + " (auto pins only when the threads use every CPU; --pin on forces it)";
        return s;
    }
    s.pinned = true;
    for (int t = 0; t < threads; ++t) s.cpus.push_back(where.allowed[static_cast<std::size_t>(base + t)]);
    s.pin_note = std::string(mode == PinMode::Auto ? "auto" : "on") + ": " + scene;
    return s;
}

namespace {

// The mask this process started with, read once before any of its threads was
// pinned: a run inside a run (the water generator relaxes its box with one) and a
// later run in the same process plan from it, not from a pinned thread's mask.
const std::vector<int>& startup_mask() {
    static const std::vector<int> mask = [] {
        std::vector<int> cpus;
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) == 0)
            for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
                if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
        return cpus;
    }();
    return mask;
}

std::atomic<bool> threads_pinned{false};

// Every thread of a team of `n` (the calling thread included) to `cpus_of(t)`; the
// team's threads that failed, -1 when none.
template <class CpusOf>
int bind_team(int n, CpusOf cpus_of) {
    std::atomic<int> refused{-1};
#pragma omp parallel num_threads(n)
    {
        const int t = omp_get_thread_num();
        const cpu_set_t set = cpus_of(t);
        if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) refused = t;
    }
    return refused.load();
}

cpu_set_t set_of(const std::vector<int>& cpus) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : cpus) CPU_SET(cpu, &set);
    return set;
}

}  // namespace

PinContext this_process() {
    PinContext c;
    c.online = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    c.allowed = startup_mask();
    if (c.allowed.empty())
        for (int cpu = 0; cpu < std::max(c.online, 1); ++cpu) c.allowed.push_back(cpu);
    c.online = std::max(c.online, static_cast<int>(c.allowed.size()));
    c.local_rank = env_int("OMPI_COMM_WORLD_LOCAL_RANK", env_int("SLURM_LOCALID", 0));
    c.local_ranks = env_int("OMPI_COMM_WORLD_LOCAL_SIZE", env_int("SLURM_NTASKS_PER_NODE", 1));
    if (c.local_rank >= c.local_ranks) c.local_ranks = c.local_rank + 1;
    return c;
}

void apply_pinning(ThreadStats& plan, int threads) {
    const std::vector<int>& original = startup_mask();
    const cpu_set_t free_set = set_of(original);
    if (!plan.pinned || plan.cpus.empty()) {
        // A run before this one in the process may have pinned the (reused) OpenMP threads.
        if (threads_pinned.exchange(false) && !original.empty())
            bind_team(std::max(threads, 1), [&](int) { return free_set; });
        return;
    }
    const int n = static_cast<int>(plan.cpus.size());
    const int refused = bind_team(n, [&](int t) { return set_of({plan.cpus[static_cast<std::size_t>(t % n)]}); });
    if (refused < 0) {
        threads_pinned = true;
        return;
    }
    // All or none: a half-pinned team would be reported as neither.
    if (!original.empty()) bind_team(n, [&](int) { return free_set; });
    threads_pinned = false;
    plan.pinned = false;
    plan.pin_note += "; the OS refused to bind thread " + std::to_string(refused) + ", not pinned";
    plan.cpus.clear();
}

}  // namespace mdcore
