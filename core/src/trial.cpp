#include "mdtune/core/trial.h"

#include <algorithm>
#include <stdexcept>

namespace mdtune::inline core {

std::string_view to_string(TrialStatus s) {
    switch (s) {
        case TrialStatus::Ok: return "ok";
        case TrialStatus::Invalid: return "invalid";
        case TrialStatus::Failed: return "failed";
        case TrialStatus::Timeout: return "timeout";
        case TrialStatus::Crashed: return "crashed";
    }
    return "?";
}

std::optional<TrialStatus> parse_trial_status(std::string_view s) {
    for (TrialStatus t : {TrialStatus::Ok, TrialStatus::Invalid, TrialStatus::Failed, TrialStatus::Timeout,
                          TrialStatus::Crashed})
        if (s == to_string(t)) return t;
    return std::nullopt;
}

bool is_failure(TrialStatus s) {
    return s == TrialStatus::Failed || s == TrialStatus::Timeout || s == TrialStatus::Crashed;
}

bool is_interrupted(const TrialResult& r) {
    return r.status == TrialStatus::Failed && r.stderr_tail.starts_with(kInterruptedTail);
}

double RepeatSample::cpu_share() const {
    if (wall_s <= 0 || threads <= 0) return 0.0;
    const double parallel = std::clamp(measured_s, 0.0, wall_s);
    return cpu_s / ((wall_s - parallel) + parallel * threads);
}

bool is_noisy(const TrialResult& r) {
    std::size_t noisy = 0;
    for (const RepeatSample& s : r.samples) noisy += s.noisy ? 1 : 0;
    return !r.samples.empty() && 2 * noisy > r.samples.size();
}

std::vector<double> clean_ratios(const TrialResult& r) {
    std::vector<double> out;
    for (const RepeatSample& s : r.samples)
        if (!s.noisy && s.ratio() > 0) out.push_back(s.ratio());
    return out;
}

std::vector<double> clean_times(const TrialResult& r) {
    std::vector<double> out;
    for (const RepeatSample& s : r.samples)
        if (!s.noisy) out.push_back(s.ms_per_step);
    return out;
}

std::string SystemDescriptor::kind_name() const {
    return from_files() ? kFileSystemKind : std::string(mdcore::to_string(kind));
}

std::vector<std::string> SystemDescriptor::mdcore_args() const {
    if (from_files()) {
        if (gro.empty() || top.empty())
            throw std::logic_error("system " + canonical() + ": its files are not known here (read from a database)");
        std::vector<std::string> args{"--gro", gro, "--top", top};
        if (!mdp.empty()) args.insert(args.end(), {"--mdp", mdp});
        return args;
    }
    std::vector<std::string> args{"--system", kind_name()};
    if (mdcore::is_water(kind)) {
        args.insert(args.end(), {"--nwater", std::to_string(natoms / 3)});
    } else {
        args.insert(args.end(), {"--natoms", std::to_string(natoms)});
    }
    args.insert(args.end(), {"--seed", std::to_string(seed)});
    return args;
}

std::string SystemDescriptor::canonical() const {
    if (from_files()) return std::string(kFileSystemKind) + ":natoms=" + std::to_string(natoms) + ":files=" + files_digest;
    return kind_name() + ":natoms=" + std::to_string(natoms) + ":seed=" + std::to_string(seed);
}

std::optional<SystemDescriptor> parse_file_system_id(const std::string& canonical) {
    const std::string head = std::string(kFileSystemKind) + ":natoms=";
    const std::size_t files = canonical.find(":files=");
    if (canonical.rfind(head, 0) != 0 || files == std::string::npos) return std::nullopt;
    SystemDescriptor d;
    try {
        std::size_t used = 0;
        const std::string n = canonical.substr(head.size(), files - head.size());
        d.natoms = std::stol(n, &used);
        if (used != n.size() || d.natoms <= 0) return std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt;
    }
    d.files_digest = canonical.substr(files + 7);
    if (d.files_digest.empty()) return std::nullopt;
    return d;
}

std::string MeasureSettings::canonical() const {
    return "steps=" + std::to_string(steps) + ":warmup=" + std::to_string(warmup) + ":repeats=" + std::to_string(repeats);
}

std::string TrialKey::str() const { return hardware_id + "|" + system + "|" + config + "|" + build_id + "|" + measure; }

std::string_view trial_engine(const TrialResult& r) {
    return r.report && r.report->build.engine_version.rfind("GROMACS ", 0) == 0 ? "gromacs" : "mdcore";
}

}  // namespace mdtune::core
