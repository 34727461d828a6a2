// The fitting machinery: NNLS, ridge and the cost model recover known
// coefficients from synthetic data; kNN and every kind round-trip through JSON.
#include <gtest/gtest.h>

#include <random>

#include "model_test_util.h"
#include "mdtune/models/cost_model.h"
#include "mdtune/models/knn.h"
#include "mdtune/models/nnls.h"
#include "mdtune/models/ridge.h"

namespace mdtune {
namespace {

TEST(Nnls, RecoversANonNegativeSolutionExactly) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Eigen::MatrixXd A(40, 6);
    for (Eigen::Index i = 0; i < A.rows(); ++i)
        for (Eigen::Index j = 0; j < A.cols(); ++j) A(i, j) = u(rng) * std::pow(10.0, static_cast<double>(j));
    Eigen::VectorXd x_true(6);
    x_true << 2.0, 0.0, 0.5, 0.0, 3e-3, 1e-5;
    const models::NnlsResult r = models::nnls(A, A * x_true);
    EXPECT_TRUE(r.converged);
    for (Eigen::Index j = 0; j < 6; ++j) EXPECT_NEAR(r.x(j), x_true(j), 1e-9 * std::max(1.0, x_true(j))) << j;
}

TEST(Nnls, ClampsAtZeroAndSatisfiesKuhnTucker) {
    std::mt19937 rng(11);
    std::normal_distribution<double> g;
    Eigen::MatrixXd A(30, 5);
    for (Eigen::Index i = 0; i < A.rows(); ++i)
        for (Eigen::Index j = 0; j < A.cols(); ++j) A(i, j) = g(rng);
    Eigen::VectorXd x_ls(5);
    x_ls << 1.0, -2.0, 0.5, -0.1, 3.0;  // the unconstrained optimum has negative entries
    Eigen::VectorXd b = A * x_ls;
    for (Eigen::Index i = 0; i < b.size(); ++i) b(i) += 0.01 * g(rng);
    const Eigen::VectorXd x = models::nnls(A, b).x;
    const Eigen::VectorXd w = A.transpose() * (b - A * x);
    for (Eigen::Index j = 0; j < 5; ++j) {
        EXPECT_GE(x(j), 0.0);
        EXPECT_LE(w(j), 1e-8) << "gradient points into the feasible set at " << j;
        if (x(j) > 0) EXPECT_NEAR(w(j), 0.0, 1e-8) << j;
    }
    EXPECT_EQ(x(1), 0.0);
}

TEST(Ridge, RecoversLinearCoefficients) {
    std::mt19937 rng(3);
    std::normal_distribution<double> g;
    Eigen::MatrixXd X(60, 4);
    for (Eigen::Index i = 0; i < X.rows(); ++i)
        for (Eigen::Index j = 0; j < X.cols(); ++j) X(i, j) = g(rng) * (j + 1) + 5.0 * j;
    Eigen::VectorXd beta(4);
    beta << 0.7, -1.3, 0.05, 2.0;
    const Eigen::VectorXd y = (X * beta).array() + 1.5;
    const models::RidgeFit fixed = models::fit_ridge(X, y, 1e-10);
    EXPECT_TRUE(fixed.raw_coefficients().isApprox(beta, 1e-6));
    EXPECT_NEAR(fixed.raw_intercept(), 1.5, 1e-6);
    // GCV on noise-free data picks a negligible penalty.
    const models::RidgeFit gcv = models::fit_ridge(X, y);
    EXPECT_TRUE(gcv.raw_coefficients().isApprox(beta, 1e-3)) << gcv.raw_coefficients().transpose();
    EXPECT_LT(gcv.sigma_loo, 1e-3);
}

TEST(Ridge, PenaltyShrinksAndConstantColumnsAreIgnored) {
    Eigen::MatrixXd X(20, 2);
    Eigen::VectorXd y(20);
    for (int i = 0; i < 20; ++i) {
        X(i, 0) = i;
        X(i, 1) = 3.0;  // constant: one hardware, say
        y(i) = 2.0 * i + 1.0;
    }
    const models::RidgeFit f = models::fit_ridge(X, y, 1e-9);
    EXPECT_NEAR(f.raw_coefficients()(0), 2.0, 1e-6);
    EXPECT_EQ(f.beta(1), 0.0);
    EXPECT_NEAR(f.predict(Eigen::Vector2d(7.0, 3.0)), 15.0, 1e-6);
    const models::RidgeFit shrunk = models::fit_ridge(X, y, 1e3);
    EXPECT_LT(std::abs(shrunk.raw_coefficients()(0)), 1.0);
}

TEST(RidgeModel, FitsLogTimeThatIsLinearInItsFeatures) {
    const auto hw = test::test_hardware();
    auto samples = test::synthetic_samples(hw);
    Eigen::VectorXd w = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(models::RidgeModel::feature_names().size()));
    w(0) = 0.9;    // log_natoms
    w(6) = -0.2;   // log_nstlist
    w(12) = -0.6;  // log_threads
    w(9) = 0.1;    // cluster_4x8
    for (models::Sample& s : samples) s.ms = std::exp(-6.0 + w.dot(models::RidgeModel::feature_vector(s.features)));
    models::RidgeModel m;
    m.fit(samples);
    for (const models::Sample& s : samples) EXPECT_NEAR(m.predict(s.features).ms / s.ms, 1.0, 0.01);
}

TEST(CostModel, RecoversKnownPerTaskCoefficients) {
    const auto hw = test::test_hardware();
    const auto samples = test::synthetic_samples(hw);
    models::CostModel m;
    m.fit(samples);
    ASSERT_TRUE(m.has_own_fit(hw.id));
    const models::CostFit& fit = m.fit_for(hw.id);
    const auto truth = test::true_cost_coefficients();
    for (std::size_t t = 0; t < truth.size(); ++t)
        for (Eigen::Index k = 0; k < truth[t].size(); ++k)
            EXPECT_NEAR(fit.coefficients[t](k), truth[t](k), 1e-6 * truth[t].cwiseAbs().maxCoeff() + 1e-15)
                << models::cost_tasks()[t].name << " term " << models::cost_tasks()[t].terms[static_cast<std::size_t>(k)];
    EXPECT_NEAR(fit.calibration, 1.0, 1e-12);
    for (const models::Sample& s : samples) EXPECT_NEAR(m.predict(s.features).ms / s.ms, 1.0, 1e-6);
}

TEST(CostModel, FitsEachHardwareSeparatelyAndPoolsForUnknownOnes) {
    const auto fast = test::test_hardware("hw-fast"), slow = test::test_hardware("hw-slow");
    test::SyntheticSpec spec;
    auto samples = test::synthetic_samples(fast, spec);
    spec.speed = 0.5;  // twice the time for the same work
    auto more = test::synthetic_samples(slow, spec);
    samples.insert(samples.end(), more.begin(), more.end());
    models::CostModel m;
    m.fit(samples);
    ASSERT_TRUE(m.has_own_fit("hw-fast") && m.has_own_fit("hw-slow"));
    for (const models::Sample& s : samples) EXPECT_NEAR(m.predict(s.features).ms / s.ms, 1.0, 1e-6);
    models::Features unknown = samples.front().features;
    unknown.hardware_id = "hw-never-seen";
    const models::Prediction p = m.predict(unknown);
    EXPECT_TRUE(p.extrapolated);
    EXPECT_GT(p.ms, 0.0);
}

TEST(Intervals, WidenOutsideTheTrainedSizes) {
    const auto hw = test::test_hardware();
    const auto samples = test::synthetic_samples(hw);
    for (models::ModelKind kind : models::kModelKinds) {
        auto m = models::make_model(kind);
        m->fit(samples);
        models::Features inside = samples.back().features;  // water 6000
        models::Features outside = inside;
        outside.natoms *= 8;
        const models::Prediction pi = m->predict(inside), po = m->predict(outside);
        EXPECT_FALSE(pi.extrapolated) << to_string(kind);
        EXPECT_TRUE(po.extrapolated) << to_string(kind);
        EXPECT_LT(pi.lo, pi.ms);
        EXPECT_GT(pi.hi, pi.ms);
        EXPECT_GT(std::log(po.hi / po.lo), std::log(pi.hi / pi.lo)) << to_string(kind);
    }
}

TEST(Serialisation, EveryKindRoundTripsThroughJsonText) {
    const auto hw = test::test_hardware();
    test::SyntheticSpec spec;
    spec.noise = 0.05;
    const auto samples = test::synthetic_samples(hw, spec);
    for (models::ModelKind kind : models::kModelKinds) {
        auto m = models::make_model(kind);
        m->fit(samples);
        const std::string text = m->to_json().dump();
        const auto back = models::Model::from_json(nlohmann::json::parse(text));
        EXPECT_EQ(back->kind(), kind);
        EXPECT_EQ(back->feature_set(), m->feature_set());
        EXPECT_EQ(back->to_json().dump(), text);
        for (std::size_t i = 0; i < samples.size(); i += 7) {
            const models::Prediction a = m->predict(samples[i].features), b = back->predict(samples[i].features);
            EXPECT_DOUBLE_EQ(a.ms, b.ms) << to_string(kind);
            EXPECT_DOUBLE_EQ(a.lo, b.lo);
            EXPECT_DOUBLE_EQ(a.hi, b.hi);
        }
    }
}

TEST(Serialisation, RejectsUnknownKindsAndForeignFeatureSets) {
    EXPECT_THROW(models::Model::from_json(nlohmann::json{{"kind", "forest"}}), models::ModelError);
    EXPECT_THROW(models::Model::from_json(nlohmann::json::parse("[1,2]")), models::ModelError);
    const auto samples = test::synthetic_samples(test::test_hardware());
    models::RidgeModel m;
    m.fit(samples);
    auto j = m.to_json();
    j["feature_set"] = "ridge-v1:old";
    EXPECT_THROW(models::Model::from_json(j), models::ModelError);
    j = m.to_json();
    j["params"]["beta"] = std::vector<double>{1.0, 2.0};
    EXPECT_THROW(models::Model::from_json(j), models::ModelError);
}

TEST(Knn, ExactNeighbourAndSpreadInterval) {
    const auto hw = test::test_hardware();
    test::SyntheticSpec spec;
    spec.noise = 0.1;
    const auto samples = test::synthetic_samples(hw, spec);
    models::KnnModel m(1);
    m.fit(samples);
    // k = 1: a training point predicts itself.
    for (std::size_t i = 0; i < samples.size(); i += 5)
        EXPECT_NEAR(m.predict(samples[i].features).ms / samples[i].ms, 1.0, 1e-9);
    models::KnnModel m5;
    m5.fit(samples);
    const models::Prediction p = m5.predict(samples[10].features);
    EXPECT_GT(p.hi / p.lo, 1.0);
}

TEST(Fitting, TooFewSamplesIsAModelError) {
    const auto samples = test::synthetic_samples(test::test_hardware());
    const std::vector<models::Sample> two(samples.begin(), samples.begin() + 2);
    EXPECT_THROW(models::RidgeModel().fit(two), models::ModelError);
    EXPECT_THROW(models::CostModel().fit(two), models::ModelError);
    EXPECT_THROW(models::KnnModel().fit({}), models::ModelError);
}

}  // namespace
}  // namespace mdtune
