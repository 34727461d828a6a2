#pragma once
// Learning which Open MPI algorithm to use: one ridge regression of log latency
// per (collective, algorithm variant) on features of (nodes, ranks per node,
// message size), fitted by the models' ridge solver (fit_ridge, with row weights
// for Huber reweighting and a per-column penalty) and validated by its grouped
// cross-validation (leave_one_key_out); the predicted best is the argmin over the variants valid for
// the communicator. Judged by regret — the measured latency of the predicted
// variant over the measured best — on layouts (or sizes) held out of the fit.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mdtune/models/mpi_catalog.h"
#include "mdtune/db/mpi_store.h"
#include "mdtune/models/ridge.h"

namespace mdtune::models::mpi {

// One way of running a collective: a coll_tuned algorithm and its parameters.
struct Variant {
    int algorithm = 0;  // 0: Open MPI's own (fixed) decision
    long segsize = 0;
    int faninout = 0;
    auto operator<=>(const Variant&) const = default;
    bool is_default() const { return algorithm == 0; }
};
std::string variant_label(Collective c, const Variant& v);  // "binomial", "binomial/seg 64 KiB", "default"

// Where a collective runs: the layout and the message size (mdtune's convention).
struct Site {
    int nodes = 1;
    int ppn = 1;
    std::uint64_t bytes = 0;
    int ranks() const { return nodes * ppn; }
    auto operator<=>(const Site&) const = default;
};

struct Observation {
    Collective collective = Collective::Allreduce;
    Variant variant;
    Site site;
    double latency_us = 0;  // 10th percentile over iterations of the slowest rank
    bool ok = true;         // false: the variant failed or gave a wrong result here
};

// Rows of the database as observations (unknown collectives are skipped).
std::vector<Observation> observations_from(const std::vector<db::MpiMeasurement>& rows);

// Features of log latency. Spline: linear in x = log2(bytes) with hinges at 64 B,
// 1 KiB, 16 KiB and 256 KiB (eager/rendezvous and cache changes bend the curve),
// their slopes varying with the layout. Poly: a cubic in x times a quadratic in q.
enum class FeatureSet { Spline, Poly };
std::string describe(FeatureSet f);
std::optional<FeatureSet> parse_feature_set(const std::string& name);

inline constexpr double kRidgeCandidates[] = {0.001, 0.01, 0.1, 1.0, 3.0, 10.0};

struct FitOptions {
    FeatureSet features = FeatureSet::Spline;
    // Penalty per training row on the standardised features that depend on the
    // layout (the size-only terms are left free); 0 = chosen per collective
    // by grouped cross-validation on the training data from kRidgeCandidates
    // (noisy measurements want smooth curves, clean ones a light touch).
    double ridge = 0.0;
    // Keep Open MPI's default unless another variant is predicted faster by more
    // than this fraction: a near-tie is noise, and the default is the safe bet.
    double prefer_default = 0.05;
    int robust_passes = 3;  // Huber reweighting passes after the plain ridge fit (0: plain)
    int cores_per_node = 0;  // to tell oversubscribed layouts apart; 0 = unknown (no such feature)
};

class LatencyModel {
public:
    // False (and unusable) with fewer than 3 observations.
    bool fit(const std::vector<const Observation*>& obs, const FitOptions& opt);
    bool fitted() const { return fitted_; }
    double predict_us(const Site& s) const;
    std::size_t rows() const { return rows_; }
    double rms_log_error() const { return rms_; }  // on the training rows
    std::string to_json() const;

private:
    std::vector<double> features(const Site& s) const;
    std::size_t shared_terms() const;  // the leading features: size and oversubscription only
    FeatureSet set_ = FeatureSet::Spline;
    int cores_ = 0;
    RidgeFit fit_;  // on features()[1...]: the solver keeps the intercept
    bool fitted_ = false;
    double x_lo_ = 0, x_hi_ = 0, q_lo_ = 0, q_hi_ = 0, m_lo_ = 0, m_hi_ = 0, rms_ = 0;
    std::size_t rows_ = 0;
};

struct Prediction {
    Variant variant;
    double latency_us = 0;
};

class SelectionModel {
public:
    static SelectionModel fit(const std::vector<Observation>& data, const FitOptions& opt = {});
    // Variants that may run at this site (static validity, not seen failing at
    // this communicator size, fitted), fastest predicted first.
    std::vector<Prediction> rank(Collective c, const Site& s) const;
    // The choice: the fastest predicted, or the default within prefer_default of it.
    std::optional<Prediction> best(Collective c, const Site& s) const;
    std::vector<Collective> collectives() const;
    std::size_t training_rows(Collective c) const;
    std::string to_json(Collective c) const;  // every variant's model
    double ridge(Collective c) const;          // the penalty used (chosen when FitOptions::ridge is 0)

private:
    struct Entry {
        Collective collective;
        Variant variant;
        LatencyModel model;
        std::set<int> invalid_ranks;  // communicator sizes where it failed
    };
    std::vector<Entry> entries_;
    FitOptions options_;
    std::map<Collective, double> ridge_;
};

enum class CvGroup { Layout, Size };  // hold out one (nodes, ppn) at a time, or one message size

struct CvPoint {
    Collective collective = Collective::Allreduce;
    Site site;
    Variant best, predicted;
    double best_us = 0, predicted_us = 0;  // measured
    double regret = 1;                     // predicted_us / best_us; infinity when the prediction fails there
    std::optional<double> default_regret;  // Open MPI's default, when measured
};

struct CvSummary {
    std::size_t points = 0, within5 = 0, failed = 0;
    double geomean_regret = 1, max_regret = 1;
    std::size_t default_points = 0, default_within5 = 0;
    double default_geomean_regret = 1;
    double share_within5() const { return points ? double(within5) / double(points) : 0; }
    double default_share_within5() const { return default_points ? double(default_within5) / double(default_points) : 0; }
};

struct CvReport {
    CvGroup group = CvGroup::Layout;
    std::size_t folds = 0;
    std::vector<CvPoint> points;
    CvSummary overall;
    std::map<Collective, CvSummary> per_collective;
    std::string to_json() const;
};

// Leave-one-group-out: every point of the held-out group is predicted by models
// fitted without that group. Sites where fewer than two variants ran are skipped.
CvReport cross_validate(const std::vector<Observation>& data, CvGroup group, const FitOptions& opt = {});
// The same numbers with the models fitted on everything (an optimistic bound).
CvReport in_sample(const std::vector<Observation>& data, const FitOptions& opt = {});

// Measured latencies per site, for tables.
struct SiteTable {
    std::map<Variant, double> ok;
    std::set<Variant> failed;
    std::optional<std::pair<Variant, double>> best() const;
};
std::map<std::pair<Collective, Site>, SiteTable> tabulate(const std::vector<Observation>& data);

}  // namespace mdtune::models::mpi
