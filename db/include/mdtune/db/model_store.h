#pragma once
// Fitted performance models in the database (the `models` table of schema v2):
// kind, feature set, coefficients, the trials they were fitted on, their
// cross-validation scores, when and by which build. The models module builds and
// reads the JSON; this file only moves rows.
#include <optional>
#include <string>
#include <vector>

#include "mdtune/db/store.h"

namespace mdtune::db {

struct StoredModel {
    long id = 0;                          // row id (0 before insert)
    std::string kind;                     // ridge | cost | knn
    std::string feature_set;              // name + list of the features it reads
    std::string coefficients_json;        // the model's own serialisation
    std::string training_trial_ids_json;  // [trial ids]
    std::string cv_json;                  // validation scores
    std::string created_at;               // ISO 8601 UTC, set on insert when empty
    std::string build_id;
    std::string hardware_scope;           // JSON array of the hardware ids it was trained on
};

class ModelStore {
public:
    explicit ModelStore(const Store& store) : store_(store) {}

    // One transaction; returns the new id.
    long insert(const StoredModel& model);
    std::optional<StoredModel> get(long id) const;
    // The most recent model, optionally of one kind.
    std::optional<StoredModel> latest(const std::optional<std::string>& kind = std::nullopt) const;
    std::vector<StoredModel> list() const;  // oldest first

    // Hardware ids in the hardware table (machines that have run or been described).
    std::vector<std::string> hardware_ids() const;

private:
    const Store& store_;
};

}  // namespace mdtune::db
