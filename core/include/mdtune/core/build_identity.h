#pragma once
// This mdtune build's identity: mdcore version, compiler, flags, SIMD levels and
// the commit (read at build time, mdcore::build_git_commit). Models record it;
// trials are keyed by measurement_build_id (mdtune/tuner/measurement_identity.h),
// which adds the mdcore binary, launcher and environment to it.
#include <string>

namespace mdtune::inline core {

std::string current_build_id();
std::string current_build_json();

}  // namespace mdtune::core
