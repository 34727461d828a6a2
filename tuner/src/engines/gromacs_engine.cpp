// GROMACS as an engine: `gmx --version` for the identity, grompp + mdrun for trials.
#include <cstdlib>
#include <map>
#include <mutex>

#include "engines.h"
#include "mdcore/text_file.h"
#include "mdtune/core/input_error.h"
#include "mdtune/gromacs/gromacs_config.h"

namespace mdtune::tuner {
namespace {

constexpr double kVersionTimeoutS = 30.0;

// Where prepared .tpr files are kept between sweeps: $MDTUNE_CACHE_DIR, else
// $XDG_CACHE_HOME/mdtune, else ~/.cache/mdtune, else the temporary folder.
std::string cache_dir() {
    if (const char* d = std::getenv("MDTUNE_CACHE_DIR"); d && *d) return std::string(d) + "/gromacs";
    if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/mdtune/gromacs";
    if (const char* d = std::getenv("HOME"); d && *d) return std::string(d) + "/.cache/mdtune/gromacs";
    return "/tmp/mdtune-cache/gromacs";
}

std::string read_mdp(const SystemDescriptor& system) {
    if (system.mdp.empty()) return {};
    std::string text;
    if (mdcore::read_text_file(system.mdp, mdcore::kMaxMdpFileBytes, text).empty()) return text;
    return {};
}

class GromacsEngine : public Engine {
public:
    explicit GromacsEngine(EngineSettings settings) : settings_(std::move(settings)) {
        if (settings_.program.empty()) settings_.program = "gmx";
    }
    EngineKind kind() const override { return EngineKind::Gromacs; }

    MeasurementIdentity identity(const std::vector<std::string>& launcher, const char* const* envp) override {
        path_ = find_executable(settings_.program);
        if (path_.empty())
            throw MdcoreNotFound("[engine] program: '" + settings_.program +
                                 "' is not an executable file (nor a program in PATH); install GROMACS or name its gmx");
        const ChildOutcome version = run_child_process({path_, "--version"}, kVersionTimeoutS);
        build_ = gromacs::parse_gmx_version(version.stdout_text);
        if (version.status != TrialStatus::Ok || !build_.is_gromacs())
            throw MdcoreNotFound("[engine] program: '" + path_ + " --version' does not say \"GROMACS version:\": not a GROMACS program");
        MeasurementIdentity id;
        id.engine = "gromacs";
        id.launcher = launcher;
        id.environment = measurement_environment(envp);
        // GROMACS reads GMX_* variables that change how it runs (GMX_DISABLE_GPU_TIMING, ...).
        for (const char* const* e = envp; e && *e; ++e)
            if (const std::string entry(*e); entry.rfind("GMX_", 0) == 0 && entry.find('=') != std::string::npos)
                id.environment[entry.substr(0, entry.find('='))] = entry.substr(entry.find('=') + 1);
        id.mdcore = "file-fnv1a:" + file_digest(path_);
        id.mdcore_version_json = build_.to_json();
        return id;
    }

    std::string infeasible_reason(const SystemDescriptor& system, const Config& config) const override {
        if (!system.from_files()) return "GROMACS runs a gro/top/mdp system, not a generated " + system.kind_name() + " box";
        if (system.mdp.empty()) return "GROMACS needs the system's .mdp ([system] mdp)";
        return gromacs::infeasible_reason(config, build_, mdp_of(system));
    }

    std::unique_ptr<Runner> runner(const LaunchPolicy& launch) const override {
        return make_gromacs_runner(GromacsRunSettings{path_.empty() ? settings_.program : path_, build_,
                                                      settings_.grompp_maxwarn, cache_dir(), launch});
    }

    std::string command_line(const SystemDescriptor& system, const Config& config) const override {
        const gromacs::MdpSettings changes = gromacs::grompp_settings(config, mdp_of(system));
        std::string line = settings_.program + " grompp -f " + (system.mdp.empty() ? "md.mdp" : system.mdp) +
                           " -c " + system.gro + " -p " + system.top + " -o topol.tpr";
        if (settings_.grompp_maxwarn > 0) line += " -maxwarn " + std::to_string(settings_.grompp_maxwarn);
        if (!changes.empty()) {
            line += " (with";
            for (const auto& [k, v] : changes) line += " " + k + " = " + v + ";";
            line.back() = ')';
        }
        const bool thread_mpi = !build_.real_mpi();
        line += " && ";
        if (!thread_mpi)
            if (const auto r = config.value<long>(Param::Ranks); r && *r > 1) line += "mpirun -np " + std::to_string(*r) + " ";
        line += settings_.program + " mdrun -s topol.tpr";
        for (const std::string& f : gromacs::mdrun_flags(config, thread_mpi)) line += " " + f;
        return line;
    }

private:
    // The .mdp text per system, read once: strategies judge every point of a space.
    const std::string& mdp_of(const SystemDescriptor& system) const {
        const std::lock_guard lock(mdp_mutex_);
        auto it = mdp_text_.find(system.mdp);
        if (it == mdp_text_.end()) it = mdp_text_.emplace(system.mdp, read_mdp(system)).first;
        return it->second;
    }

    EngineSettings settings_;
    mutable std::mutex mdp_mutex_;
    mutable std::map<std::string, std::string> mdp_text_;
    std::string path_;
    gromacs::GmxBuild build_;
};

}  // namespace

std::unique_ptr<Engine> make_gromacs_engine(const EngineSettings& settings) {
    return std::make_unique<GromacsEngine>(settings);
}

}  // namespace mdtune::tuner
