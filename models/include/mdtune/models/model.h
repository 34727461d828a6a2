#pragma once
// The model interface: fit(samples) -> predict(features) gives ms per step with
// an interval, and JSON serialisation (what the database stores). Three kinds:
// ridge regression on log time, a physics-informed per-task cost model, and
// k-nearest neighbours.
#include <array>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mdtune/models/coverage.h"
#include "mdtune/models/dataset.h"

namespace mdtune::models {

// A model that cannot be fitted or read: too few samples, malformed JSON.
struct ModelError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class ModelKind { Ridge, Cost, Knn };
inline constexpr std::array<ModelKind, 3> kModelKinds{ModelKind::Ridge, ModelKind::Cost, ModelKind::Knn};
std::string_view to_string(ModelKind k);
std::optional<ModelKind> parse_model_kind(std::string_view s);

// Two-sided 90 % intervals: z of the normal distribution on the log scale.
inline constexpr double kIntervalZ = 1.6448536;

struct Prediction {
    double ms = 0;          // point estimate, ms per step
    double lo = 0, hi = 0;  // 90 % interval
    bool extrapolated = false;  // outside the trained sizes, hardware or settings: interval widened
    // Settings no training trial covered (Coverage::outside); such a point is
    // extrapolated and ranks after every covered one.
    std::vector<std::string> uncovered;
    std::size_t uncovered_tunables = 0;  // of those, the candidate's own settings (Coverage::tunables_outside)
    // What ranking looks at: a system outside the trained densities is outside for
    // every candidate alike, so only the candidate's own settings reorder.
    bool covered() const { return uncovered_tunables == 0; }
};

// The ranking order of predictions for one system: covered before uncovered,
// then faster first. Predictor, cross-validation and tuning all rank by it.
bool ranks_before(const Prediction& a, const Prediction& b);

// Where the model has seen data: the atom range per system kind and the hardware.
struct TrainingDomain {
    std::map<std::string, std::pair<double, double>> natoms;  // kind -> [min, max]
    std::set<std::string> hardware;
    Coverage settings;  // the settings the trials covered (empty in models stored before it)
    nlohmann::json to_json() const;
    static TrainingDomain from_json(const nlohmann::json& j);
};

class Model {
public:
    Model(ModelKind kind, std::string feature_set) : kind_(kind), feature_set_(std::move(feature_set)) {}
    virtual ~Model() = default;
    ModelKind kind() const { return kind_; }
    // Name and list of the inputs the model reads (stored with it).
    const std::string& feature_set() const { return feature_set_; }

    // Throws ModelError when the samples cannot support the model.
    void fit(const std::vector<Sample>& samples);
    // Outside the training domain the interval is widened: by half its log-width
    // per octave of atoms beyond the trained range, doubled on unseen hardware and
    // doubled for settings the training never covered (Prediction::uncovered).
    Prediction predict(const Features& f) const;
    const TrainingDomain& domain() const { return domain_; }

    nlohmann::json to_json() const;  // {"kind", "feature_set", "domain", "params"}
    // Throws ModelError for an unknown kind or malformed parameters.
    static std::unique_ptr<Model> from_json(const nlohmann::json& j);

protected:
    virtual void do_fit(const std::vector<Sample>& samples) = 0;
    virtual Prediction do_predict(const Features& f) const = 0;
    virtual nlohmann::json params_json() const = 0;
    virtual void load_params(const nlohmann::json& j) = 0;

private:
    ModelKind kind_;
    std::string feature_set_;
    TrainingDomain domain_;
};

std::unique_ptr<Model> make_model(ModelKind kind);

// A feature set's stored name: "<version>:<name>,<name>,...".
std::string feature_set_name(std::string_view version, const std::vector<std::string>& names);

// Interval around `ms` with half-width `sigma` on the log scale.
Prediction log_interval(double ms, double sigma);

}  // namespace mdtune::models
