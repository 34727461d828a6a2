#include "mdtune/process/stop_signals.h"

#include <signal.h>

#include <atomic>

namespace mdtune::process {
namespace {

// Lock-free, so setting it is async-signal-safe.
std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};  // the first signal that asked to stop
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

void on_signal(int sig) {
    int none = 0;
    g_signal.compare_exchange_strong(none, sig);
    g_stop.store(true);
}

}  // namespace

void stop_on_signals() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

void request_stop() { g_stop.store(true); }
bool stop_requested() { return g_stop.load(); }

int stop_exit_code() {
    const int sig = g_signal.load();
    return 128 + (sig ? sig : SIGINT);
}

}  // namespace mdtune::process
