#include "mdtune/models/mpi_selection.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "mdtune/models/validation.h"


namespace mdtune::models::mpi {
namespace {

bool is_pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

// Centre and half-width of a range, so polynomial terms stay in [-1, 1].
std::pair<double, double> centre(double lo, double hi) { return {0.5 * (lo + hi), std::max(0.5, 0.5 * (hi - lo))}; }

struct Summariser {
    CvSummary s;
    double log_sum = 0, default_log_sum = 0;
    void add(const CvPoint& p) {
        ++s.points;
        if (std::isinf(p.regret)) {
            ++s.failed;
        } else {
            log_sum += std::log(p.regret);
            s.max_regret = std::max(s.max_regret, p.regret);
            if (p.regret <= 1.05) ++s.within5;
        }
        if (p.default_regret) {
            ++s.default_points;
            default_log_sum += std::log(*p.default_regret);
            if (*p.default_regret <= 1.05) ++s.default_within5;
        }
    }
    CvSummary done() {
        const std::size_t finite = s.points - s.failed;
        s.geomean_regret = finite ? std::exp(log_sum / double(finite)) : 1.0;
        s.default_geomean_regret = s.default_points ? std::exp(default_log_sum / double(s.default_points)) : 1.0;
        if (s.failed) s.max_regret = std::numeric_limits<double>::infinity();
        return s;
    }
};

void evaluate_sites(const SelectionModel& model, const std::map<std::pair<Collective, Site>, SiteTable>& table,
                    const std::function<bool(const Site&)>& take, std::vector<CvPoint>& out) {
    for (const auto& [key, t] : table) {
        const auto& [c, site] = key;
        if (!take(site) || t.ok.size() < 2) continue;
        const auto best = t.best();
        const auto choice = model.best(c, site);
        if (!choice) continue;
        const Variant pred = choice->variant;
        CvPoint p;
        p.collective = c;
        p.site = site;
        p.best = best->first;
        p.best_us = best->second;
        p.predicted = pred;
        if (const auto it = t.ok.find(pred); it != t.ok.end()) {
            p.predicted_us = it->second;
            p.regret = it->second / best->second;
        } else if (t.failed.count(pred)) {
            p.regret = std::numeric_limits<double>::infinity();
        } else {
            continue;  // not measured here: no verdict
        }
        if (const auto d = t.ok.find(Variant{}); d != t.ok.end()) p.default_regret = d->second / best->second;
        out.push_back(p);
    }
}

CvReport summarise(CvReport r) {
    Summariser all;
    std::map<Collective, Summariser> per;
    for (const auto& p : r.points) {
        all.add(p);
        per[p.collective].add(p);
    }
    r.overall = all.done();
    for (auto& [c, s] : per) r.per_collective[c] = s.done();
    return r;
}

nlohmann::json summary_json(const CvSummary& s) {
    return {{"points", s.points},
            {"within_5pct", s.within5},
            {"share_within_5pct", s.share_within5()},
            {"failed", s.failed},
            {"geomean_regret", s.geomean_regret},
            {"max_regret", std::isinf(s.max_regret) ? nlohmann::json("inf") : nlohmann::json(s.max_regret)},
            {"default_points", s.default_points},
            {"default_share_within_5pct", s.default_share_within5()},
            {"default_geomean_regret", s.default_geomean_regret}};
}

}  // namespace

std::string variant_label(Collective c, const Variant& v) {
    std::string s = algorithm_name(c, v.algorithm);
    if (v.segsize > 0) s += "/seg " + format_bytes(static_cast<std::uint64_t>(v.segsize));
    return s;
}

std::vector<Observation> observations_from(const std::vector<db::MpiMeasurement>& rows) {
    std::vector<Observation> out;
    for (const auto& m : rows) {
        const auto c = parse_collective(m.collective);
        if (!c) continue;
        Observation o;
        o.collective = *c;
        o.variant = {m.selection == "default" ? 0 : m.algorithm, m.segsize, m.faninout};
        o.site = {m.nodes, m.ppn, static_cast<std::uint64_t>(m.bytes)};
        // The 10th percentile: background load only ever adds time (rows from
        // before it was recorded fall back to the median).
        o.latency_us = m.lat_p10_us > 0 ? m.lat_p10_us : m.lat_median_us;
        o.ok = m.status == "ok" && o.latency_us > 0;
        out.push_back(o);
    }
    return out;
}

// ---- one latency model ------------------------------------------------------

std::string describe(FeatureSet f) {
    if (f == FeatureSet::Poly)
        return "poly: 1 u u^2 u^3 o ou | v v^2 uv u^2v m mu mv p2 p2u; o = ranks per node above cores";
    return "spline: 1 x h6 h10 h14 h18 o ox oh10 oh14 | v v^2 vx vh6 vh10 vh14 vh18 m mx mv p2 p2x; "
           "hk = max(0, log2(bytes) - k), o = ranks per node above cores";
}

std::optional<FeatureSet> parse_feature_set(const std::string& name) {
    if (name == "spline") return FeatureSet::Spline;
    if (name == "poly") return FeatureSet::Poly;
    return std::nullopt;
}

std::size_t LatencyModel::shared_terms() const { return set_ == FeatureSet::Poly ? 6 : 10; }

std::vector<double> LatencyModel::features(const Site& s) const {
    const double xr = std::clamp(std::log2(static_cast<double>(std::max<std::uint64_t>(s.bytes, 1))), x_lo_, x_hi_);
    const auto [qc, qh] = centre(q_lo_, q_hi_);
    const double v = (std::clamp(std::log2(static_cast<double>(s.ppn)), q_lo_, q_hi_) - qc) / qh;
    const double m = std::clamp(std::log2(static_cast<double>(s.nodes)), m_lo_, m_hi_);
    const double p2 = is_pow2(s.ranks()) ? 1.0 : 0.0;
    // Oversubscribed ranks share cores: a different regime (scheduling, not
    // copying, sets small-message latency), not a smooth continuation.
    const double o = cores_ > 0 && s.ppn > cores_ ? 1.0 : 0.0;
    if (set_ == FeatureSet::Poly) {
        const auto [xc, xh] = centre(x_lo_, x_hi_);
        const double u = (xr - xc) / xh;
        return {1.0, u, u * u, u * u * u, o, o * u, v, v * v, u * v, u * u * v, m, m * u, m * v, p2, p2 * u};
    }
    const double x = (xr - 12.0) / 8.0;
    const auto h = [&](double k) { return std::max(0.0, xr - k) / 8.0; };
    const double h6 = h(6), h10 = h(10), h14 = h(14), h18 = h(18);
    return {1.0,    x,      h6,      h10,     h14,     h18,     o,     o * x, o * h10, o * h14, v, v * v,
            v * x,  v * h6, v * h10, v * h14, v * h18, m,       m * x, m * v, p2,      p2 * x};
}

bool LatencyModel::fit(const std::vector<const Observation*>& obs, const FitOptions& opt) {
    fitted_ = false;
    set_ = opt.features;
    cores_ = opt.cores_per_node;
    rows_ = obs.size();
    if (obs.size() < 3 || !(opt.ridge > 0)) return false;
    x_lo_ = q_lo_ = m_lo_ = std::numeric_limits<double>::infinity();
    x_hi_ = q_hi_ = m_hi_ = -std::numeric_limits<double>::infinity();
    for (const auto* o : obs) {
        const double x = std::log2(static_cast<double>(std::max<std::uint64_t>(o->site.bytes, 1)));
        const double q = std::log2(static_cast<double>(o->site.ppn));
        const double m = std::log2(static_cast<double>(o->site.nodes));
        x_lo_ = std::min(x_lo_, x), x_hi_ = std::max(x_hi_, x);
        q_lo_ = std::min(q_lo_, q), q_hi_ = std::max(q_hi_, q);
        m_lo_ = std::min(m_lo_, m), m_hi_ = std::max(m_hi_, m);
    }
    // Log latency on the features after the leading 1 (the solver's intercept).
    const std::size_t n = obs.size();
    const std::size_t k = features(obs[0]->site).size() - 1;
    Eigen::MatrixXd X(n, k);
    Eigen::VectorXd y(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto f = features(obs[i]->site);
        for (std::size_t j = 0; j < k; ++j) X(i, j) = f[j + 1];
        y(i) = std::log(obs[i]->latency_us);
    }
    // The penalty (per unit of row weight) shrinks what depends on the layout
    // towards one shared size curve; the size terms only get a token one
    // (conditioning). Huber reweighting: one run hit by a burst of load, many
    // times slower, must not bend a variant's whole curve (2 % scale floor).
    RidgeOptions ro;
    ro.lambda = opt.ridge;
    ro.lambda_per_weight = true;
    ro.penalty_factor = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(k));
    for (std::size_t j = 0; j + 1 < shared_terms(); ++j) ro.penalty_factor(static_cast<Eigen::Index>(j)) = 1e-6 / opt.ridge;
    ro.huber_passes = std::max(0, opt.robust_passes);
    ro.huber_sigma_floor = 0.02;
    fit_ = fit_ridge(X, y, ro);
    if (!fit_.beta.allFinite() || !std::isfinite(fit_.intercept)) return false;
    fitted_ = true;
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double r = fit_.predict(X.row(static_cast<Eigen::Index>(i)).transpose()) - y(i);
        sum += r * r;
    }
    rms_ = std::sqrt(sum / double(n));
    return true;
}

double LatencyModel::predict_us(const Site& s) const {
    const auto f = features(s);
    return std::exp(fit_.predict(Eigen::Map<const Eigen::VectorXd>(f.data() + 1, static_cast<Eigen::Index>(f.size() - 1))));
}

std::string LatencyModel::to_json() const {
    nlohmann::json j = {{"features", describe(set_)},
                        {"cores_per_node", cores_},
                        {"intercept", fit_.intercept},
                        {"coefficients", vector_to_json(fit_.beta)},  // on standardised features
                        {"mean", vector_to_json(fit_.mean)},
                        {"scale", vector_to_json(fit_.scale)},
                        {"lambda", fit_.lambda},
                        {"log2_bytes_range", {x_lo_, x_hi_}},
                        {"log2_ppn_range", {q_lo_, q_hi_}},
                        {"log2_nodes_range", {m_lo_, m_hi_}},
                        {"rows", rows_},
                        {"rms_log_error", rms_}};
    return j.dump();
}

// ---- the selection ----------------------------------------------------------

namespace {

// Hold out one layout at a time (one size when there are fewer than three
// layouts) and keep the penalty whose choices have the smallest mean log regret,
// the smaller one on ties: clean data gets a light penalty, noisy data smooth
// curves. Failures at a held-out size say nothing about smoothness: left out.
double choose_ridge(const std::vector<Observation>& data, const FitOptions& opt) {
    std::set<std::pair<int, int>> layouts;
    for (const auto& o : data) layouts.insert({o.site.nodes, o.site.ppn});
    const CvGroup group = layouts.size() >= 3 ? CvGroup::Layout : CvGroup::Size;
    double best = kRidgeCandidates[0], best_err = std::numeric_limits<double>::infinity();
    for (const double lambda : kRidgeCandidates) {
        FitOptions f = opt;
        f.ridge = lambda;
        const CvReport cv = cross_validate(data, group, f);
        double err = 0;
        std::size_t n = 0;
        for (const auto& p : cv.points)
            if (std::isfinite(p.regret)) err += std::log(p.regret), ++n;
        if (n == 0) continue;
        err /= double(n);
        if (err < best_err - 1e-9) best_err = err, best = lambda;
    }
    return best;
}

}  // namespace

SelectionModel SelectionModel::fit(const std::vector<Observation>& data, const FitOptions& opt) {
    std::map<Collective, std::vector<const Observation*>> per_collective;
    std::map<std::pair<Collective, Variant>, std::set<int>> failed;
    for (const auto& o : data) {
        if (o.ok) per_collective[o.collective].push_back(&o);
        else failed[{o.collective, o.variant}].insert(o.site.ranks());
    }
    SelectionModel m;
    m.options_ = opt;
    for (const auto& [c, obs] : per_collective) {
        FitOptions f = opt;
        if (f.ridge <= 0) {
            std::vector<Observation> mine;
            for (const auto& o : data)
                if (o.collective == c) mine.push_back(o);
            f.ridge = choose_ridge(mine, opt);
        }
        m.ridge_[c] = f.ridge;
        std::map<Variant, std::vector<const Observation*>> groups;
        for (const auto* o : obs) groups[o->variant].push_back(o);
        for (const auto& [v, rows] : groups) {
            Entry e{c, v, {}, failed[{c, v}]};
            if (e.model.fit(rows, f)) m.entries_.push_back(std::move(e));
        }
    }
    return m;
}

double SelectionModel::ridge(Collective c) const {
    const auto it = ridge_.find(c);
    return it == ridge_.end() ? 0.0 : it->second;
}

std::vector<Prediction> SelectionModel::rank(Collective c, const Site& s) const {
    std::vector<Prediction> out;
    for (const auto& e : entries_) {
        if (e.collective != c || !valid_for_ranks(c, e.variant.algorithm, s.ranks()) ||
            e.invalid_ranks.count(s.ranks()))
            continue;
        out.push_back({e.variant, e.model.predict_us(s)});
    }
    std::sort(out.begin(), out.end(), [](const Prediction& a, const Prediction& b) {
        return a.latency_us != b.latency_us ? a.latency_us < b.latency_us : a.variant < b.variant;
    });
    return out;
}

std::optional<Prediction> SelectionModel::best(Collective c, const Site& s) const {
    const auto r = rank(c, s);
    if (r.empty()) return std::nullopt;
    if (options_.prefer_default > 0)
        for (const auto& p : r)
            if (p.variant.is_default() && p.latency_us <= r.front().latency_us * (1 + options_.prefer_default)) return p;
    return r.front();
}

std::vector<Collective> SelectionModel::collectives() const {
    std::vector<Collective> out;
    for (const auto& e : entries_)
        if (std::find(out.begin(), out.end(), e.collective) == out.end()) out.push_back(e.collective);
    return out;
}

std::size_t SelectionModel::training_rows(Collective c) const {
    std::size_t n = 0;
    for (const auto& e : entries_)
        if (e.collective == c) n += e.model.rows();
    return n;
}

std::string SelectionModel::to_json(Collective c) const {
    nlohmann::json j = {{"ridge", ridge(c)}, {"variants", nlohmann::json::array()}};
    for (const auto& e : entries_) {
        if (e.collective != c) continue;
        j["variants"].push_back({{"algorithm", e.variant.algorithm},
                     {"name", variant_label(c, e.variant)},
                     {"segsize", e.variant.segsize},
                     {"faninout", e.variant.faninout},
                     {"failed_at_ranks", e.invalid_ranks},
                     {"model", nlohmann::json::parse(e.model.to_json())}});
    }
    return j.dump();
}

// ---- validation -------------------------------------------------------------

std::optional<std::pair<Variant, double>> SiteTable::best() const {
    std::optional<std::pair<Variant, double>> b;
    for (const auto& [v, us] : ok)
        if (!b || us < b->second) b = std::make_pair(v, us);
    return b;
}

std::map<std::pair<Collective, Site>, SiteTable> tabulate(const std::vector<Observation>& data) {
    std::map<std::pair<Collective, Site>, SiteTable> t;
    for (const auto& o : data) {
        auto& row = t[{o.collective, o.site}];
        if (o.ok) row.ok[o.variant] = o.latency_us;
        else row.failed.insert(o.variant);
    }
    return t;
}

CvReport cross_validate(const std::vector<Observation>& data, CvGroup group, const FitOptions& opt) {
    // Keys that sort as the numbers do: folds go by layout (nodes, ppn) or by size.
    std::vector<std::string> keys;
    keys.reserve(data.size());
    for (const auto& o : data) {
        char key[48];
        if (group == CvGroup::Layout) std::snprintf(key, sizeof key, "%010d/%010d", o.site.nodes, o.site.ppn);
        else std::snprintf(key, sizeof key, "%020llu", static_cast<unsigned long long>(o.site.bytes));
        keys.emplace_back(key);
    }
    const auto table = tabulate(data);
    CvReport r;
    r.group = group;
    for (const Fold& fold : leave_one_key_out(keys)) {
        if (fold.train.empty()) continue;
        std::vector<Observation> train;
        train.reserve(fold.train.size());
        for (const std::size_t i : fold.train) train.push_back(data[i]);
        std::set<Site> held_out;
        for (const std::size_t i : fold.test) held_out.insert(data[i].site);
        ++r.folds;
        const SelectionModel model = SelectionModel::fit(train, opt);
        evaluate_sites(model, table, [&](const Site& s) { return held_out.count(s) > 0; }, r.points);
    }
    return summarise(std::move(r));
}

CvReport in_sample(const std::vector<Observation>& data, const FitOptions& opt) {
    CvReport r;
    r.folds = 1;
    const SelectionModel model = SelectionModel::fit(data, opt);
    evaluate_sites(model, tabulate(data), [](const Site&) { return true; }, r.points);
    return summarise(std::move(r));
}

std::string CvReport::to_json() const {
    nlohmann::json j = {{"group", group == CvGroup::Layout ? "layout" : "size"},
                        {"folds", folds},
                        {"overall", summary_json(overall)}};
    for (const auto& [c, s] : per_collective) j["per_collective"][std::string(name(c))] = summary_json(s);
    return j.dump();
}

}  // namespace mdtune::models::mpi
