#include "mdtune/process/stop_signals.h"

#include <signal.h>

#include <atomic>

namespace mdtune::process {
namespace {

// Lock-free, so setting it is async-signal-safe.
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);

void on_signal(int) { g_stop.store(true); }

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

}  // namespace mdtune::process
