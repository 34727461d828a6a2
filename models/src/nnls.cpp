// Lawson-Hanson active-set NNLS. Columns are scaled to unit norm first so the
// tolerance means the same for pair counts (1e8) and constant terms (1).
#include "mdtune/models/nnls.h"

#include <cmath>
#include <limits>
#include <vector>

namespace mdtune::models {
namespace {

// Least squares on the passive columns only (the others are held at zero).
Eigen::VectorXd solve_passive(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const std::vector<bool>& passive) {
    std::vector<Eigen::Index> cols;
    for (Eigen::Index j = 0; j < A.cols(); ++j)
        if (passive[static_cast<std::size_t>(j)]) cols.push_back(j);
    Eigen::VectorXd z = Eigen::VectorXd::Zero(A.cols());
    if (cols.empty()) return z;
    Eigen::MatrixXd Ap(A.rows(), static_cast<Eigen::Index>(cols.size()));
    for (std::size_t k = 0; k < cols.size(); ++k) Ap.col(static_cast<Eigen::Index>(k)) = A.col(cols[k]);
    const Eigen::VectorXd zp = Ap.completeOrthogonalDecomposition().solve(b);
    for (std::size_t k = 0; k < cols.size(); ++k) z(cols[k]) = zp(static_cast<Eigen::Index>(k));
    return z;
}

}  // namespace

NnlsResult nnls(const Eigen::MatrixXd& A_in, const Eigen::VectorXd& b, int max_iterations) {
    const Eigen::Index n = A_in.cols();
    NnlsResult r;
    r.x = Eigen::VectorXd::Zero(n);
    if (n == 0 || A_in.rows() == 0) return r;
    Eigen::VectorXd scale(n);
    for (Eigen::Index j = 0; j < n; ++j) {
        const double norm = A_in.col(j).norm();
        scale(j) = norm > 0 ? norm : 1.0;
    }
    const Eigen::MatrixXd A = A_in * scale.cwiseInverse().asDiagonal();
    const double tol = 10.0 * std::numeric_limits<double>::epsilon() * static_cast<double>(std::max(A.rows(), n)) *
                       std::max(1.0, b.norm());
    const int cap = max_iterations > 0 ? max_iterations : static_cast<int>(3 * n) + 10;

    std::vector<bool> passive(static_cast<std::size_t>(n), false);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
    Eigen::VectorXd w = A.transpose() * (b - A * x);
    for (;;) {
        // The most promising variable that is still held at zero.
        Eigen::Index t = -1;
        double best = tol;
        for (Eigen::Index j = 0; j < n; ++j)
            if (!passive[static_cast<std::size_t>(j)] && w(j) > best) {
                best = w(j);
                t = j;
            }
        if (t < 0) break;  // Kuhn-Tucker conditions hold
        if (r.iterations >= cap) {
            r.converged = false;
            break;
        }
        ++r.iterations;
        passive[static_cast<std::size_t>(t)] = true;
        Eigen::VectorXd z = solve_passive(A, b, passive);
        if (z(t) <= 0) {
            // Round-off: the column that looked best does not enter. Skip it for
            // this round instead of selecting it again forever.
            passive[static_cast<std::size_t>(t)] = false;
            w(t) = 0;
            continue;
        }
        // Step back towards x until every passive variable is positive.
        for (int inner = 0; inner < 3 * n + 10; ++inner) {
            double alpha = std::numeric_limits<double>::infinity();
            for (Eigen::Index j = 0; j < n; ++j)
                if (passive[static_cast<std::size_t>(j)] && z(j) <= 0) {
                    const double denom = x(j) - z(j);
                    alpha = std::min(alpha, denom > 0 ? x(j) / denom : 0.0);
                }
            if (!std::isfinite(alpha)) break;
            x += alpha * (z - x);
            for (Eigen::Index j = 0; j < n; ++j)
                if (passive[static_cast<std::size_t>(j)] && x(j) <= tol) {
                    passive[static_cast<std::size_t>(j)] = false;
                    x(j) = 0;
                }
            z = solve_passive(A, b, passive);
        }
        x = z;
        for (Eigen::Index j = 0; j < n; ++j)
            if (!passive[static_cast<std::size_t>(j)]) x(j) = 0;
        w = A.transpose() * (b - A * x);
    }
    r.x = x.cwiseQuotient(scale).cwiseMax(0.0);
    return r;
}

}  // namespace mdtune::models
