#include "mdtune/tuner/tune.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "mdcore/tunables.h"
#include "mdtune/models/dataset.h"
#include "mdtune/tuner/model_guided.h"
#include "mdtune/models/model_lookup.h"
#include "mdtune/models/model_record.h"
#include "mdtune/models/selection.h"

namespace mdtune::tuner {

namespace {

std::string config_text(const Config& c) { return c.canonical().empty() ? "(defaults)" : c.canonical(); }

// Steps for about `target_ms` of measured time per repeat at the predicted speed.
long auto_steps(double predicted_ms, double target_ms) {
    const double steps = std::clamp(target_ms / std::max(1e-3, predicted_ms), 100.0, 5000.0);
    return static_cast<long>(std::round(steps / 50.0) * 50.0);
}

// The stored model, or one fitted now from what the database holds (and kept).
models::LoadedModel model_for(db::Store& store, std::optional<models::ModelKind> kind, TunePlan& plan) {
    if (auto loaded = models::latest_model(store, kind)) return std::move(*loaded);
    const auto samples = models::load_samples(store);
    models::require_enough_samples(samples, store.path());
    const models::Selection sel = models::select_model(samples, kind);
    auto model = models::make_model(sel.chosen);
    model->fit(samples);
    db::StoredModel row = models::to_stored_model(*model, samples, sel, current_build_id());
    row.id = db::ModelStore(store).insert(row);
    plan.model_fitted_now = true;
    plan.training_trials = samples.size();
    return models::LoadedModel{row, std::move(model)};
}

MeasureSettings measure_for(const TuneRequest& request, const models::Ranking& r) {
    MeasureSettings m;
    m.steps = request.steps.value_or(auto_steps(r.ranked[0].prediction.ms, 2000.0));
    m.warmup = std::max(5L, m.steps / 5);
    m.repeats = request.repeats;
    double slowest_ms = r.ranked[0].prediction.hi;
    for (const auto& c : r.ranked) slowest_ms = std::max(slowest_ms, c.prediction.hi);
    if (r.default_config) slowest_ms = std::max(slowest_ms, r.default_config->prediction.hi);
    // Set-up (water relaxes for 300 steps) plus the run, with a wide margin.
    m.timeout_s =
        std::max(60.0, 10.0 * (m.steps + 300) * std::min(slowest_ms, 10.0 * r.ranked[0].prediction.hi) / 1000.0);
    return m;
}

// The space a tune records as its sweep's source: the system, the measure settings and the candidates.
SearchSpace space_of(const TuneRequest& request, const TunePlan& plan) {
    SearchSpace space;
    space.source = "mdtune tune";
    space.systems = {request.system};
    space.measure = plan.measure;
    const MeasureSettings& m = plan.measure;
    std::ostringstream text;
    text << "# mdtune tune: model #" << plan.model_id << " (" << plan.model_kind << ") top " << plan.candidates.size()
         << "\n[system]\n";
    if (request.system.from_files()) {
        text << "gro = \"" << request.system.gro << "\"\ntop = \"" << request.system.top << "\"\n";
        if (!request.system.mdp.empty()) text << "mdp = \"" << request.system.mdp << "\"\n";
    } else {
        text << "kind = \"" << request.system.kind_name() << "\"\nnatoms = [" << request.system.natoms << "]\n";
    }
    text << "[measure]\nsteps = " << m.steps << "\nwarmup = " << m.warmup << "\nrepeats = " << m.repeats
         << "\ntimeout_s = " << m.timeout_s << "\n";
    for (const Config& c : plan.candidates) text << "# candidate " << config_text(c) << "\n";
    space.text = text.str();
    return space;
}

std::vector<VerifiedConfig> verified_configs(const db::Store& store, long sweep_id, const models::Ranking& r) {
    std::map<std::string, const models::RankedConfig*> predicted;
    for (const auto& c : r.ranked) predicted[c.config.canonical()] = &c;
    if (r.default_config) predicted[""] = &*r.default_config;
    db::TrialFilter mine;
    mine.sweep_id = sweep_id;
    std::vector<VerifiedConfig> out;
    for (const db::StoredTrial& t : store.trials(mine)) {
        const auto p = predicted.find(t.config.canonical());
        if (p != predicted.end()) out.push_back({t.config, p->second->prediction, t.result});
    }
    return out;
}

}  // namespace

std::string resolved_settings(const mdcore::EffectiveConfig& effective) {
    std::string text;
    for (const mdcore::TunableInfo& t : mdcore::tunables())
        text += std::string(t.name) + "=" + mdcore::format_tunable(t.used(effective)) + ";";
    return text;
}

TuneResult tune_system(const TuneRequest& request, db::Store& store, Runner& runner, const SweepContext& ctx,
                       const models::HardwareFeatures& hardware, const TuneEvents& events) {
    TuneResult out;
    TunePlan& plan = out.plan;
    const models::LoadedModel loaded = model_for(store, request.kind, plan);
    plan.model_id = loaded.row.id;
    plan.model_kind = loaded.row.kind;

    db::TrialFilter f;  // Ok and Invalid runs of this kind here decide which configs break the drift target
    f.hardware_id = hardware.id;
    f.system_kind = request.system.kind_name();
    const models::Ranking r = models::rank_configs(*loaded.model, request.system, hardware, request.grid,
                                   models::invalid_configs(store.trials(f), hardware.id, request.system.kind));
    if (r.ranked.empty())
        throw std::runtime_error("no feasible configuration for " + request.system.canonical() + " on this machine");
    const std::size_t budget = std::max<std::size_t>(2, request.budget.value_or(request.top + 1));
    const std::size_t k = std::min({request.top, r.ranked.size(), budget - 1});
    // The top k that run with settings of their own: a prediction that resolves to the
    // default's settings (or an earlier candidate's) would be measured twice.
    std::set<std::string> settings;
    if (r.default_config) settings.insert(resolved_settings(r.default_config->effective));
    for (std::size_t i = 0; i < r.ranked.size() && plan.candidates.size() < k; ++i)
        if (settings.insert(resolved_settings(r.ranked[i].effective)).second) plan.candidates.push_back(r.ranked[i].config);
    plan.measure = measure_for(request, r);
    if (events.planned) events.planned(plan);

    const SearchSpace space = space_of(request, plan);
    auto strategy = make_model_guided(request.system, plan.candidates, plan.measure);
    auto stop = stop_after_trials(budget);
    SweepContext online = ctx;
    online.rounds.stop_when_decided = request.stop_when_decided;
    online.rounds.confidence = ctx.confidence;
    online.max_group = std::max(ctx.max_group, plan.candidates.size() + 1);  // one group: all in every round
    const auto start = std::chrono::steady_clock::now();
    out.summary = run_sweep(space, store, runner, *strategy, online, "tune " + request.system.canonical(), stop.get(),
                            events.progress ? events.progress : [](const SweepProgress&) {});
    out.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.verified = verified_configs(store, out.summary.sweep_id, r);
    const models::SystemModel sys(request.system);
    out.system_features = sys.features();
    if (const auto& best = out.summary.systems.at(0).best) out.best_effective = sys.resolve(best->proposal.config, hardware);
    return out;
}

}  // namespace mdtune::tuner
