#include "mdtune/core/build_identity.h"

#include <nlohmann/json.hpp>

#include "mdcore/build_info.h"
#include "mdcore/engine.h"
#include "mdtune/process/digest.h"

namespace mdtune::inline core {

std::string current_build_json() {
    nlohmann::json levels = nlohmann::json::array();
    for (auto l : mdcore::available_simd_levels()) levels.push_back(std::string(mdcore::to_string(l)));
    return nlohmann::json{{"engine_version", mdcore::engine_version()},
                          {"compiler", mdcore::build_compiler()},
                          {"flags", mdcore::build_flags()},
                          {"simd", levels},
                          {"git_commit", mdcore::build_git_commit()}}
        .dump();
}

std::string current_build_id() { return "build-" + process::fnv1a_hex(current_build_json()); }

}  // namespace mdtune::core
