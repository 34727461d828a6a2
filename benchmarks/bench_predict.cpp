// mdtune predict's ranking in-process, before and after resolving configs from
// the system's summary instead of a built stand-in (prediction must answer in milliseconds at any size):
//
//   BM_Predict/<kind>/<natoms>         one iteration = rank_configs for a system never seen by
//                                      the process (a new seed each time, so mdtune's per-system
//                                      caches miss): the summary, feasibility and resolve_config
//                                      of every candidate, features and a kNN prediction each
//   BM_PredictStandIn/<kind>/<natoms>  what the ranking did before: build the generated system
//                                      (mdcore's generator, no relaxation, as the stand-in was)
//                                      and resolve_config each distinct candidate on it (threads
//                                      aside, as its cache did); no model. resolve_config(System)
//                                      now summarises the System first (one O(N) pass, plus the
//                                      update groups of a water box), as it counted classes before
//
// Candidates: the default grid (3 shapes x 4 list lifetimes x 4 PME balances x 2
// threads) on a 2-core AVX2 target. The model is a kNN fitted on invented times
// for 1,500-6,000 atom water boxes; its content does not change the cost.
#include <cmath>
#include <set>
#include <string>

#include "bench_common.h"
#include "mdcore/generators.h"
#include "mdtune/core/feasibility.h"
#include "mdtune/models/knn.h"
#include "mdtune/models/predictor.h"

namespace {

using namespace mdtune;

models::HardwareFeatures target() {
    models::HardwareFeatures hw;
    hw.id = "bench-target";
    hw.cores = 2;
    hw.physical_cores = 2;
    hw.simd_levels = {"none", "avx2"};
    return hw;
}

const models::KnnModel& fitted_model() {
    static const models::KnnModel model = [] {
        const models::HardwareFeatures hw = target();
        std::vector<models::Sample> samples;
        for (long n : {1500L, 3000L, 6000L}) {
            const SystemDescriptor d{mdcore::SystemKind::Water, n, 1};
            const models::SystemModel sys(d);
            for (const Config& c : models::CandidateGrid{}.configs(sys.features(), hw)) {
                if (!infeasible_reason(d, c, hw.caps()).empty()) continue;
                models::Sample s;
                s.hardware_id = hw.id;
                s.system = d;
                s.config = c;
                s.features = models::compute_features(hw, sys.features(), sys.resolve(c, hw));
                s.ms = 1e-6 * (s.features.pair_work + 20 * s.features.search_work + s.features.fft_work) /
                       s.features.threads;
                samples.push_back(std::move(s));
            }
        }
        models::KnnModel m;
        m.fit(samples);
        return m;
    }();
    return model;
}

std::vector<Config> candidates(const SystemDescriptor& d) {
    return models::CandidateGrid{}.configs(models::SystemModel(d).features(), target());
}

void bm_predict(benchmark::State& state, mdcore::SystemKind kind, long natoms) {
    const models::KnnModel& model = fitted_model();
    const models::HardwareFeatures hw = target();
    unsigned long seed = 1000;
    std::size_t ranked = 0;
    for (auto _ : state) {
        const models::Ranking r = models::rank_configs(model, {kind, natoms, ++seed}, hw);
        ranked = r.ranked.size();
        benchmark::DoNotOptimize(r);
    }
    state.SetLabel(std::to_string(ranked) + " feasible candidates");
}

void bm_predict_stand_in(benchmark::State& state, mdcore::SystemKind kind, long natoms) {
    const std::vector<Config> configs = candidates({kind, natoms, 1});
    std::size_t feasible = 0;
    for (auto _ : state) {
        mdcore::System sys;
        if (mdcore::is_water(kind)) {
            mdcore::WaterSpec spec = mdcore::water_spec_of(kind);
            spec.nwater = natoms / 3;
            spec.relax_steps = 0;
            sys = mdcore::make_water_system(spec);
        } else {
            sys = mdcore::make_named_system(kind, natoms, 1);
        }
        feasible = 0;
        std::set<std::string> resolved;  // the stand-in's cache: configs differing only in threads resolved once
        for (const Config& c : configs) {
            Config key = c;
            key.set(Param::Threads, 1L);
            if (!resolved.insert(key.canonical()).second) continue;
            mdcore::RunConfig rc = key.run_config();
            rc.simd = mdcore::SimdLevel::None;
            try {
                benchmark::DoNotOptimize(mdcore::resolve_config(sys, rc, mdcore::RunControl{}));
                ++feasible;
            } catch (const std::invalid_argument&) {
            }
        }
    }
    state.SetLabel(std::to_string(feasible) + " distinct configs of " + std::to_string(configs.size()) +
                   " candidates resolve");
}

void register_all() {
    for (auto [kind, name] : {std::pair{mdcore::SystemKind::Water, "water"}, std::pair{mdcore::SystemKind::Lj, "lj"}})
        for (long n : {6000L, 48000L}) {
            const std::string suffix = std::string("/") + name + "/" + std::to_string(n);
            benchmark::RegisterBenchmark(("BM_Predict" + suffix).c_str(),
                                         [=](benchmark::State& st) { bm_predict(st, kind, n); })
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
            benchmark::RegisterBenchmark(("BM_PredictStandIn" + suffix).c_str(),
                                         [=](benchmark::State& st) { bm_predict_stand_in(st, kind, n); })
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
        }
}

}  // namespace

int main(int argc, char** argv) { return mdbench::run_benchmarks(argc, argv, register_all); }
