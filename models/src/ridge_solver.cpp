// The one ridge solver of mdtune: standardised columns, an unpenalised intercept,
// SVD with the penalty chosen by GCV or given, leave-one-out residuals; optionally
// row weights, per-column penalty factors and Huber reweighting (the MPI latency
// models use those). Used by the performance model (ridge.cpp) and the MPI selection.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "mdtune/models/ridge.h"

namespace mdtune::models {

double RidgeFit::predict(const Eigen::VectorXd& x) const {
    const Eigen::VectorXd z = (x - mean).cwiseQuotient(scale);
    return intercept + z.dot(beta);
}

double RidgeFit::leverage_of(const Eigen::VectorXd& x) const {
    const Eigen::VectorXd z = (x - mean).cwiseQuotient(scale);
    return 1.0 / static_cast<double>(std::max<std::size_t>(1, n)) + z.dot(leverage * z);
}

Eigen::VectorXd RidgeFit::raw_coefficients() const { return beta.cwiseQuotient(scale); }

double RidgeFit::raw_intercept() const { return intercept - raw_coefficients().dot(mean); }

namespace {

// Standardises the columns of X into Z (population SD); a constant column (one
// hardware, one system kind, one layout) carries no information and becomes zero.
Eigen::MatrixXd standardise(const Eigen::MatrixXd& X, RidgeFit& f) {
    const Eigen::Index n = X.rows(), p = X.cols();
    f.mean = X.colwise().mean().transpose();
    f.scale.resize(p);
    f.constant.assign(static_cast<std::size_t>(p), false);
    Eigen::MatrixXd Z(n, p);
    for (Eigen::Index j = 0; j < p; ++j) {
        const Eigen::VectorXd c = X.col(j).array() - f.mean(j);
        const double sd = std::sqrt(c.squaredNorm() / static_cast<double>(n));
        const bool varies = sd > 1e-12 * std::max(1.0, std::abs(f.mean(j)));
        f.scale(j) = varies ? sd : 1.0;
        f.constant[static_cast<std::size_t>(j)] = !varies;
        Z.col(j) = varies ? Eigen::VectorXd(c / sd) : Eigen::VectorXd::Zero(n);
    }
    return Z;
}

// The penalty minimising generalised cross-validation over a log grid from
// 1e-8 n to 1e3 n (quarter decades), from the SVD of the centred design.
double lambda_by_gcv(const Eigen::VectorXd& s2, const Eigen::VectorXd& uty, double outside, Eigen::Index n) {
    auto gcv = [&](double lam) {
        double rss = outside, df = 1.0;  // intercept
        for (Eigen::Index k = 0; k < s2.size(); ++k) {
            const double shrink = lam / (s2(k) + lam);
            rss += shrink * shrink * uty(k) * uty(k);
            df += s2(k) / (s2(k) + lam);
        }
        const double dof = static_cast<double>(n) - df;
        return dof > 1e-9 ? static_cast<double>(n) * rss / (dof * dof) : std::numeric_limits<double>::infinity();
    };
    double best = std::numeric_limits<double>::infinity(), chosen = 1.0;
    for (int k = 0; k <= 44; ++k) {
        const double lam = static_cast<double>(n) * std::pow(10.0, -8.0 + 0.25 * k);
        const double g = gcv(lam);
        if (g < best) {
            best = g;
            chosen = lam;
        }
    }
    return chosen;
}

// One (weighted) ridge solve on standardised Z. Without weights and penalty
// factors this is the plain solver, operation for operation.
void solve(const Eigen::MatrixXd& Z, const Eigen::VectorXd& y, const Eigen::VectorXd* weights,
           const RidgeOptions& o, RidgeFit& f) {
    const Eigen::Index n = Z.rows(), p = Z.cols();
    Eigen::MatrixXd Zc = Z;  // already centred on the unweighted mean
    Eigen::VectorXd zbar = Eigen::VectorXd::Zero(p);
    double ymean = y.mean();
    Eigen::VectorXd yc = y.array() - ymean;
    double total_weight = static_cast<double>(n);
    if (weights) {
        // Weighted centring leaves the intercept unpenalised: rows carry sqrt(w).
        total_weight = weights->sum();
        zbar = (Z.transpose() * *weights) / total_weight;
        ymean = weights->dot(y) / total_weight;
        const Eigen::VectorXd sw = weights->cwiseSqrt();
        Zc = sw.asDiagonal() * (Z.rowwise() - zbar.transpose());
        yc = sw.cwiseProduct((y.array() - ymean).matrix());
    }
    // A column penalised by lambda * m_j is a column divided by sqrt(m_j) under lambda.
    Eigen::VectorXd root_factor = Eigen::VectorXd::Ones(p);
    if (o.penalty_factor.size()) {
        root_factor = o.penalty_factor.cwiseSqrt();
        Zc = Zc * root_factor.cwiseInverse().asDiagonal();
    }

    const Eigen::BDCSVD<Eigen::MatrixXd> svd(Zc, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Eigen::VectorXd s = svd.singularValues();
    const Eigen::MatrixXd& U = svd.matrixU();
    const Eigen::MatrixXd& V = svd.matrixV();
    const Eigen::VectorXd uty = U.transpose() * yc;
    const Eigen::VectorXd s2 = s.cwiseProduct(s);
    // Residual of the part of y outside the column space of Z.
    const double outside = std::max(0.0, yc.squaredNorm() - uty.squaredNorm());

    if (o.lambda) {
        f.lambda = *o.lambda * (o.lambda_per_weight ? total_weight : 1.0);
    } else {
        f.lambda = lambda_by_gcv(s2, uty, outside, n);
    }
    const double lam = f.lambda;
    Eigen::VectorXd d(s.size()), a(s.size());
    for (Eigen::Index k = 0; k < s.size(); ++k) {
        d(k) = s(k) / (s2(k) + lam);
        a(k) = s2(k) / ((s2(k) + lam) * (s2(k) + lam));
    }
    f.beta = V * d.cwiseProduct(uty);
    f.leverage = V * a.asDiagonal() * V.transpose();
    if (o.penalty_factor.size()) {
        f.beta = f.beta.cwiseQuotient(root_factor);
        f.leverage = root_factor.cwiseInverse().asDiagonal() * f.leverage * root_factor.cwiseInverse().asDiagonal();
    }
    f.intercept = ymean - zbar.dot(f.beta);

    // Leave-one-out residuals of a linear smoother: e_i / (1 - h_ii).
    const Eigen::VectorXd fitted = Zc * (f.beta.cwiseProduct(root_factor));
    double sum = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
        double h = 1.0 / static_cast<double>(n);
        for (Eigen::Index k = 0; k < s.size(); ++k) h += U(i, k) * U(i, k) * s2(k) / (s2(k) + lam);
        const double e = (yc(i) - fitted(i)) / std::max(1e-6, 1.0 - h);
        sum += e * e;
    }
    f.sigma_loo = std::sqrt(sum / static_cast<double>(n));
}

// Huber weights from the residuals: robust scale 1.4826 x MAD (upper median),
// floored, and full weight within 1.345 of it.
Eigen::VectorXd huber_weights(const Eigen::VectorXd& residual, double sigma_floor) {
    const Eigen::VectorXd r = residual.cwiseAbs();
    std::vector<double> sorted(r.data(), r.data() + r.size());
    const std::size_t mid = sorted.size() / 2;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(mid), sorted.end());
    const double c = 1.345 * std::max(1.4826 * sorted[mid], sigma_floor);
    Eigen::VectorXd w(r.size());
    for (Eigen::Index i = 0; i < r.size(); ++i) w(i) = r(i) <= c ? 1.0 : c / r(i);
    return w;
}

}  // namespace

RidgeFit fit_ridge(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const RidgeOptions& options) {
    const Eigen::Index n = X.rows(), p = X.cols();
    if (n < 2) throw ModelError("ridge: need at least 2 samples, got " + std::to_string(n));
    if (options.penalty_factor.size() && options.penalty_factor.size() != p)
        throw ModelError("ridge: " + std::to_string(options.penalty_factor.size()) + " penalty factors for " +
                         std::to_string(p) + " columns");
    if (options.penalty_factor.size() && !(options.penalty_factor.array() > 0).all())
        throw ModelError("ridge: penalty factors must be positive");
    RidgeFit f;
    f.n = static_cast<std::size_t>(n);
    const Eigen::MatrixXd Z = standardise(X, f);
    solve(Z, y, nullptr, options, f);
    for (int pass = 0; pass < options.huber_passes; ++pass) {
        Eigen::VectorXd residual(n);
        for (Eigen::Index i = 0; i < n; ++i) residual(i) = f.intercept + Z.row(i).dot(f.beta) - y(i);
        const Eigen::VectorXd w = huber_weights(residual, options.huber_sigma_floor);
        solve(Z, y, &w, options, f);
    }
    return f;
}

RidgeFit fit_ridge(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, std::optional<double> lambda) {
    RidgeOptions options;
    options.lambda = lambda;
    return fit_ridge(X, y, options);
}

}  // namespace mdtune::models
