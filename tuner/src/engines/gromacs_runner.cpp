// One GROMACS trial: grompp the system's input with the config's .mdp settings
// (once per distinct input, kept by digest), then `gmx mdrun` in a scratch folder
// timed after -resetstep, and its md.log read into the report. A run GROMACS
// refuses is recorded with GROMACS' own message, and with the layout reason when
// it is one a sweep meets (no DD grid, too many PME ranks).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "engines.h"
#include "mdcore/text_file.h"
#include "mdtune/gromacs/gromacs_config.h"
#include "mdtune/gromacs/log_report.h"
#include "mdtune/gromacs/md_log.h"
#include "mdtune/process/digest.h"
#include "mdtune/process/launcher.h"

namespace mdtune::tuner {
namespace {

namespace fs = std::filesystem;

constexpr double kGromppTimeoutS = 600.0;
constexpr long kDefaultNstcalcenergy = 100;  // GROMACS' default

// A fresh private folder under `parent` ("" on failure).
std::string scratch_folder(const fs::path& parent, const char* stem) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    std::string pattern = (parent / (std::string(stem) + "-XXXXXX")).string();
    return mkdtemp(pattern.data()) ? pattern : "";
}

std::string absolute(const std::string& path) {
    std::error_code ec;
    const fs::path p = fs::absolute(path, ec);
    return ec ? path : p.string();
}

// How a GROMACS program that did not succeed failed, in one line.
std::string failure_text(const char* program, const process::LaunchResult& r, const std::string& log_text) {
    gromacs::FatalError fatal = gromacs::find_fatal_error(log_text);
    if (fatal.message.empty()) fatal = gromacs::find_fatal_error(r.stderr_tail);
    if (fatal.message.empty())
        return std::string(program) + " exited with code " + std::to_string(r.exit_code) + "\n" +
               process::tail_lines(r.stderr_tail, 20);
    const std::string reason = gromacs::infeasibility_reason(fatal.message);
    std::string text = reason.empty() ? std::string(program) + ": " : "infeasible: " + reason + ": ";
    text += fatal.message;
    if (!fatal.source.empty()) text += " (" + fatal.source + ")";
    return text;
}

class GromacsRunner : public Runner {
public:
    explicit GromacsRunner(GromacsRunSettings s) : s_(std::move(s)) {}

    RunOutcome run_once(const Proposal& p, int /*repeat*/) override {
        RunOutcome out;
        const std::string tpr = prepare(p, out);
        if (tpr.empty()) return out;
        const std::string dir = scratch_folder(fs::temp_directory_path(), "mdtune-mdrun");
        if (dir.empty()) {
            out.stderr_tail = "[mdtune] cannot create a scratch folder in " + fs::temp_directory_path().string();
            return out;
        }
        const bool thread_mpi = !s_.build.real_mpi();
        // Thread-MPI ranks are an mdrun flag: no mpirun in front.
        Config launched;
        for (const auto& [param, value] : p.config.values())
            if (!(thread_mpi && param == Param::Ranks)) launched.set(param, value);
        std::vector<std::string> args = launch_prefix(s_.launch, launched);
        args.insert(args.end(), {s_.program, "mdrun", "-s", tpr, "-deffnm", dir + "/run", "-nsteps",
                                 std::to_string(p.measure.steps), "-resetstep", std::to_string(p.measure.warmup),
                                 "-noconfout", "-notunepme"});
        for (const std::string& f : gromacs::mdrun_flags(p.config, thread_mpi)) args.push_back(f);

        process::LaunchOptions options;
        options.timeout_s = p.measure.timeout_s;
        options.stop = [] { return stop_requested(); };
        options.cwd = dir;
        options.out = process::StdoutMode::Discard;
        // mdrun refuses an OMP_NUM_THREADS that differs from -ntomp: the config's threads rule.
        if (const auto t = p.config.value<long>(Param::Threads)) options.env.emplace_back("OMP_NUM_THREADS", std::to_string(*t));
        const double cpu_before = children_cpu_seconds();
        process::LaunchResult r;
        try {
            r = process::launch(args, options);
        } catch (const std::runtime_error& e) {
            out.stderr_tail = std::string("[mdtune] ") + e.what();
            fs::remove_all(dir);
            return out;
        }
        out.cpu_s = children_cpu_seconds() - cpu_before;
        out.wall_s = r.wall_s;
        std::string log_text;
        const std::string unreadable = mdcore::read_text_file(dir + "/run.log", mdcore::kMaxTextFileBytes, log_text);
        std::error_code ec;
        fs::remove_all(dir, ec);
        if (r.interrupted) {
            out.stderr_tail = "interrupted";
        } else if (r.timed_out) {
            out.status = TrialStatus::Timeout;
            out.stderr_tail = process::tail_lines(r.stderr_tail, 20) + "\n[mdtune] timed out after " +
                              std::to_string(p.measure.timeout_s) + " s";
        } else if (r.signal) {
            out.status = TrialStatus::Crashed;
            out.stderr_tail = process::tail_lines(r.stderr_tail, 20) + "\n[mdtune] killed by signal " +
                              std::to_string(r.signal) + " (" + strsignal(r.signal) + ")";
        } else if (r.exit_code != 0) {
            out.stderr_tail = failure_text("gmx mdrun", r, log_text);
        } else if (!unreadable.empty()) {
            out.stderr_tail = "[mdtune] gmx mdrun exited 0 but its md.log cannot be read: it " + unreadable;
        } else {
            try {
                out.report = gromacs::report_from_md_log(gromacs::parse_md_log(log_text), p.measure.steps, p.measure.warmup);
                out.status = TrialStatus::Ok;
            } catch (const gromacs::LogReportError& e) {
                out.stderr_tail = std::string("[mdtune] ") + e.what();
            }
        }
        return out;
    }

private:
    // The .tpr of this system with this config's .mdp settings: from the cache,
    // else made by grompp. "" with out's status and message set when grompp fails.
    std::string prepare(const Proposal& p, RunOutcome& out) {
        std::string mdp;
        if (const std::string why = mdcore::read_text_file(p.system.mdp, mdcore::kMaxMdpFileBytes, mdp); !why.empty()) {
            out.stderr_tail = p.system.mdp + ": cannot read the .mdp: it " + why;
            return {};
        }
        gromacs::MdpSettings settings = gromacs::grompp_settings(p.config, mdp);
        // Energies in md.log at every energy step: the drift fit needs them, and
        // printing what is computed anyway costs nothing measurable.
        long nstcalcenergy = kDefaultNstcalcenergy;
        if (const auto v = gromacs::mdp_value(mdp, "nstcalcenergy"); v && std::atol(v->c_str()) > 0)
            nstcalcenergy = std::atol(v->c_str());
        settings.emplace_back("nstlog", std::to_string(nstcalcenergy));
        const std::string text = gromacs::apply_mdp_settings(mdp, settings);
        const std::string key = process::fnv1a_hex(p.system.files_digest + "\n" + text + "\n" + s_.build.to_json() +
                                                   "\n" + std::to_string(s_.grompp_maxwarn));
        const fs::path tpr = fs::path(s_.cache_dir) / (key + ".tpr");
        std::error_code ec;
        if (fs::is_regular_file(tpr, ec)) return tpr.string();

        const std::string dir = scratch_folder(s_.cache_dir, "grompp");
        if (dir.empty()) {
            out.stderr_tail = "[mdtune] cannot create a folder in the cache " + s_.cache_dir + " (MDTUNE_CACHE_DIR)";
            return {};
        }
        {
            std::ofstream f(dir + "/trial.mdp");
            f << text;
            if (!f.flush()) {
                out.stderr_tail = "[mdtune] cannot write " + dir + "/trial.mdp";
                fs::remove_all(dir, ec);
                return {};
            }
        }
        const std::string gro = absolute(p.system.gro), top = absolute(p.system.top);
        process::LaunchOptions options;
        options.timeout_s = kGromppTimeoutS;
        options.stop = [] { return stop_requested(); };
        options.cwd = dir;
        options.out = process::StdoutMode::Discard;
        process::LaunchResult r;
        try {
            r = process::launch({s_.program, "grompp", "-f", dir + "/trial.mdp", "-c", gro, "-r", gro, "-p", top, "-o",
                                 dir + "/trial.tpr", "-po", dir + "/mdout.mdp", "-maxwarn",
                                 std::to_string(s_.grompp_maxwarn)},
                                options);
        } catch (const std::runtime_error& e) {
            r.stderr_tail = e.what();
        }
        if (!r.exited_ok()) {
            out.stderr_tail = r.interrupted ? "interrupted" : failure_text("gmx grompp", r, "");
            fs::remove_all(dir, ec);
            return {};
        }
        // Renamed into place: a concurrent sweep sees the whole file or none.
        fs::rename(dir + "/trial.tpr", tpr, ec);
        fs::remove_all(dir, ec);
        if (!fs::is_regular_file(tpr, ec)) {
            out.stderr_tail = "[mdtune] cannot keep the prepared input in " + s_.cache_dir;
            return {};
        }
        return tpr.string();
    }

    GromacsRunSettings s_;
};

}  // namespace

std::unique_ptr<Runner> make_gromacs_runner(GromacsRunSettings settings) {
    return std::make_unique<GromacsRunner>(std::move(settings));
}

}  // namespace mdtune::tuner
