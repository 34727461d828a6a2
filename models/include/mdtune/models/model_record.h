#pragma once
// A fitted model as a database row and back: kind, feature set, coefficients
// (the model's JSON), training trial ids, CV scores, build id, hardware scope.
#include <memory>
#include <string>
#include <vector>

#include "mdtune/models/model.h"
#include "mdtune/db/model_store.h"
#include "mdtune/models/selection.h"

namespace mdtune::models {

db::StoredModel to_stored_model(const Model& model, const std::vector<Sample>& training, const Selection& selection,
                            const std::string& build_id);

// Throws ModelError naming the row when its JSON cannot be read by this build.
std::unique_ptr<Model> load_stored_model(const db::StoredModel& row);

// Training trial ids of a stored model.
std::vector<long> training_trial_ids(const db::StoredModel& row);

}  // namespace mdtune::models
