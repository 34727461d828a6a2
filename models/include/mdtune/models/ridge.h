#pragma once
// Ridge regression on log(ms/step) with engineered features (log scale where
// time scales multiplicatively: atoms, density, threads, work terms). The penalty
// is chosen by generalised cross-validation; the interval comes from the
// leave-one-out residuals on the log scale, widened by the leverage of the query.
#include <Eigen/Dense>
#include <optional>
#include <string>
#include <vector>

#include "mdtune/models/model.h"

namespace mdtune::models {

// A ridge fit on standardised columns (intercept unpenalised).
struct RidgeFit {
    Eigen::VectorXd mean, scale;  // per column; scale 1 for constant columns
    Eigen::VectorXd beta;         // on standardised columns
    double intercept = 0;
    double lambda = 0;
    double sigma_loo = 0;         // RMS of leave-one-out residuals
    Eigen::MatrixXd leverage;     // A with var(prediction) ~ sigma^2 (1 + 1/n + z' A z)
    std::size_t n = 0;
    std::vector<bool> constant;   // per column: constant in the training data (its beta is 0)

    double predict(const Eigen::VectorXd& x) const;
    double leverage_of(const Eigen::VectorXd& x) const;  // 1/n + z' A z
    // beta mapped back to the raw columns (for tests and inspection).
    Eigen::VectorXd raw_coefficients() const;
    double raw_intercept() const;
};

struct RidgeOptions {
    std::optional<double> lambda;  // fixed; chosen by GCV over 1e-8 .. 1e3 (x n) when empty
    // A fixed lambda per unit of row weight (x n unweighted): the same smoothing for any number of rows.
    bool lambda_per_weight = false;
    // Per column, a factor (> 0) on lambda: some terms free, others held to a shared curve. Empty: all 1.
    Eigen::VectorXd penalty_factor;
    // Iteratively reweighted passes after the plain fit with Huber weights, so a few rows
    // hit by a burst of load do not bend the whole fit; the robust scale is 1.4826 x the
    // median absolute residual, at least huber_sigma_floor.
    int huber_passes = 0;
    double huber_sigma_floor = 0.0;
};

RidgeFit fit_ridge(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const RidgeOptions& options);
// lambda: fixed, or chosen by GCV over 1e-8 .. 1e3 (x n) when empty.
RidgeFit fit_ridge(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, std::optional<double> lambda = std::nullopt);

class RidgeModel : public Model {
public:
    ModelKind kind() const override { return ModelKind::Ridge; }
    std::string feature_set() const override;
    static const std::vector<std::string>& feature_names();
    static Eigen::VectorXd feature_vector(const Features& f);
    const RidgeFit& fit_result() const { return fit_; }

protected:
    void do_fit(const std::vector<Sample>& samples) override;
    Prediction do_predict(const Features& f) const override;
    nlohmann::json params_json() const override;
    void load_params(const nlohmann::json& j) override;

private:
    RidgeFit fit_;
};

// Eigen <-> JSON helpers shared by the models.
nlohmann::json vector_to_json(const Eigen::VectorXd& v);
Eigen::VectorXd vector_from_json(const nlohmann::json& j);
nlohmann::json matrix_to_json(const Eigen::MatrixXd& m);
Eigen::MatrixXd matrix_from_json(const nlohmann::json& j);

}  // namespace mdtune::models
