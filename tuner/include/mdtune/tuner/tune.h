#pragma once
// `mdtune tune` as a library call: rank a system's configs with the database's
// model (fitting one first when none is stored), measure the top predictions and
// the default config as a sweep — in interleaved rounds, the default the
// reference of every round — and compare predicted with measured times.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mdtune/models/features.h"
#include "mdtune/models/model.h"
#include "mdtune/models/predictor.h"
#include "mdtune/tuner/runner.h"
#include "mdtune/db/store.h"
#include "mdtune/tuner/sweep.h"

namespace mdtune::tuner {

struct TuneRequest {
    SystemDescriptor system;
    std::size_t top = 5;                  // predictions to verify
    std::optional<std::size_t> budget;    // trials including the default; nullopt: top + 1 (at least 2)
    std::optional<long> steps;            // nullopt: about 2 s of measured time per repeat at the predicted speed
    int repeats = 3;                      // rounds at most: every candidate and the default once per round
    // Stop after a round (from the third) once the best is significantly ahead of
    // every other candidate and the default (RoundSettings::stop_when_decided).
    bool stop_when_decided = true;
    std::optional<models::ModelKind> kind;        // nullopt: the latest model of any kind
    models::CandidateGrid grid{};                 // the candidates (CandidateGrid::only: a user's space)
};

// What will be measured, known before the first run.
struct TunePlan {
    long model_id = 0;
    std::string model_kind;
    bool model_fitted_now = false;  // no stored model: fitted from the database and stored
    std::size_t training_trials = 0;  // when fitted now
    std::vector<Config> candidates;   // the top predictions, best first
    MeasureSettings measure;
};

struct VerifiedConfig {
    Config config;
    models::Prediction predicted;
    TrialResult measured;
};

struct TuneResult {
    TunePlan plan;
    SweepSummary summary;                  // systems[0]: the best and the default measured
    std::vector<VerifiedConfig> verified;  // every measured config that had a prediction, in database order
    mdcore::EffectiveConfig best_effective;  // resolved for the machine when a best exists
    models::SystemFeatures system_features;
    double elapsed_s = 0;                  // wall time of the measurements (the sweep)
};

struct TuneEvents {
    std::function<void(const TunePlan&)> planned;               // before the first run
    std::function<void(const SweepProgress&)> progress;         // after each trial
};

// Measures on `hardware` (the machine the runner runs on) into `store`, keyed
// by ctx like any sweep. Throws std::runtime_error when the database holds too
// few trials to fit a model or nothing is feasible.
// The value every tunable resolved to, as text: two configs with the same text run
// with the same settings (e.g. the default and its own values written out).
std::string resolved_settings(const mdcore::EffectiveConfig& effective);

TuneResult tune_system(const TuneRequest& request, db::Store& store, Runner& runner, const SweepContext& ctx,
                       const models::HardwareFeatures& hardware, const TuneEvents& events = {});

}  // namespace mdtune::tuner
