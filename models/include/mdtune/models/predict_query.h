#pragma once
// `mdtune predict` as a library call: rank the feasible configs of a system on a
// machine with the database's latest model, in milliseconds, without running MD.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "mdtune/models/model.h"
#include "mdtune/db/model_store.h"
#include "mdtune/models/predictor.h"

namespace mdtune::models {

struct PredictRequest {
    std::string db;                  // must exist; opened read-only
    SystemDescriptor system;
    std::string hardware = "this";   // "this", a hardware id (or prefix) of the database, or a node type
    std::optional<ModelKind> kind;   // nullopt: the latest model of any kind
    CandidateGrid grid{};            // the candidates (CandidateGrid::only: a user's space)
};

struct PredictResult {
    HardwareFeatures hardware;
    db::StoredModel model;               // the stored model that answered
    Ranking ranking;                 // ranked is never empty
    double elapsed_ms = 0;
};

// Throws InputError for an unknown --hardware, std::runtime_error when the
// database has no model or nothing is feasible (the message lists why per config).
PredictResult predict_configs(const PredictRequest& request);

// Whether the predicted best cannot be told apart from the default: their
// prediction intervals overlap (false when the ranking has no default).
bool best_indistinguishable_from_default(const Ranking& r);
// mdcore's defaults are predicted at least as fast as every candidate: they, not
// rank 1, are the advice (false when the ranking has no default).
bool default_is_fastest(const Ranking& r);

// The --json answer: the first `top` ranked configs, the default (with
// "indistinguishable_from_default" and "keep_defaults"), counts and timing.
nlohmann::json predict_json(const PredictRequest& request, const PredictResult& result, std::size_t top);

}  // namespace mdtune::models
