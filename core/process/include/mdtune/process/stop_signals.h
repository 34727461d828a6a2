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
// The exit status of a command that stopped on request: 128 + the signal, as a
// shell reports a process that signal killed (SIGINT 130, SIGTERM 143); 130
// when the stop was requested without a signal.
int stop_exit_code();

}  // namespace mdtune::process
