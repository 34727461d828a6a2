#pragma once
// What identifies this mdcore build to a tuner, which keys its trials by it.
#include <string>

namespace mdcore {

// GNU build id (hex) of the running executable, "" when it was linked without one.
std::string executable_build_id();
// {"engine_version", "compiler", "flags", "simd": [...], "build_id"?} of this build:
// what `mdcore --version --json` prints.
std::string build_info_json();

}  // namespace mdcore
