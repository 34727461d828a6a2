#pragma once
// `mdtune fit` as a library call: choose a model kind by cross-validation on the
// database's ok trials, fit it, store it, and score it on held-out sizes.
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mdtune/models/dataset.h"
#include "mdtune/models/model.h"
#include "mdtune/models/selection.h"
#include "mdtune/models/validation.h"

namespace mdtune::models {

struct FitRequest {
    std::string db;                    // must exist
    std::optional<ModelKind> kind;     // nullopt: auto (chosen by cross-validated regret)
    std::set<long> holdout_natoms;     // sizes kept out of fitting and scored afterwards
    std::set<std::string> holdout_kinds;  // system kinds (kind_name()) kept out likewise
};

struct FitResult;
// Called once the trials are read and split, before the (slow) cross-validation.
using FitLoaded = std::function<void(const FitResult&)>;

// One kind fitted on the same training trials and scored on the held-out sizes.
struct HeldOutKind {
    ModelKind kind = ModelKind::Ridge;
    std::optional<Scores> scores;  // nullopt when the kind could not be fitted
    std::string error;             // why not
};

struct FitResult {
    std::vector<Sample> train, test;   // test: the held-out sizes and kinds
    std::size_t machines = 0, systems = 0;  // in the training trials
    Selection selection;
    std::unique_ptr<Model> model;      // the chosen kind, fitted on train
    long model_id = 0;                 // row of the models table
    double cv_ms = 0, fit_ms = 0;      // wall time of the selection and of the final fit
    std::optional<Scores> holdout;     // the chosen model on the held-out sizes
    std::vector<HeldOutKind> holdout_by_kind;  // every kind, when sizes were held out
};

// Throws std::runtime_error for a missing database or too few trials, and
// InputError when --holdout-natoms / --holdout-kinds name sizes or kinds the
// database has no ok trials of.
FitResult fit_and_store(const FitRequest& request, const FitLoaded& on_loaded = {});

}  // namespace mdtune::models
