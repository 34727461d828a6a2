// Leave-one-group-out cross-validation and the scores.
#include "mdtune/models/validation.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <set>

#include "mdtune/models/statistics.h"

namespace mdtune::models {

std::string_view to_string(Grouping g) {
    switch (g) {
        case Grouping::BySize: return "size";
        case Grouping::ByHardware: return "hardware";
        case Grouping::ByTunable: return "tunable";
    }
    return "?";
}

std::string size_bucket(double natoms) {
    const long lo = 1L << static_cast<int>(std::floor(std::log2(std::max(1.0, natoms))));
    return std::to_string(lo) + "-" + std::to_string(2 * lo - 1);
}

std::string group_of(const Sample& s, Grouping g) {
    return g == Grouping::BySize ? size_bucket(s.features.natoms) : s.hardware_id;
}

std::vector<Fold> leave_one_key_out(const std::vector<std::string>& keys,
                                    const std::function<bool(const std::string&, const std::string&)>& before) {
    std::map<std::string, std::vector<std::size_t>> members;
    std::vector<std::string> order;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (!members.count(keys[i])) order.push_back(keys[i]);
        members[keys[i]].push_back(i);
    }
    if (before) std::sort(order.begin(), order.end(), before);
    else std::sort(order.begin(), order.end());
    std::vector<Fold> folds;
    for (const std::string& key : order) {
        Fold f;
        f.group = key;
        f.test = members[key];
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] != key) f.train.push_back(i);
        folds.push_back(std::move(f));
    }
    return folds;
}

std::vector<Fold> leave_one_group_out(const std::vector<Sample>& samples, Grouping g) {
    if (g == Grouping::ByTunable) return leave_one_value_out(samples);
    std::vector<std::string> keys;
    keys.reserve(samples.size());
    for (const Sample& s : samples) keys.push_back(group_of(s, g));
    if (g == Grouping::ByHardware) return leave_one_key_out(keys);
    // Size buckets by size, not by text.
    return leave_one_key_out(keys, [](const std::string& a, const std::string& b) { return std::stol(a) < std::stol(b); });
}

std::vector<Fold> leave_one_value_out(const std::vector<Sample>& samples) {
    // The effective values mdcore ran (a default config ran some value too).
    const std::vector<std::pair<std::string, std::function<std::string(const Sample&)>>> settings{
        {"cluster", [](const Sample& s) { return s.features.cluster(); }},
        {"nstlist", [](const Sample& s) { return std::to_string(static_cast<long>(s.features.nstlist)); }},
        {"threads", [](const Sample& s) { return std::to_string(static_cast<long>(s.features.threads)); }},
        {"pme_scale", [](const Sample& s) {
             const ParamValue* v = s.config.get(Param::PmeScale);
             return s.features.pme ? mdtune::to_string(v ? *v : ParamValue{1.0}) : std::string("-");
         }}};
    std::vector<Fold> folds;
    for (const auto& [name, value_of] : settings) {
        std::vector<std::string> keys;
        keys.reserve(samples.size());
        for (const Sample& s : samples) keys.push_back(name + "=" + value_of(s));
        auto setting_folds = leave_one_key_out(keys);
        if (setting_folds.size() < 2) continue;  // no spread: nothing to hold out
        folds.insert(folds.end(), std::make_move_iterator(setting_folds.begin()),
                     std::make_move_iterator(setting_folds.end()));
    }
    return folds;
}

double median_of(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

namespace {

constexpr double kRegretConfidence = 0.95;

void summarise_regrets(Scores& s) {
    std::vector<double> r;
    s.regrets_within_noise = 0;
    for (const auto& x : s.regrets) {
        r.push_back(x.regret);
        s.regrets_within_noise += x.within_noise() ? 1 : 0;
    }
    s.regret_median = median_of(r);
    s.regret_max = r.empty() ? 0.0 : *std::max_element(r.begin(), r.end());
}

struct Scored {
    const Sample* sample;
    Prediction pred;
};

// The measured time of the config the model ranks first, per (hardware, system)
// with 2 or more configs among `choices`, against the best measured there.
std::vector<SystemRegret> regrets_of(const std::vector<Scored>& choices) {
    std::map<std::string, std::vector<const Scored*>> by_system;
    for (const Scored& p : choices) by_system[p.sample->hardware_id + "|" + p.sample->system.canonical()].push_back(&p);
    std::vector<SystemRegret> out;
    for (const auto& [key, list] : by_system) {
        if (list.size() < 2) continue;
        const auto pick = std::min_element(list.begin(), list.end(), [](const Scored* a, const Scored* b) {
            return ranks_before(a->pred, b->pred);
        });
        // Configs measured in rounds rank by their median ratio to the rounds' default,
        // which a drift of the machine between rounds leaves alone.
        const bool by_ratio = std::all_of(list.begin(), list.end(), [](const Scored* p) {
            return p->sample->ratios.size() >= 2;
        });
        auto score = [by_ratio](const Scored* p) { return by_ratio ? stats::median(p->sample->ratios) : p->sample->ms; };
        const auto best = std::min_element(list.begin(), list.end(),
                                           [&](const Scored* a, const Scored* b) { return score(a) < score(b); });
        SystemRegret r;
        r.hardware_id = (*pick)->sample->hardware_id;
        r.system = (*pick)->sample->system;
        r.configs = list.size();
        r.predicted_config = (*pick)->sample->config.canonical();
        r.best_config = (*best)->sample->config.canonical();
        r.predicted_ms = (*pick)->sample->ms;
        r.best_ms = (*best)->sample->ms;
        r.by_ratio = by_ratio;
        if (by_ratio) {
            r.predicted_ratio = score(*pick);
            r.best_ratio = score(*best);
        }
        if (!by_ratio) {
            r.regret = r.predicted_ms / r.best_ms - 1.0;
            r.regret_lo = r.regret_hi = std::numeric_limits<double>::quiet_NaN();
        } else if (*pick != *best) {
            const stats::Interval q =
                stats::bootstrap_median_ratio((*pick)->sample->ratios, (*best)->sample->ratios, kRegretConfidence);
            r.regret = q.estimate - 1.0;
            r.regret_lo = q.lo - 1.0;
            r.regret_hi = q.hi - 1.0;
        }
        out.push_back(std::move(r));
    }
    return out;
}

// Errors of the predictions in `points`, regrets over `regrets`.
Scores score(const std::vector<Scored>& points, std::vector<SystemRegret> regrets) {
    Scores s;
    s.n = points.size();
    double ape = 0;
    std::size_t inside = 0;
    for (const Scored& p : points) {
        ape += std::abs(p.pred.ms - p.sample->ms) / p.sample->ms;
        inside += p.sample->ms >= p.pred.lo && p.sample->ms <= p.pred.hi;
    }
    s.mape = s.n ? ape / static_cast<double>(s.n) : 0.0;
    s.coverage = s.n ? static_cast<double>(inside) / static_cast<double>(s.n) : 0.0;
    s.regrets = std::move(regrets);
    summarise_regrets(s);
    return s;
}

Scores score(const std::vector<Scored>& points) { return score(points, regrets_of(points)); }

// What the fold's model chooses among: the held-out samples, or with a tunable
// value held out every sample of the systems they belong to.
std::vector<Scored> choices_of(const Model& model, const std::vector<Sample>& samples, const Fold& fold,
                               const std::vector<Scored>& test, Grouping g) {
    if (g != Grouping::ByTunable) return test;
    std::set<std::string> systems;
    for (std::size_t i : fold.test) systems.insert(samples[i].hardware_id + "|" + samples[i].system.canonical());
    std::vector<Scored> out;
    for (const Sample& s : samples)
        if (systems.count(s.hardware_id + "|" + s.system.canonical())) out.push_back({&s, model.predict(s.features)});
    return out;
}

nlohmann::json scores_json(const Scores& s) {
    nlohmann::json regrets = nlohmann::json::array();
    for (const auto& r : s.regrets)
        regrets.push_back({{"hardware", r.hardware_id}, {"system", r.system.canonical()}, {"configs", r.configs},
                           {"predicted", r.predicted_config}, {"best", r.best_config},
                           {"predicted_ms", r.predicted_ms}, {"best_ms", r.best_ms}, {"regret", r.regret},
                           {"by_ratio", r.by_ratio}});
    return {{"n", s.n},
            {"mape", s.mape},
            {"coverage", s.coverage},
            {"regret_median", s.regret_median},
            {"regret_max", s.regret_max},
            {"regrets", regrets}};
}

}  // namespace

Scores evaluate(const Model& model, const std::vector<Sample>& test) {
    std::vector<Scored> points;
    points.reserve(test.size());
    for (const Sample& s : test) points.push_back({&s, model.predict(s.features)});
    return score(points);
}

CvResult cross_validate(ModelKind kind, const std::vector<Sample>& samples, Grouping g) {
    CvResult cv;
    cv.kind = kind;
    cv.grouping = g;
    std::vector<Scored> all;
    std::vector<SystemRegret> fold_regrets;
    std::vector<Sample> train;
    for (const Fold& fold : leave_one_group_out(samples, g)) {
        GroupResult gr;
        gr.group = fold.group;
        gr.train_n = fold.train.size();
        train.clear();
        for (std::size_t i : fold.train) train.push_back(samples[i]);
        auto model = make_model(kind);
        try {
            model->fit(train);
        } catch (const ModelError& e) {
            gr.skipped = e.what();
            cv.groups.push_back(std::move(gr));
            continue;
        }
        std::vector<Scored> points;
        for (std::size_t i : fold.test) points.push_back({&samples[i], model->predict(samples[i].features)});
        gr.scores = score(points, regrets_of(choices_of(*model, samples, fold, points, g)));
        fold_regrets.insert(fold_regrets.end(), gr.scores.regrets.begin(), gr.scores.regrets.end());
        all.insert(all.end(), points.begin(), points.end());
        cv.groups.push_back(std::move(gr));
    }
    // A system lies in one size or hardware group, but in one fold per held-out setting value.
    cv.overall = g == Grouping::ByTunable ? score(all, std::move(fold_regrets)) : score(all);
    return cv;
}

nlohmann::json to_json(const CvResult& cv) {
    nlohmann::json groups = nlohmann::json::array();
    for (const GroupResult& g : cv.groups) {
        nlohmann::json j{{"group", g.group}, {"train_n", g.train_n}};
        if (!g.skipped.empty()) j["skipped"] = g.skipped;
        else j["scores"] = scores_json(g.scores);
        groups.push_back(std::move(j));
    }
    return {{"kind", std::string(to_string(cv.kind))},
            {"grouping", std::string(to_string(cv.grouping))},
            {"groups", groups},
            {"overall", scores_json(cv.overall)}};
}

}  // namespace mdtune::models
