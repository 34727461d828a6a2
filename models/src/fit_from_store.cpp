#include "mdtune/models/fit_from_store.h"

#include <chrono>

#include "mdtune/core/input_error.h"
#include "mdtune/models/model_lookup.h"
#include "mdtune/models/model_record.h"
#include "mdtune/db/model_store.h"
#include "mdtune/core/build_identity.h"

namespace mdtune::models {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::vector<HeldOutKind> score_every_kind(const std::vector<Sample>& train, const std::vector<Sample>& test) {
    std::vector<HeldOutKind> out;
    for (ModelKind k : kModelKinds) {
        HeldOutKind h;
        h.kind = k;
        auto other = make_model(k);
        try {
            other->fit(train);
            h.scores = evaluate(*other, test);
        } catch (const ModelError& e) {
            h.error = e.what();
        }
        out.push_back(std::move(h));
    }
    return out;
}

}  // namespace

FitResult fit_and_store(const FitRequest& request, const FitLoaded& on_loaded) {
    require_database(request.db);
    db::Store store(request.db);
    FitResult r;
    std::set<long> sizes_seen;
    std::set<std::string> kinds_seen;
    for (Sample& s : load_samples(store)) {
        const bool size_out = request.holdout_natoms.count(s.system.natoms) > 0;
        const bool kind_out = request.holdout_kinds.count(s.system.kind_name()) > 0;
        if (size_out) sizes_seen.insert(s.system.natoms);
        if (kind_out) kinds_seen.insert(s.system.kind_name());
        (size_out || kind_out ? r.test : r.train).push_back(std::move(s));
    }
    for (long n : request.holdout_natoms)
        if (!sizes_seen.count(n))
            throw InputError("--holdout-natoms: no ok trials of " + std::to_string(n) + " atoms in " + request.db);
    for (const std::string& k : request.holdout_kinds)
        if (!kinds_seen.count(k)) throw InputError("--holdout-kinds: no ok trials of kind '" + k + "' in " + request.db);
    require_enough_samples(r.train, request.db);

    std::set<std::string> machines, sizes;
    for (const Sample& s : r.train) {
        machines.insert(s.hardware_id);
        sizes.insert(s.system.kind_name() + ":" + std::to_string(s.system.natoms));
    }
    r.machines = machines.size();
    r.systems = sizes.size();
    if (on_loaded) on_loaded(r);

    const auto t0 = Clock::now();
    r.selection = select_model(r.train, request.kind);
    r.cv_ms = ms_since(t0);
    const auto t1 = Clock::now();
    r.model = make_model(r.selection.chosen);
    r.model->fit(r.train);
    r.fit_ms = ms_since(t1);
    r.model_id = db::ModelStore(store).insert(to_stored_model(*r.model, r.train, r.selection, current_build_id()));
    if (!r.test.empty()) {
        r.holdout = evaluate(*r.model, r.test);
        r.holdout_by_kind = score_every_kind(r.train, r.test);
    }
    return r;
}

}  // namespace mdtune::models
