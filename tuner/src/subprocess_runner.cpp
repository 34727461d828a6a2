// Runs each repeat as an `mdcore run ... --json -` child process: a crash or hang
// cannot take the sweep down, and a launcher prefix (mpirun, srun) fits in front.
#include <cstring>
#include <stdexcept>

#include "mdtune/process/launcher.h"
#include "mdtune/tuner/launch.h"
#include "mdtune/tuner/runner.h"

namespace mdtune::tuner {
namespace {

class SubprocessRunner : public Runner {
public:
    SubprocessRunner(std::string mdcore, LaunchPolicy launch) : mdcore_(std::move(mdcore)), launch_(std::move(launch)) {}

    RunOutcome run_once(const Proposal& p, int repeat) override {
        std::vector<std::string> args = launch_prefix(launch_, p.config);
        args.push_back(mdcore_);
        args.push_back("run");
        for (auto& a : p.system.mdcore_args()) args.push_back(a);
        for (auto& a : p.config.mdcore_args()) args.push_back(a);
        args.insert(args.end(), {"--steps", std::to_string(p.measure.steps), "--warmup",
                                 std::to_string(p.measure.warmup), "--json", "-"});
        (void)repeat;
        // The child (and what it waited for: ranks under mpirun) is reaped inside spawn.
        const double cpu_before = children_cpu_seconds();
        ChildOutcome child = spawn(args, p.measure.timeout_s);
        RunOutcome out;
        out.cpu_s = children_cpu_seconds() - cpu_before;
        out.status = child.status;
        out.stderr_tail = std::move(child.stderr_tail);
        out.wall_s = child.wall_s;
        if (out.status != TrialStatus::Ok) return out;
        try {
            out.report = mdcore::run_report_from_json(child.stdout_text);
        } catch (const mdcore::RunReportError& e) {
            out.status = TrialStatus::Failed;
            out.stderr_tail = std::string("unreadable RunReport: ") + e.what() + "\n" + out.stderr_tail;
        }
        return out;
    }

    // Runs argv as a child in its own process group (see mdtune/process/launcher.h).
    static ChildOutcome spawn(const std::vector<std::string>& args, double timeout_s) {
        process::LaunchOptions options;
        options.timeout_s = timeout_s;
        options.stop = [] { return stop_requested(); };
        ChildOutcome out;
        process::LaunchResult r;
        try {
            r = process::launch(args, options);
        } catch (const std::runtime_error& e) {  // not found, not executable
            out.stderr_tail = std::string("[mdtune] ") + e.what();
            return out;
        }
        out.wall_s = r.wall_s;
        out.stderr_tail = process::tail_lines(r.stderr_tail, 20);
        if (r.interrupted) {
            out.status = TrialStatus::Failed;
            out.stderr_tail = "interrupted";
        } else if (r.stdout_overflow) {
            // The report is a few KiB: a flood means something else writes to stdout, and what was kept is no report.
            out.status = TrialStatus::Failed;
            out.stderr_tail += "\n[mdtune] stdout exceeded " + std::to_string(process::kDefaultStdoutLimit) +
                               " bytes (" + std::to_string(r.stdout_bytes) + " read" +
                               (r.timed_out ? ", then timed out" : "") + "); no report kept";
        } else if (r.timed_out) {
            out.status = TrialStatus::Timeout;
            out.stderr_tail += "\n[mdtune] timed out after " + std::to_string(timeout_s) + " s";
        } else if (r.signal) {
            out.status = TrialStatus::Crashed;
            out.stderr_tail += "\n[mdtune] killed by signal " + std::to_string(r.signal) + " (" + strsignal(r.signal) + ")";
        } else if (r.exit_code == 0) {
            out.status = TrialStatus::Ok;
            out.stdout_text = std::move(r.stdout_text);
        } else {
            out.status = TrialStatus::Failed;
            out.stderr_tail += "\n[mdtune] exit code " + std::to_string(r.exit_code);
        }
        return out;
    }

private:
    std::string mdcore_;
    LaunchPolicy launch_;
};

}  // namespace

ChildOutcome run_child_process(const std::vector<std::string>& argv, double timeout_s) {
    return SubprocessRunner::spawn(argv, timeout_s);
}

std::unique_ptr<Runner> make_subprocess_runner(const std::string& mdcore_path, std::vector<std::string> launcher) {
    LaunchPolicy fixed;
    fixed.fixed = std::move(launcher);
    return std::make_unique<SubprocessRunner>(mdcore_path, std::move(fixed));
}

std::unique_ptr<Runner> make_subprocess_runner(const std::string& mdcore_path, LaunchPolicy launch) {
    return std::make_unique<SubprocessRunner>(mdcore_path, std::move(launch));
}

}  // namespace mdtune::tuner
