#pragma once
// The one SIGINT/SIGTERM handling of mdtune: a handler sets a process-wide flag; the
// launcher's callers poll it, kill the child in flight and stop cleanly (sweeps are
// then marked interrupted, MPI sweeps keep what they measured).
namespace mdtune::process {

// Installs the handlers for SIGINT and SIGTERM (idempotent).
void stop_on_signals();
// Sets the flag as the handlers do (async-signal-safe; also for tests).
void request_stop();
bool stop_requested();

}  // namespace mdtune::process
