#pragma once
// Non-negative least squares: min |A x - b| subject to x >= 0 (Lawson & Hanson,
// "Solving Least Squares Problems", 1974, ch. 23 — the active-set algorithm).
#include <Eigen/Dense>

namespace mdtune::models {

struct NnlsResult {
    Eigen::VectorXd x;
    int iterations = 0;
    bool converged = true;  // false when the iteration cap stopped it
};

// max_iterations 0: 3 x columns, Lawson-Hanson's own bound in practice.
NnlsResult nnls(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, int max_iterations = 0);

}  // namespace mdtune::models
