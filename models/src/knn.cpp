// k-nearest neighbours on standardised features.
#include "mdtune/models/knn.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "mdtune/models/ridge.h"

namespace mdtune::models {

const std::vector<std::string>& KnnModel::feature_names() {
    static const std::vector<std::string> names{
        "log_natoms", "log_density", "charged_fraction", "rc", "log_nstlist", "cluster_4x4", "cluster_4x8",
        "cluster_8x4", "log_threads", "log_simd_width", "log_cores", "log_cache_per_core", "log_ranks",
        "npme_fraction", "halo_fraction", "nb_gpu", "pme_gpu", "update_gpu", "lincs_per_atom", "bonded_per_atom"};
    return names;
}

KnnModel::KnnModel(int k) : Model(ModelKind::Knn, feature_set_name("knn-v4", feature_names())), k_(k) {}

Eigen::VectorXd KnnModel::feature_vector(const Features& f) {
    const auto is = [&](int i, int j) { return f.cluster_i == i && f.cluster_j == j ? 1.0 : 0.0; };
    Eigen::VectorXd x(20);
    x << std::log(f.natoms), std::log(f.density), f.charged_fraction, f.rc, std::log(f.nstlist), is(4, 4), is(4, 8),
        is(8, 4), std::log(f.threads), std::log(f.simd_width), std::log(f.cores), std::log(f.cache_per_core_mb),
        std::log(f.ranks), f.npme / f.ranks, f.halo_fraction, f.nb_gpu, f.pme_gpu, f.update_gpu,
        f.lincs_constraints / f.natoms, f.bonded_interactions / f.natoms;
    return x;
}

void KnnModel::do_fit(const std::vector<Sample>& samples) {
    if (samples.size() < 2) throw ModelError("knn: need at least 2 samples, got " + std::to_string(samples.size()));
    const auto n = static_cast<Eigen::Index>(samples.size());
    const auto p = static_cast<Eigen::Index>(feature_names().size());
    Eigen::MatrixXd X(n, p);
    target_.resize(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        const Sample& s = samples[static_cast<std::size_t>(i)];
        X.row(i) = feature_vector(s.features).transpose();
        target_(i) = std::log(s.ms / s.features.natoms);
    }
    mean_ = X.colwise().mean().transpose();
    scale_.resize(p);
    for (Eigen::Index j = 0; j < p; ++j) {
        const double sd = std::sqrt((X.col(j).array() - mean_(j)).square().mean());
        scale_(j) = sd > 1e-12 ? sd : 1.0;
    }
    points_ = (X.rowwise() - mean_.transpose()).array().rowwise() / scale_.transpose().array();
}

Prediction KnnModel::do_predict(const Features& f) const {
    const Eigen::VectorXd z = (feature_vector(f) - mean_).cwiseQuotient(scale_);
    const Eigen::Index n = points_.rows();
    std::vector<std::pair<double, Eigen::Index>> dist;
    dist.reserve(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) dist.emplace_back((points_.row(i).transpose() - z).norm(), i);
    const auto k = static_cast<std::size_t>(std::min<Eigen::Index>(k_, n));
    std::partial_sort(dist.begin(), dist.begin() + static_cast<std::ptrdiff_t>(k), dist.end());
    double wsum = 0, mean = 0;
    for (std::size_t m = 0; m < k; ++m) {
        const double w = 1.0 / (dist[m].first + 0.1);  // 0.1: a tenth of a standard deviation
        wsum += w;
        mean += w * target_(dist[m].second);
    }
    mean /= wsum;
    double var = 0;
    for (std::size_t m = 0; m < k; ++m) {
        const double w = 1.0 / (dist[m].first + 0.1);
        var += w * (target_(dist[m].second) - mean) * (target_(dist[m].second) - mean);
    }
    const double spread = k > 1 ? std::sqrt(var / wsum) : 0.5;
    return log_interval(std::exp(mean) * f.natoms, std::max(0.01, spread));
}

nlohmann::json KnnModel::params_json() const {
    return {{"k", k_}, {"mean", vector_to_json(mean_)}, {"scale", vector_to_json(scale_)},
            {"points", matrix_to_json(points_)}, {"target", vector_to_json(target_)}};
}

void KnnModel::load_params(const nlohmann::json& j) {
    k_ = j.at("k").get<int>();
    mean_ = vector_from_json(j.at("mean"));
    scale_ = vector_from_json(j.at("scale"));
    points_ = matrix_from_json(j.at("points"));
    target_ = vector_from_json(j.at("target"));
    const auto p = static_cast<Eigen::Index>(feature_names().size());
    if (k_ < 1 || mean_.size() != p || scale_.size() != p || points_.cols() != p || points_.rows() != target_.size() ||
        points_.rows() < 1)
        throw ModelError("knn model JSON is inconsistent (k, feature count or point count)");
}

}  // namespace mdtune::models
