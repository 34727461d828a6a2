// Smooth PME (reciprocal-space Coulomb) on an SPC/E water box, Pme::compute()
// with the grid and beta `mdcore run` uses (spacing 0.12 nm, order 4, rc 1 nm,
// ewald_rtol 1e-5):
//
//   BM_Pme/water/<natoms>/order:<p>/threads:<t>      the whole call: spline spreading, r2c FFT,
//                                                    solve (influence function), c2r FFT, gather
//   BM_PmeSpread|Fft|Solve|Gather/water/<natoms>/threads:<t>/iterations:<k>
//                                                    the same call, each reporting only its stage's
//                                                    time (manual time from Pme's own stage clocks,
//                                                    which the engine keeps for RunReport); a fixed
//                                                    iteration count, since Google Benchmark would
//                                                    otherwise run the whole call until a small
//                                                    stage (solve: ~5 %) alone filled min_time
//   BM_PmeSpreadReference|GatherReference/...        spread and gather as first written
//                                                    (Pme::use_reference_path), for the ratio
//
// Counters: atoms/s, grid_points; BM_Pme also spread/fft/solve/gather in us per call.
// The stage benchmarks are not registered under valgrind (--metric instructions):
// callgrind counts the loop, which is the whole call, i.e. BM_Pme again.
// Sizes: $MDT_BENCH_WATER_SIZES (default 3000 atoms). Forces accumulate across
// iterations (Pme adds them); harmless for timing.
#include <algorithm>
#include <string>

#include "bench_water.h"
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define MDT_UNDER_VALGRIND() (RUNNING_ON_VALGRIND != 0)
#else
#define MDT_UNDER_VALGRIND() false
#endif
#include "pme/pme.h"

namespace {

enum class Stage { All, Spread, Fft, Solve, Gather };

const char* stage_family(Stage s) {
    switch (s) {
        case Stage::All: return "BM_Pme";
        case Stage::Spread: return "BM_PmeSpread";
        case Stage::Fft: return "BM_PmeFft";
        case Stage::Solve: return "BM_PmeSolve";
        case Stage::Gather: return "BM_PmeGather";
    }
    return "?";
}

double stage_seconds(const mdcore::PmeStageTimes& t, Stage s) {
    switch (s) {
        case Stage::Spread: return t.spread;
        case Stage::Fft: return t.fft;
        case Stage::Solve: return t.solve;
        case Stage::Gather: return t.gather;
        case Stage::All: return t.spread + t.fft + t.solve + t.gather;
    }
    return 0;
}

struct PmeInput {
    std::vector<double> x, y, z, q;
    std::vector<float> fx, fy, fz;
};

// reference = false: Pme's default spread/gather (the mesh kernels of the widest SIMD
// level, as mdcore run); true: the paths as first written (Pme::use_reference_path),
// registered as "...Reference".
void bm_pme(benchmark::State& state, long natoms, int order, int threads, Stage stage, bool reference = false) {
    try {
        const mdcore::System& sys = mdbench::water_box(natoms);
        PmeInput in;
        const std::size_t n = sys.natoms();
        for (std::size_t a = 0; a < n; ++a) {
            in.x.push_back(sys.positions[a][0]);
            in.y.push_back(sys.positions[a][1]);
            in.z.push_back(sys.positions[a][2]);
            in.q.push_back(sys.charge[a]);
        }
        in.fx.assign(n, 0.0f);
        in.fy.assign(n, 0.0f);
        in.fz.assign(n, 0.0f);
        const mdcore::PmeGrid grid = mdcore::pme_grid_for_spacing(sys.box, 0.12, order);
        mdcore::Pme pme(sys.box, grid, order, mdcore::ewald_beta(sys.rc, sys.ewald_rtol), sys.epsilon_r, threads,
                        mdcore::available_simd_levels().back());
        pme.use_reference_path(reference);
        auto call = [&] {
            return pme.compute(n, in.x.data(), in.y.data(), in.z.data(), in.q.data(), in.fx.data(), in.fy.data(),
                               in.fz.data());
        };
        benchmark::DoNotOptimize(call());  // first call touches the grids
        const mdcore::PmeStageTimes start = pme.stage_times();

        for (auto _ : state) {
            const double before = stage_seconds(pme.stage_times(), stage);
            benchmark::DoNotOptimize(call());
            if (stage != Stage::All) state.SetIterationTime(stage_seconds(pme.stage_times(), stage) - before);
        }

        const double points = static_cast<double>(grid.nx) * grid.ny * grid.nz;
        state.counters["atoms/s"] = mdbench::rate(static_cast<double>(natoms));
        state.counters["grid_points"] = points;
        if (stage == Stage::All) {
            const mdcore::PmeStageTimes& end = pme.stage_times();
            auto per_call_us = [&](double seconds) {
                return benchmark::Counter(1e6 * seconds, benchmark::Counter::kAvgIterations);
            };
            state.counters["spread_us"] = per_call_us(end.spread - start.spread);
            state.counters["fft_us"] = per_call_us(end.fft - start.fft);
            state.counters["solve_us"] = per_call_us(end.solve - start.solve);
            state.counters["gather_us"] = per_call_us(end.gather - start.gather);
        }
        char label[96];
        std::snprintf(label, sizeof label, "SPC/E grid %dx%dx%d order %d", grid.nx, grid.ny, grid.nz, order);
        state.SetLabel(label);
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

void register_all() {
    for (long n : mdbench::water_sizes())
        for (int threads : {1, 2}) {
            for (int order : {4, 5}) {
                const std::string name = "BM_Pme/water/" + std::to_string(n) + "/order:" + std::to_string(order) +
                                         "/threads:" + std::to_string(threads);
                benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) {
                    bm_pme(st, n, order, threads, Stage::All);
                })->UseRealTime()->Unit(benchmark::kMicrosecond);
            }
            if (MDT_UNDER_VALGRIND()) continue;
            // ~0.1 s of calls per repetition at 3000 atoms, fewer for larger boxes.
            const long iterations = std::max(10L, 300'000L / n);
            for (Stage s : {Stage::Spread, Stage::Fft, Stage::Solve, Stage::Gather}) {
                const std::string name = std::string(stage_family(s)) + "/water/" + std::to_string(n) + "/threads:" +
                                         std::to_string(threads);
                benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) {
                    bm_pme(st, n, 4, threads, s);
                })->UseManualTime()->Iterations(iterations)->Unit(benchmark::kMicrosecond);
            }
            for (Stage s : {Stage::Spread, Stage::Gather}) {
                const std::string name = std::string(stage_family(s)) + "Reference/water/" + std::to_string(n) +
                                         "/threads:" + std::to_string(threads);
                benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) {
                    bm_pme(st, n, 4, threads, s, true);
                })->UseManualTime()->Iterations(iterations)->Unit(benchmark::kMicrosecond);
            }
        }
}

}  // namespace

int main(int argc, char** argv) { return mdbench::run_benchmarks(argc, argv, register_all); }
