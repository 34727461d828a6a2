// The identity of a measurement setup: which mdcore binary, which launcher,
// which runtime environment. See measurement_identity.h.
#include "mdtune/tuner/measurement_identity.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mdtune/process/digest.h"
#include "mdtune/tuner/runner.h"
#include "mdtune/tuner/sweep.h"

namespace mdtune::tuner {
namespace {

// Prefixes of the variables OpenMP runtimes (libgomp, Intel/LLVM) and mdcore read.
constexpr const char* kPrefixes[] = {"OMP_", "GOMP_", "KMP_", "MDCORE_"};
constexpr double kVersionTimeoutS = 10.0;

bool is_executable_file(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string find_executable(const std::string& name) {
    if (name.find('/') != std::string::npos) return is_executable_file(name) ? name : "";
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= dirs.size()) {
        const std::size_t end = std::min(dirs.find(':', start), dirs.size());
        const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
        if (const std::string candidate = dir + "/" + name; is_executable_file(candidate)) return candidate;
        start = end + 1;
    }
    return "";
}

std::string file_digest(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw MdcoreNotFound("cannot read the program '" + path + "'");
    process::Fnv1a d;
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) d.update(std::string_view(buf, static_cast<std::size_t>(in.gcount())));
    return d.hex();
}

std::map<std::string, std::string> measurement_environment(const char* const* envp) {
    std::map<std::string, std::string> out;
    for (; envp && *envp; ++envp) {
        const std::string entry(*envp);
        const std::size_t eq = entry.find('=');
        if (eq == std::string::npos) continue;
        for (const char* prefix : kPrefixes)
            if (entry.rfind(prefix, 0) == 0) out[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    return out;
}

MeasurementIdentity identify_measurement(const std::string& mdcore_path, const std::vector<std::string>& launcher,
                                         const char* const* envp) {
    MeasurementIdentity id;
    id.launcher = launcher;
    id.environment = measurement_environment(envp);
    const std::string resolved = find_executable(mdcore_path);
    if (resolved.empty()) {
        if (launcher.empty())
            throw MdcoreNotFound("--mdcore: '" + mdcore_path + "' is not an executable file (nor a program in PATH)");
        id.mdcore = "unresolved:" + mdcore_path;
        return id;
    }
    // Asked directly, not through the launcher: the binary's identity does not
    // depend on where it runs, and a launcher may need a job allocation.
    const ChildOutcome version = run_child_process({resolved, "--version", "--json"}, kVersionTimeoutS);
    if (version.status == TrialStatus::Ok) {
        const auto j = nlohmann::json::parse(version.stdout_text, nullptr, /*allow_exceptions=*/false);
        if (j.is_object()) {
            id.mdcore_version_json = j.dump();
            if (j.contains("git_commit") && j["git_commit"].is_string()) id.git_commit = j["git_commit"];
            if (j.contains("build_id") && j["build_id"].is_string() && !j["build_id"].get<std::string>().empty())
                id.mdcore = "gnu-build-id:" + j["build_id"].get<std::string>();
        }
    }
    if (id.mdcore.empty()) id.mdcore = "file-fnv1a:" + file_digest(resolved);
    return id;
}

std::string measurement_build_json(const MeasurementIdentity& identity) {
    nlohmann::json j = nlohmann::json::parse(current_build_json());
    nlohmann::json program{{"id", identity.mdcore}};
    if (!identity.mdcore_version_json.empty()) program["version"] = nlohmann::json::parse(identity.mdcore_version_json);
    // mdcore's key stays as it always was; another engine's program is named as such.
    if (identity.engine == "mdcore") j["mdcore"] = program;
    else j["engine"] = {{"name", identity.engine}, {"program", program}};
    j["launcher"] = identity.launcher;
    j["environment"] = identity.environment;
    return j.dump();
}

std::string measurement_build_id(const MeasurementIdentity& identity) {
    return "build-" + process::fnv1a_hex(measurement_build_json(identity));
}

}  // namespace mdtune::tuner
