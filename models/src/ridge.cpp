// The ridge performance model: its features and serialisation (the solver is ridge_solver.cpp).
#include "mdtune/models/ridge.h"

#include <cmath>

namespace mdtune::models {

const std::vector<std::string>& RidgeModel::feature_names() {
    static const std::vector<std::string> names{
        "log_natoms", "log_density", "charged_fraction", "rc", "buffer", "inner_buffer", "log_nstlist",
        "inv_nstlist", "cluster_4x4", "cluster_4x8", "cluster_8x4", "log1p_grid", "log_threads",
        "threads_per_core", "log_simd_width", "log_cores", "log_cache_per_core", "log_pair_per_lane",
        "log1p_search_per_thread", "log1p_prune_per_thread", "log1p_spread_per_thread", "log1p_fft_per_thread",
        "pme_x_log_pair", "pme_x_cluster_4x8", "pme_x_cluster_8x4", "pme_x_log_threads", "log_ranks",
        "npme_fraction", "halo_fraction", "log1p_pme_atoms_per_pme_rank", "nb_gpu", "pme_gpu", "update_gpu",
        "nb_gpu_x_log_pair_per_gpu", "pme_gpu_x_log1p_fft", "update_gpu_x_log_natoms", "log1p_gpu_bandwidth",
        "lincs_per_atom", "bonded_per_atom"};
    return names;
}

RidgeModel::RidgeModel() : Model(ModelKind::Ridge, feature_set_name("ridge-v5", feature_names())) {}

Eigen::VectorXd RidgeModel::feature_vector(const Features& f) {
    const double pme = f.pme ? 1.0 : 0.0;
    const auto is = [&](int i, int j) { return f.cluster_i == i && f.cluster_j == j ? 1.0 : 0.0; };
    // CPU work terms count only for the tasks the CPU runs; the GPU's have their own.
    const double nb_cpu = 1.0 - f.nb_gpu, pme_cpu = 1.0 - f.pme_gpu;
    const double log_pair = nb_cpu * std::log(std::max(1.0, f.pair_work / (f.pp_workers() * f.simd_width)));
    const double log_pair_gpu =
        f.nb_gpu * std::log(std::max(1.0, f.pair_work / std::max(1.0, f.gpu_multiprocessors)));
    Eigen::VectorXd x(39);
    x << std::log(f.natoms), std::log(f.density), f.charged_fraction, f.rc, f.rlist - f.rc, f.rlist_inner - f.rc,
        std::log(f.nstlist), 1.0 / f.nstlist, is(4, 4), is(4, 8), is(8, 4), std::log1p(f.pme_grid_points),
        std::log(f.threads), f.threads / f.cores, std::log(f.simd_width), std::log(f.cores),
        std::log(f.cache_per_core_mb), log_pair, std::log1p(f.search_work / f.pp_workers()),
        std::log1p(f.prune_work / f.pp_workers()), pme_cpu * std::log1p(f.spread_work / f.pme_workers()),
        pme_cpu * std::log1p(f.fft_work / f.pme_workers()), pme * log_pair, pme * is(4, 8), pme * is(8, 4),
        pme * std::log(f.threads), std::log(f.ranks), f.npme / f.ranks, f.halo_fraction, std::log1p(f.pp_pme_atoms),
        f.nb_gpu, f.pme_gpu, f.update_gpu, log_pair_gpu, f.pme_gpu * std::log1p(f.fft_work),
        f.update_gpu * std::log(f.natoms), std::log1p(f.gpu_bandwidth_gbs), f.lincs_constraints / f.natoms,
        f.bonded_interactions / f.natoms;
    return x;
}

void RidgeModel::do_fit(const std::vector<Sample>& samples) {
    if (samples.size() < 5)
        throw ModelError("ridge: need at least 5 samples, got " + std::to_string(samples.size()));
    Eigen::MatrixXd X(static_cast<Eigen::Index>(samples.size()), static_cast<Eigen::Index>(feature_names().size()));
    Eigen::VectorXd y(X.rows());
    for (std::size_t i = 0; i < samples.size(); ++i) {
        X.row(static_cast<Eigen::Index>(i)) = feature_vector(samples[i].features).transpose();
        y(static_cast<Eigen::Index>(i)) = std::log(samples[i].ms);
    }
    fit_ = fit_ridge(X, y);
}

Prediction RidgeModel::do_predict(const Features& f) const {
    const Eigen::VectorXd x = feature_vector(f);
    // Floor: no timing is repeatable to better than about 1 %.
    const double sigma = std::max(0.01, fit_.sigma_loo) * std::sqrt(1.0 + fit_.leverage_of(x));
    return log_interval(std::exp(fit_.predict(x)), sigma);
}

nlohmann::json vector_to_json(const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

Eigen::VectorXd vector_from_json(const nlohmann::json& j) {
    const auto v = j.get<std::vector<double>>();
    return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

nlohmann::json matrix_to_json(const Eigen::MatrixXd& m) {
    nlohmann::json rows = nlohmann::json::array();
    for (Eigen::Index i = 0; i < m.rows(); ++i) rows.push_back(vector_to_json(m.row(i).transpose()));
    return rows;
}

Eigen::MatrixXd matrix_from_json(const nlohmann::json& j) {
    const Eigen::Index rows = static_cast<Eigen::Index>(j.size());
    const Eigen::Index cols = rows ? static_cast<Eigen::Index>(j.at(0).size()) : 0;
    Eigen::MatrixXd m(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i) {
        const Eigen::VectorXd r = vector_from_json(j.at(static_cast<std::size_t>(i)));
        if (r.size() != cols) throw ModelError("matrix rows of different lengths in model JSON");
        m.row(i) = r.transpose();
    }
    return m;
}

nlohmann::json RidgeModel::params_json() const {
    return {{"mean", vector_to_json(fit_.mean)},   {"scale", vector_to_json(fit_.scale)},
            {"beta", vector_to_json(fit_.beta)},   {"intercept", fit_.intercept},
            {"lambda", fit_.lambda},               {"sigma_loo", fit_.sigma_loo},
            {"leverage", matrix_to_json(fit_.leverage)}, {"n", fit_.n}};
}

void RidgeModel::load_params(const nlohmann::json& j) {
    RidgeFit f;
    f.mean = vector_from_json(j.at("mean"));
    f.scale = vector_from_json(j.at("scale"));
    f.beta = vector_from_json(j.at("beta"));
    f.intercept = j.at("intercept").get<double>();
    f.lambda = j.at("lambda").get<double>();
    f.sigma_loo = j.at("sigma_loo").get<double>();
    f.leverage = matrix_from_json(j.at("leverage"));
    f.n = j.at("n").get<std::size_t>();
    const auto p = static_cast<Eigen::Index>(feature_names().size());
    if (f.mean.size() != p || f.scale.size() != p || f.beta.size() != p || f.leverage.rows() != p ||
        f.leverage.cols() != p)
        throw ModelError("ridge model JSON has " + std::to_string(f.beta.size()) + " coefficients, expected " +
                         std::to_string(p));
    fit_ = std::move(f);
}

}  // namespace mdtune::models
