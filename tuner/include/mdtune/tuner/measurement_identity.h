#pragma once
// What, besides the system, config and measurement settings, changes a trial's
// measurement: the mdcore binary that runs it, the launcher in front of it and
// the environment variables the runtime reads. Trials are keyed by a build id
// that covers all of them, so a different binary, launcher or OpenMP setting
// (or a test fault hook) is measured anew instead of reused.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace mdtune::tuner {

// An mdcore that cannot be found or run: a usage error (exit 2).
struct MdcoreNotFound : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

struct MeasurementIdentity {
    std::string engine = "mdcore";                   // the engine whose program this is (mdtune/tuner/engine.h)
    // "gnu-build-id:<hex>" from `mdcore --version --json`; "file-fnv1a:<hex>" of the
    // binary when it reports none; "unresolved:<path>" when only the launcher can find it.
    std::string mdcore;
    std::string mdcore_version_json;                 // what --version --json printed ("" if nothing)
    std::string git_commit;                          // the binary's commit from --version --json ("" if none)
    std::vector<std::string> launcher;               // argv prefix, as run
    std::map<std::string, std::string> environment;  // OMP_*, GOMP_*, KMP_*, MDCORE_*
};

// As execvp finds it: a name without '/' is looked up in PATH. "" when not found.
std::string find_executable(const std::string& name);
// FNV-1a digest of a program's file; throws MdcoreNotFound when it cannot be read.
std::string file_digest(const std::string& path);

// The variables of envp (NAME=value entries, null-terminated) that change a run.
std::map<std::string, std::string> measurement_environment(const char* const* envp);

// Identifies mdcore_path (a path, or a name looked up in PATH). Throws
// MdcoreNotFound when it is not an executable file and no launcher is given
// (with a launcher, the binary may exist only where the launcher runs it).
MeasurementIdentity identify_measurement(const std::string& mdcore_path, const std::vector<std::string>& launcher,
                                         const char* const* envp);

// This mdtune build (current_build_json) plus the identity, and its digest: the
// build id trials measured this way are keyed by.
std::string measurement_build_json(const MeasurementIdentity& identity);
std::string measurement_build_id(const MeasurementIdentity& identity);

}  // namespace mdtune::tuner
