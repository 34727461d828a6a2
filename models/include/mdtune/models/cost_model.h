#pragma once
// Physics-informed cost model: the time of each task of an MD step (search,
// prune, nonbonded, bonded, PME spread/FFT/solve/gather, constraints, update, other) is a
// non-negative linear combination of its work terms — pair counts per SIMD lane
// and thread, atoms per list lifetime, charged atoms x order^3, G log G, ... —
// fitted per hardware by non-negative least squares on the per-task timings the
// trials recorded. The step time is the sum of the tasks. Relative errors are
// minimised (rows weighted by 1 / step time), so small and large systems count
// alike. The interval comes from cross-validated residuals of the step time.
#include <Eigen/Dense>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "mdtune/models/model.h"

namespace mdtune::models {

struct CostTask {
    std::string_view name;  // the TrialResult::timings key
    std::vector<std::string> terms;
};

// The tasks in timing-key order of mdcore's report.
std::span<const CostTask> cost_tasks();
// Work terms of task `t` (index into cost_tasks()) for a point, same order as its names.
Eigen::VectorXd cost_terms(std::size_t t, const Features& f);

// Coefficients of one machine (seconds per unit of each term) and its calibration.
struct CostFit {
    std::vector<Eigen::VectorXd> coefficients;  // per task
    double calibration = 1.0;  // ms per step / (1000 x sum of task timings), median over samples
    double sigma = 0.0;        // cross-validated RMS of log(measured / predicted)
    std::size_t n = 0;

    // Seconds per step of each task, and the calibrated ms per step.
    std::vector<double> task_seconds(const Features& f) const;
    double ms(const Features& f) const;
};

class CostModel : public Model {
public:
    // A hardware needs this many samples for its own coefficients; others use the pooled fit.
    static constexpr std::size_t kMinPerHardware = 8;

    CostModel();
    // The fit used for a hardware id: its own, or the pooled one.
    const CostFit& fit_for(const std::string& hardware_id) const;
    bool has_own_fit(const std::string& hardware_id) const { return per_hardware_.count(hardware_id) > 0; }
    const CostFit& pooled() const { return pooled_; }
    // Log-scale error on a machine outside the training set: measured by leaving
    // each machine out when there are several, else a wide 0.35 (a factor of
    // 1.8 at 90 %): one machine says nothing about another's speed.
    double unseen_sigma() const { return unseen_sigma_; }

protected:
    void do_fit(const std::vector<Sample>& samples) override;
    Prediction do_predict(const Features& f) const override;
    nlohmann::json params_json() const override;
    void load_params(const nlohmann::json& j) override;

private:
    std::map<std::string, CostFit> per_hardware_;
    CostFit pooled_;
    double unseen_sigma_ = 0.35;
};

// The NNLS fit of every task on `samples` (which must carry timings), with the
// calibration; sigma is left 0. Exposed for tests.
CostFit fit_cost(const std::vector<const Sample*>& samples);

}  // namespace mdtune::models
