#include "mdtune/bench/callgrind.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "mdtune/bench/ingest.h"

namespace mdtune::bench {

namespace {
// The hooks' CALLGRIND_DUMP_STATS_AT label (callgrind_hooks.cpp).
constexpr const char* kHookTrigger = "mdtune timed loop";
}  // namespace

std::vector<std::string> callgrind_options(const std::string& out_pattern, LoopMarking marking) {
    std::vector<std::string> o{"--tool=callgrind", "--callgrind-out-file=" + out_pattern, "--collect-systime=no"};
    if (marking == LoopMarking::Hooks) {
        o.push_back("--instr-atstart=no");
    } else {
        // Wildcards: the demangled names end in "()".
        o.push_back("--zero-before=benchmark::State::StartKeepRunning*");
        o.push_back("--dump-before=benchmark::State::FinishKeepRunning*");
    }
    return o;
}

std::vector<std::pair<std::string, std::string>> deterministic_openmp_env() {
    // LD_BIND_NOW: resolve every symbol at start-up, else the first call of each
    // library function inside a timed loop pays for lazy binding (~1000
    // instructions) and the first repetition differs from the others.
    return {{"OMP_WAIT_POLICY", "PASSIVE"}, {"GOMP_SPINCOUNT", "0"}, {"LD_BIND_NOW", "1"}};
}

CallgrindDump read_callgrind_dump(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw GbenchError(path + ": cannot open callgrind output");
    CallgrindDump d;
    d.file = path;
    bool have_total = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("part:", 0) == 0) d.part = std::stoi(line.substr(5));
        else if (line.rfind("desc: Trigger:", 0) == 0) d.trigger = line.substr(line.find_first_not_of(' ', 14));
        else if (line.rfind("summary:", 0) == 0 || line.rfind("totals:", 0) == 0) {
            // Events line is "Ir" only (no cache simulation), so the first number is Ir.
            // The end-of-program dump after a mid-run zeroing can hold a "negative"
            // (wrapped) total: kept as -1, it is never a loop dump.
            const std::string v = line.substr(line.find(':') + 1);
            char* end = nullptr;
            errno = 0;
            const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
            if (end == v.c_str()) throw GbenchError(path + ": unreadable total '" + line + "'");
            d.instructions = errno == ERANGE || x > 1ULL << 62 ? -1 : static_cast<long long>(x);
            have_total = true;
            break;
        } else if (line.rfind("fn=", 0) == 0) {
            break;  // past the header
        }
    }
    if (!have_total) throw GbenchError(path + ": no 'summary:' or 'totals:' line (not a callgrind output file?)");
    return d;
}

std::vector<CallgrindDump> loop_dumps(const std::string& dir, const std::string& prefix) {
    std::vector<CallgrindDump> out;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) != 0 || !entry.is_regular_file()) continue;
        CallgrindDump d = read_callgrind_dump(entry.path().string());
        if (d.trigger.find("FinishKeepRunning") == std::string::npos && d.trigger.find(kHookTrigger) == std::string::npos)
            continue;
        if (d.instructions < 0) throw GbenchError(d.file + ": a timed loop with a negative instruction count");
        out.push_back(std::move(d));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.part < b.part; });
    return out;
}

bool attach_instructions(GbenchReport& report, const std::vector<CallgrindDump>& dumps) {
    std::vector<GbenchRun*> runs;
    for (GbenchRun& r : report.runs)
        if (r.type == RunType::Iteration && !r.error) runs.push_back(&r);
    if (runs.size() != dumps.size()) return false;
    for (std::size_t i = 0; i < runs.size(); ++i)
        runs[i]->counters[kInstructionsCounter] =
            static_cast<double>(dumps[i].instructions) / static_cast<double>(std::max(1L, runs[i]->iterations));
    return true;
}

}  // namespace mdtune::bench
