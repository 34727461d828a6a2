// Model <-> models-table row.
#include "mdtune/models/model_record.h"

#include <set>

namespace mdtune::models {

db::StoredModel to_stored_model(const Model& model, const std::vector<Sample>& training, const Selection& selection,
                            const std::string& build_id) {
    db::StoredModel row;
    row.kind = std::string(to_string(model.kind()));
    row.feature_set = model.feature_set();
    row.coefficients_json = model.to_json().dump();
    nlohmann::json ids = nlohmann::json::array();
    std::set<std::string> hardware;
    for (const Sample& s : training) {
        ids.push_back(s.trial_id);
        hardware.insert(s.hardware_id);
    }
    row.training_trial_ids_json = ids.dump();
    nlohmann::json cv = nlohmann::json::array();
    for (const CvResult& r : selection.cv) cv.push_back(to_json(r));
    row.cv_json = nlohmann::json{{"chosen", row.kind}, {"reason", selection.reason}, {"results", cv}}.dump();
    row.build_id = build_id;
    row.hardware_scope = nlohmann::json(hardware).dump();
    return row;
}

std::unique_ptr<Model> load_stored_model(const db::StoredModel& row) {
    try {
        return Model::from_json(nlohmann::json::parse(row.coefficients_json));
    } catch (const nlohmann::json::exception& e) {
        throw ModelError("model " + std::to_string(row.id) + ": coefficients are not JSON: " + e.what());
    } catch (const ModelError& e) {
        throw ModelError("model " + std::to_string(row.id) + ": " + e.what());
    }
}

std::vector<long> training_trial_ids(const db::StoredModel& row) {
    try {
        return nlohmann::json::parse(row.training_trial_ids_json).get<std::vector<long>>();
    } catch (const nlohmann::json::exception& e) {
        throw ModelError("model " + std::to_string(row.id) + ": training trial ids are not a JSON list: " + e.what());
    }
}

}  // namespace mdtune::models
