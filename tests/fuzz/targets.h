#pragma once
// The parsers under fuzzing, each as a Target: its corpus, its words, how it
// nests, and the checks an accepted input must pass.
#include <string>

#include "driver.h"

namespace mdtest::fuzz {

// `corpus` is tests/fuzz/corpus; `scratch` a writable folder (the .top reader reads files).
Target gro_target(const std::string& corpus);
Target top_target(const std::string& corpus, const std::string& scratch);
Target toml_space_target(const std::string& corpus);
Target gbench_json_target(const std::string& corpus);
Target mpi_rules_target(const std::string& corpus);
Target mdp_target(const std::string& corpus);
Target md_log_target(const std::string& corpus);  // GROMACS md.log

}  // namespace mdtest::fuzz
