// The per-task cost model.
#include "mdtune/models/cost_model.h"

#include <algorithm>
#include <cmath>

#include "mdtune/models/nnls.h"
#include "mdtune/models/ridge.h"

namespace mdtune::models {
namespace {

const std::vector<CostTask>& tasks() {
    static const std::vector<CostTask> t{
        {"search", {"outer_pairs/nstlist/threads", "outer_pairs/nstlist", "atoms/nstlist/threads", "atoms/nstlist", "1"}},
        {"prune", {"outer_pairs/nstprune/threads", "outer_pairs/nstprune", "prunes_per_step", "pruning"}},
        {"nonbonded",
         {"lj_pairs_4x4/lane/thread", "lj_pairs_4x8/lane/thread", "lj_pairs_8x4/lane/thread", "lj_pairs_1x1/lane/thread",
          "coul_pairs_4x4/lane/thread", "coul_pairs_4x8/lane/thread", "coul_pairs_8x4/lane/thread",
          "coul_pairs_1x1/lane/thread", "pairs/lane", "atoms/threads", "atoms", "1",
          // --nb gpu: the CPU launches (every mode) and, unless the update is on the
          // GPU too, stages x and waits, with --pme gpu also for the mesh
          "gpu_pairs", "gpu_atoms", "gpu_nonbonded", "gpu_mesh_spread", "gpu_mesh_GlogG"}},
        // A protein's bonds, angles, dihedrals, 1-4 pairs and CMAP (none in fluids and water)
        {"bonded", {"bonded/threads", "bonded", "bonded_present"}},
        {"pme_spread", {"spread/threads", "spread", "grid/threads", "grid", "1"}},
        {"pme_fft", {"GlogG/threads", "GlogG", "1"}},
        {"pme_solve", {"grid/threads", "grid", "1"}},
        {"pme_gather", {"spread/threads", "spread", "1"}},
        // --update gpu: the CPU waits for the whole GPU step in the update's task
        // (constraints when there are SETTLEs, else update); LINCS constraints last
        {"constraints", {"settles/threads", "settles", "1", "gpu_step_pairs", "gpu_step_atoms", "gpu_step_spread",
                         "gpu_step_GlogG", "gpu_step", "lincs/threads", "lincs"}},
        {"update", {"atoms/threads", "atoms", "1", "gpu_step_pairs", "gpu_step_atoms", "gpu_step"}},
        // Communication of a decomposed run lands in "other": halo and PP<->PME volumes, reductions.
        {"other", {"atoms/threads", "atoms", "threads", "1", "halo_atoms/pp_rank", "pme_atoms/pme_rank", "log2_ranks"}},
    };
    return t;
}

double step_seconds(const Sample& s) {
    double sum = 0;
    for (const CostTask& t : tasks()) {
        const auto it = s.timings.find(std::string(t.name));
        if (it != s.timings.end()) sum += it->second;
    }
    return sum;
}

double median(std::vector<double> v) {
    if (v.empty()) return 1.0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

nlohmann::json fit_to_json(const CostFit& f) {
    nlohmann::json coef = nlohmann::json::object();
    for (std::size_t t = 0; t < f.coefficients.size(); ++t)
        coef[std::string(tasks()[t].name)] = vector_to_json(f.coefficients[t]);
    return {{"coefficients", coef}, {"calibration", f.calibration}, {"sigma", f.sigma}, {"n", f.n}};
}

CostFit fit_from_json(const nlohmann::json& j) {
    CostFit f;
    for (const CostTask& t : tasks()) {
        Eigen::VectorXd c = vector_from_json(j.at("coefficients").at(std::string(t.name)));
        if (c.size() != static_cast<Eigen::Index>(t.terms.size()))
            throw ModelError("cost model JSON: task " + std::string(t.name) + " has " + std::to_string(c.size()) +
                             " coefficients, expected " + std::to_string(t.terms.size()));
        f.coefficients.push_back(std::move(c));
    }
    f.calibration = j.at("calibration").get<double>();
    f.sigma = j.at("sigma").get<double>();
    f.n = j.at("n").get<std::size_t>();
    return f;
}

// Cross-validated residual scale (10 interleaved folds, or leave-one-out below 20).
double cv_sigma(const std::vector<const Sample*>& samples) {
    const std::size_t n = samples.size();
    const std::size_t folds = n >= 20 ? 10 : n;
    double sum = 0;
    std::size_t count = 0;
    for (std::size_t k = 0; k < folds; ++k) {
        std::vector<const Sample*> train, test;
        for (std::size_t i = 0; i < n; ++i) (i % folds == k ? test : train).push_back(samples[i]);
        if (train.size() < 2 || test.empty()) continue;
        const CostFit f = fit_cost(train);
        for (const Sample* s : test) {
            const double pred = f.ms(s->features);
            if (!(pred > 0)) continue;
            const double r = std::log(s->ms / pred);
            sum += r * r;
            ++count;
        }
    }
    return count ? std::sqrt(sum / static_cast<double>(count)) : 0.5;
}

}  // namespace

std::span<const CostTask> cost_tasks() { return tasks(); }

Eigen::VectorXd cost_terms(std::size_t t, const Features& f) {
    // "threads" in a term's name: the cores working on that task, all PP ranks' (or
    // the mesh's ranks') threads together; one rank: the run's threads.
    const double T = f.pp_workers(), P = f.pme_workers(), w = f.simd_width, N = f.natoms;
    const double q = f.pme ? 1.0 : 0.0, lj = 1.0 - q;
    // A task on the GPU has no CPU work terms; the CPU's time for it is the launch
    // and the wait, in the task that waits (nonbonded in modes B and C, the update in E).
    const double nb_cpu = 1.0 - f.nb_gpu, mesh_cpu = q * (1.0 - f.pme_gpu), upd_cpu = 1.0 - f.update_gpu;
    const double waits_nb = f.nb_gpu * upd_cpu, mesh_waited_nb = f.pme_gpu * upd_cpu;
    const std::string_view name = tasks().at(t).name;
    Eigen::VectorXd x(static_cast<Eigen::Index>(tasks()[t].terms.size()));
    if (name == "search") {
        x << f.search_work / T, f.search_work, f.search_atoms / T, f.search_atoms, 1.0;
    } else if (name == "prune") {
        const double prunes = f.prune_work > 0 ? 1.0 / f.nstprune : 0.0;
        x << f.prune_work / T, f.prune_work, prunes, f.pruned ? 1.0 : 0.0;
    } else if (name == "nonbonded") {
        const double per_lane = f.pair_work / (T * w);
        const auto shape = [&](int i, int j) { return f.cluster_i == i && f.cluster_j == j ? per_lane : 0.0; };
        x << nb_cpu * lj * shape(4, 4), nb_cpu * lj * shape(4, 8), nb_cpu * lj * shape(8, 4), nb_cpu * lj * shape(1, 1),
            nb_cpu * q * shape(4, 4), nb_cpu * q * shape(4, 8), nb_cpu * q * shape(8, 4), nb_cpu * q * shape(1, 1),
            nb_cpu * f.pair_work / w, nb_cpu * N / T, nb_cpu * N, nb_cpu, waits_nb * f.pair_work, waits_nb * N, f.nb_gpu,
            mesh_waited_nb * f.spread_work, mesh_waited_nb * f.fft_work;
    } else if (name == "bonded") {
        const double B = f.bonded_interactions;
        x << B / T, B, B > 0 ? 1.0 : 0.0;
    } else if (name == "pme_spread") {
        x << mesh_cpu * f.spread_work / P, mesh_cpu * f.spread_work, mesh_cpu * f.solve_work / P, mesh_cpu * f.solve_work,
            mesh_cpu;
    } else if (name == "pme_fft") {
        x << mesh_cpu * f.fft_work / P, mesh_cpu * f.fft_work, mesh_cpu;
    } else if (name == "pme_solve") {
        x << mesh_cpu * f.solve_work / P, mesh_cpu * f.solve_work, mesh_cpu;
    } else if (name == "pme_gather") {
        x << mesh_cpu * f.spread_work / P, mesh_cpu * f.spread_work, mesh_cpu;
    } else if (name == "constraints") {
        const double settled = f.constraints > 0 ? 1.0 : 0.0, gpu = f.update_gpu * settled;
        x << upd_cpu * f.constraints / T, upd_cpu * f.constraints, upd_cpu * settled, gpu * f.pair_work, gpu * N,
            gpu * q * f.spread_work, gpu * q * f.fft_work, gpu, upd_cpu * f.lincs_constraints / T,
            upd_cpu * f.lincs_constraints;
    } else if (name == "update") {
        const double gpu = f.update_gpu * (f.constraints > 0 ? 0.0 : 1.0);
        x << upd_cpu * N / T, upd_cpu * N, upd_cpu, gpu * f.pair_work, gpu * N, gpu;
    } else {  // other
        x << N / T, N, f.threads, 1.0, N / f.pp_ranks * f.halo_fraction, f.pp_pme_atoms, std::log2(f.ranks);
    }
    return x;
}

std::vector<double> CostFit::task_seconds(const Features& f) const {
    std::vector<double> out(coefficients.size());
    for (std::size_t t = 0; t < coefficients.size(); ++t) out[t] = coefficients[t].dot(cost_terms(t, f));
    return out;
}

double CostFit::ms(const Features& f) const {
    double sum = 0;
    for (double s : task_seconds(f)) sum += s;
    return 1000.0 * calibration * sum;
}

CostFit fit_cost(const std::vector<const Sample*>& samples) {
    CostFit fit;
    fit.n = samples.size();
    const auto n = static_cast<Eigen::Index>(samples.size());
    std::vector<double> ratios;
    Eigen::VectorXd weight(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        const double total = step_seconds(*samples[static_cast<std::size_t>(i)]);
        weight(i) = total > 0 ? 1.0 / total : 0.0;
        if (total > 0) ratios.push_back(samples[static_cast<std::size_t>(i)]->ms / (1000.0 * total));
    }
    fit.calibration = median(ratios);
    for (std::size_t t = 0; t < tasks().size(); ++t) {
        const auto p = static_cast<Eigen::Index>(tasks()[t].terms.size());
        Eigen::MatrixXd A(n, p);
        Eigen::VectorXd b(n);
        for (Eigen::Index i = 0; i < n; ++i) {
            const Sample& s = *samples[static_cast<std::size_t>(i)];
            A.row(i) = weight(i) * cost_terms(t, s.features).transpose();
            const auto it = s.timings.find(std::string(tasks()[t].name));
            b(i) = weight(i) * (it != s.timings.end() ? it->second : 0.0);
        }
        fit.coefficients.push_back(nnls(A, b).x);
    }
    return fit;
}

namespace {

// "cost-v5:" and per task its name and terms: "nonbonded(pairs,...);...".
std::string cost_feature_set() {
    std::string s = "cost-v5:";
    for (const CostTask& t : tasks()) {
        s += std::string(t.name) + "(";
        for (std::size_t k = 0; k < t.terms.size(); ++k) s += (k ? "," : "") + t.terms[k];
        s += ");";
    }
    return s;
}

}  // namespace

CostModel::CostModel() : Model(ModelKind::Cost, cost_feature_set()) {}

const CostFit& CostModel::fit_for(const std::string& hardware_id) const {
    const auto it = per_hardware_.find(hardware_id);
    return it != per_hardware_.end() ? it->second : pooled_;
}

void CostModel::do_fit(const std::vector<Sample>& samples) {
    std::vector<const Sample*> usable;
    std::map<std::string, std::vector<const Sample*>> by_hw;
    for (const Sample& s : samples)
        if (step_seconds(s) > 0) {
            usable.push_back(&s);
            by_hw[s.hardware_id].push_back(&s);
        }
    if (usable.size() < 5)
        throw ModelError("cost: need at least 5 samples with per-task timings, got " + std::to_string(usable.size()));
    per_hardware_.clear();
    pooled_ = fit_cost(usable);
    pooled_.sigma = cv_sigma(usable);
    for (const auto& [hw, list] : by_hw) {
        if (list.size() < kMinPerHardware) continue;
        CostFit f = fit_cost(list);
        f.sigma = cv_sigma(list);
        per_hardware_.emplace(hw, std::move(f));
    }
    unseen_sigma_ = std::max(0.35, pooled_.sigma);
    if (by_hw.size() >= 2) {
        // Leave one machine out: the pooled fit of the others predicts it.
        double sum = 0;
        std::size_t count = 0;
        for (const auto& [hw, list] : by_hw) {
            std::vector<const Sample*> others;
            for (const Sample* s : usable)
                if (s->hardware_id != hw) others.push_back(s);
            const CostFit f = fit_cost(others);
            for (const Sample* s : list) {
                const double pred = f.ms(s->features);
                if (!(pred > 0)) continue;
                sum += std::pow(std::log(s->ms / pred), 2);
                ++count;
            }
        }
        if (count) unseen_sigma_ = std::max(pooled_.sigma, std::sqrt(sum / static_cast<double>(count)));
    }
}

Prediction CostModel::do_predict(const Features& f) const {
    const CostFit& fit = fit_for(f.hardware_id);
    const double sigma = domain().hardware.count(f.hardware_id) ? fit.sigma : unseen_sigma_;
    // A config whose terms the fit never saw can come out at zero: never below a microsecond.
    return log_interval(std::max(1e-3, fit.ms(f)), std::max(0.01, sigma));
}

nlohmann::json CostModel::params_json() const {
    nlohmann::json per = nlohmann::json::object();
    for (const auto& [hw, f] : per_hardware_) per[hw] = fit_to_json(f);
    return {{"pooled", fit_to_json(pooled_)}, {"per_hardware", per}, {"unseen_sigma", unseen_sigma_}};
}

void CostModel::load_params(const nlohmann::json& j) {
    pooled_ = fit_from_json(j.at("pooled"));
    unseen_sigma_ = j.at("unseen_sigma").get<double>();
    per_hardware_.clear();
    for (const auto& [hw, f] : j.at("per_hardware").items()) per_hardware_.emplace(hw, fit_from_json(f));
}

}  // namespace mdtune::models
