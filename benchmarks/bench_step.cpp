// One whole MD step on a small SPC/E water box, the way `mdcore run` steps it with
// the default RunConfig (Verlet-buffer rlist, nstlist 20, dual list pruned every
// 10 steps, PME, SETTLE):
//
//   BM_Step/water/<natoms>/threads:<t>   one iteration = one pair-list lifetime (nstlist steps):
//                                        search, prunes, nonbonded + PME forces every step, leap-frog
//                                        + SETTLE, energies on the cycle's first step
//
// A whole cycle per iteration keeps every iteration the same mix of work (a
// single step would be a search step or not). The trajectory continues across
// iterations (NVE); each repetition restarts from the same box, so instruction
// counts are reproducible.
// Counters: ns/day, steps/s, atoms/s (atom-steps per second).
// Sizes: $MDT_BENCH_WATER_SIZES (default 3000 atoms = 1000 waters).
#include <string>

#include "bench_water.h"

namespace {

using mdcore::EnergyOutput;

void bm_step(benchmark::State& state, long natoms, int threads) {
    try {
        const mdcore::System& sys = mdbench::water_box(natoms);
        mdcore::RunConfig rc;
        rc.threads = threads;
        mdcore::RunControl control;
        control.steps = 0;
        auto system = std::make_unique<mdcore::System>(sys);
        const mdcore::EffectiveConfig cfg = mdcore::resolve_config(*system, rc, control);
        mdcore::MdRunner md(*system, cfg);
        const bool dual = md.dual_list();
        for (auto _ : state) {
            for (int k = 0; k < cfg.nstlist; ++k) {
                if (k == 0) md.search();
                else if (dual && k % cfg.nstprune == 0) md.prune();
                const mdcore::ForceEnergies e = md.compute_forces(k == 0 ? EnergyOutput::Yes : EnergyOutput::No);
                benchmark::DoNotOptimize(e);
                benchmark::DoNotOptimize(md.update(cfg.dt, 1.0));
            }
        }
        const double per_iteration = cfg.nstlist;
        state.counters["steps/s"] = mdbench::rate(per_iteration);
        state.counters["atoms/s"] = mdbench::rate(per_iteration * static_cast<double>(natoms));
        // ns simulated per day of wall time: steps * dt (ps) / 1000 per second, * 86400.
        state.counters["ns/day"] = benchmark::Counter(per_iteration * cfg.dt * 1e-3 * 86400.0,
                                                      benchmark::Counter::kIsIterationInvariantRate);
        char label[160];
        std::snprintf(label, sizeof label, "SPC/E %s/%s nstlist %d/%d rlist %.3f grid %dx%dx%d",
                      mdbench::str(to_string(cfg.cluster)).c_str(), mdbench::str(to_string(cfg.simd)).c_str(),
                      cfg.nstlist, cfg.nstprune, cfg.rlist, cfg.pme_grid[0], cfg.pme_grid[1], cfg.pme_grid[2]);
        state.SetLabel(label);
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

void register_all() {
    for (long n : mdbench::water_sizes())
        for (int threads : {1, 2}) {
            const std::string name = "BM_Step/water/" + std::to_string(n) + "/threads:" + std::to_string(threads);
            benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) { bm_step(st, n, threads); })
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
        }
}

}  // namespace

int main(int argc, char** argv) { return mdbench::run_benchmarks(argc, argv, register_all); }
