#pragma once
// The model-guided strategy: proposes a model's top-ranked configs for one
// system, best first, each once, with short measurement settings. Driven by the
// ordinary sweep machinery (run_sweep), so results are recorded and resumable.
#include <memory>
#include <vector>

#include "mdtune/tuner/strategy.h"

namespace mdtune::tuner {

// configs: ranked, best first. Configs already in the history (same system,
// config and measure — e.g. the default config run_sweep measures first) are skipped.
std::unique_ptr<Strategy> make_model_guided(const SystemDescriptor& system, std::vector<Config> configs,
                                            const MeasureSettings& measure);

}  // namespace mdtune::tuner
