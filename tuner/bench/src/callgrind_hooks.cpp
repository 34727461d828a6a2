// LD_PRELOAD hooks for `mdtune bench run --metric instructions`. They wrap Google
// Benchmark's State::StartKeepRunning and State::FinishKeepRunning, the start and
// the end of every timed loop, so that callgrind instruments and counts only the
// timed loops (valgrind runs with --instr-atstart=no). Set-up code, e.g. building
// and relaxing a water box, then runs uninstrumented: ~50x faster than with
// instrumentation. Without valgrind the client requests are no-ops.
// Works when the suites link libbenchmark dynamically (the calls go through the
// PLT); the runner notices when no loop was counted and falls back to
// instrumenting everything.
#include <dlfcn.h>
#include <valgrind/callgrind.h>

#include <cstdio>
#include <cstdlib>

namespace {

using Member = void (*)(void*);

// Null in processes without Google Benchmark (LD_PRELOAD also reaches the
// valgrind launcher): harmless, as nothing there calls the hooks.
Member next_definition(const char* symbol) { return reinterpret_cast<Member>(dlsym(RTLD_NEXT, symbol)); }

// Resolved when the library is loaded, not on first use: a lazy dlsym() would
// land inside the first counted loop (~1000 instructions).
Member real_start = next_definition("_ZN9benchmark5State16StartKeepRunningEv");
Member real_finish = next_definition("_ZN9benchmark5State17FinishKeepRunningEv");

Member resolved(Member& f, const char* symbol) {
    if (!f) f = next_definition(symbol);
    if (!f) {
        std::fprintf(stderr, "mdtune callgrind hooks: %s not found after the hooks\n", symbol);
        std::abort();
    }
    return f;
}

}  // namespace

// The Itanium ABI passes `this` as the first argument, so the member functions
// can be defined as C functions under their mangled names.
extern "C" void mdt_start_keep_running(void* self) __asm__("_ZN9benchmark5State16StartKeepRunningEv");
extern "C" void mdt_finish_keep_running(void* self) __asm__("_ZN9benchmark5State17FinishKeepRunningEv");

extern "C" __attribute__((visibility("default"))) void mdt_start_keep_running(void* self) {
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_ZERO_STATS;
    resolved(real_start, "_ZN9benchmark5State16StartKeepRunningEv")(self);
}

extern "C" __attribute__((visibility("default"))) void mdt_finish_keep_running(void* self) {
    CALLGRIND_DUMP_STATS_AT("mdtune timed loop");
    resolved(real_finish, "_ZN9benchmark5State17FinishKeepRunningEv")(self);
    CALLGRIND_STOP_INSTRUMENTATION;
}
