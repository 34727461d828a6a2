#pragma once
// What identifies this mdcore build to a tuner, which keys its trials by it.
#include <string>
#include <vector>

namespace mdcore {

// The build a report came from (RunReport "engine_version" and "build" block).
struct BuildInfo {
    std::string engine_version;
    std::string compiler;                     // compiler and version
    std::string flags;                        // C++ flags of the build type
    std::vector<std::string> simd_available;  // levels compiled in and supported by the CPU
    std::string git_commit;                   // commit the binary was built from ("unknown" outside git)
    std::string build_id;                     // GNU build id of the executable, "" when linked without one
};

// GNU build id (hex) of the running executable, "" when it was linked without one.
std::string executable_build_id();
// Commit of the sources this library was built from, refreshed on every build
// (cmake/GitCommit.cmake); "unknown" when built outside a git checkout.
std::string build_git_commit();
// This build, as the running executable sees it.
BuildInfo current_build_info();
// {"engine_version", "compiler", "flags", "simd": [...], "git_commit", "build_id"?} of
// this build: what `mdcore --version --json` prints.
std::string build_info_json();

}  // namespace mdcore
