#pragma once
// k-nearest neighbours, the baseline: the time per atom of the k closest measured
// points (standardised features: size, density, charges, cut-off, list lifetime,
// cluster shape, threads, SIMD width, cores, cache), inverse-distance weighted on
// the log scale, times the atom count. The interval is the neighbours' spread.
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "mdtune/models/model.h"

namespace mdtune::models {

class KnnModel : public Model {
public:
    explicit KnnModel(int k = 5) : k_(k) {}
    ModelKind kind() const override { return ModelKind::Knn; }
    std::string feature_set() const override;
    static const std::vector<std::string>& feature_names();
    static Eigen::VectorXd feature_vector(const Features& f);
    int k() const { return k_; }

protected:
    void do_fit(const std::vector<Sample>& samples) override;
    Prediction do_predict(const Features& f) const override;
    nlohmann::json params_json() const override;
    void load_params(const nlohmann::json& j) override;

private:
    int k_;
    Eigen::VectorXd mean_, scale_;
    Eigen::MatrixXd points_;  // standardised, one row per sample
    Eigen::VectorXd target_;  // log(ms / natoms)
};

}  // namespace mdtune::models
