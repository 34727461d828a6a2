// Integration kernels on sorted SoA state:
//
//   BM_LeapFrog/<natoms>/threads:<t>        leapfrog_update(): v += F/m dt, x += v dt and 2 KE, on the
//                                           argon fluid's lattice start (no constraints)
//   BM_Settle/water/<natoms>/threads:<t>    settle_positions() for every molecule of an SPC/E box, with
//                                           velocity correction and periodic images
//   BM_Settle/water/<natoms>/threads:<t>    (the plain reference SETTLE, kept as the oracle)
//   BM_Update/water/<natoms>/threads:<t>    MdRunner::update(): the fused leap-frog + SETTLE + kinetic
//                                           energy + float coordinates, as every MD step of a water box
//   BM_Update/water/<natoms>/<level>/threads:<t>  the same at each SIMD level the CPU has (none, avx2,
//                                           avx512), so each instance of the kernel is tracked
//   BM_UpdateCold/water/<natoms>/threads:<t>  BM_Update with the caches flushed before each call (64 MiB
//                                           touched, untimed), as in an MD step where the force tasks
//                                           have pushed the state out
//
// Counters: atoms/s (BM_Settle also molecules/s). Sizes: $MDT_BENCH_SIZES for the
// LJ fluid (default 4000,32000), $MDT_BENCH_WATER_SIZES for water (default 3000).
// Repeated calls must stay valid for any iteration count:
//  - BM_LeapFrog: forces are fixed, so atoms drift ballistically; the arithmetic
//    per atom does not depend on the values.
//  - BM_Settle: from the second call on, the positions already satisfy the
//    constraints; SETTLE's closed-form solution does the same work regardless.
//  - BM_Update: forces are zeroed (free rigid-body motion), so SETTLE never meets
//    a molecule that moved too far, however many steps Google Benchmark takes.
// A build with -DMDT_INJECT_SLOWDOWN_PERCENT=P runs BM_LeapFrog on P % more atoms
// than its name says (bench_water.h): the gate's known slowdown.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "bench_water.h"
#include "integrate/leapfrog.h"
#include "integrate/settle.h"
#include "mdcore/engine.h"

namespace {

using mdbench::str;

void bm_leapfrog(benchmark::State& state, long natoms, int threads) {
    try {
        mdcore::LjFluidSpec spec = mdcore::argon_spec();
        spec.natoms = natoms;
        spec.seed = 1964;
        const mdcore::System sys = mdcore::make_lj_fluid(spec, "argon");
        // The injected slowdown: extra atoms (copies) in the same kernel call.
        const auto n = static_cast<std::size_t>(std::lround(natoms * (1.0 + mdbench::kInjectedSlowdown)));
        mdcore::SortedState s;
        s.resize(n);
        std::mt19937_64 rng(42);
        std::normal_distribution<double> force(0.0, 200.0);  // kJ/mol/nm, liquid-argon magnitude
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t a = i % sys.natoms();
            s.set_atom(i, sys.positions[a], sys.velocities[a], sys.mass[a]);
            s.fx[i] = static_cast<float>(force(rng));
            s.fy[i] = static_cast<float>(force(rng));
            s.fz[i] = static_cast<float>(force(rng));
        }
        for (auto _ : state) {
            benchmark::DoNotOptimize(mdcore::leapfrog_update(s, sys.dt, 1.0, threads));
            benchmark::ClobberMemory();
        }
        state.counters["atoms/s"] = mdbench::rate(static_cast<double>(natoms));
        state.SetLabel(mdbench::kInjectedSlowdown > 0 ? "argon, INJECTED SLOWDOWN" : "argon");
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

void bm_settle(benchmark::State& state, long natoms, int threads) {
    try {
        const mdcore::System& sys = mdbench::water_box(natoms);
        const std::size_t n = sys.natoms();
        mdcore::SortedState r;  // the reference positions and the velocities, atoms in input order
        r.resize(n);
        std::vector<double> x(n), y(n), z(n);
        for (std::size_t a = 0; a < n; ++a) {
            r.set_atom(a, sys.positions[a], sys.velocities[a], sys.mass[a]);
            // One unconstrained step: what SETTLE sees after the leap-frog update.
            x[a] = r.x[a] + r.vx[a] * sys.dt;
            y[a] = r.y[a] + r.vy[a] * sys.dt;
            z[a] = r.z[a] + r.vz[a] * sys.dt;
        }
        std::vector<mdcore::SettleTriple> mols;
        for (const auto& s : sys.settles) mols.push_back({s.o, s.h1, s.h2});
        const mdcore::SettleParameters params = mdcore::settle_parameters(sys);
        const mdcore::SettleArrays arrays{r.x.data(),  r.y.data(),  r.z.data(),  x.data(), y.data(), z.data(),
                                          r.vx.data(), r.vy.data(), r.vz.data(), sys.box.lengths.data()};
        for (auto _ : state) {
            mdcore::settle_positions(params, mols, arrays, sys.dt, threads);
            benchmark::ClobberMemory();
        }
        state.counters["atoms/s"] = mdbench::rate(static_cast<double>(n));
        state.counters["molecules/s"] = mdbench::rate(static_cast<double>(mols.size()));
        state.SetLabel("SPC/E, " + std::to_string(mols.size()) + " molecules");
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

void bm_update(benchmark::State& state, long natoms, int threads, mdcore::SimdLevel level, bool cold = false) {
    try {
        const mdcore::System& sys = mdbench::water_box(natoms);
        mdbench::Fixture fx(sys, mdcore::ClusterShape::k4x4, level, threads);
        fx.md->search();  // sorts the state and builds the SETTLE index
        mdcore::SortedState& s = fx.md->state();
        std::fill(s.fx.begin(), s.fx.end(), 0.0f);
        std::fill(s.fy.begin(), s.fy.end(), 0.0f);
        std::fill(s.fz.begin(), s.fz.end(), 0.0f);
        std::vector<char> flush(cold ? 64u << 20 : 0);
        for (auto _ : state) {
            if (cold) {
                state.PauseTiming();
#pragma omp parallel for num_threads(threads)
                for (long i = 0; i < static_cast<long>(flush.size()); i += 64) flush[i]++;
                state.ResumeTiming();
            }
            benchmark::DoNotOptimize(fx.md->update(fx.config.dt, 1.0));
            benchmark::ClobberMemory();
        }
        state.counters["atoms/s"] = mdbench::rate(static_cast<double>(sys.natoms()));
        state.counters["molecules/s"] = mdbench::rate(static_cast<double>(sys.settles.size()));
        state.SetLabel("SPC/E leap-frog + SETTLE, " + std::string(mdcore::to_string(level)));
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

void register_all() {
    for (long n : mdbench::sizes_from_env({4000, 32000}))
        for (int threads : {1, 2}) {
            const std::string name = "BM_LeapFrog/" + std::to_string(n) + "/threads:" + std::to_string(threads);
            benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) { bm_leapfrog(st, n, threads); })
                ->UseRealTime()
                ->Unit(benchmark::kMicrosecond);
        }
    for (long n : mdbench::water_sizes())
        for (int threads : {1, 2}) {
            const std::string suffix = "/water/" + std::to_string(n) + "/threads:" + std::to_string(threads);
            benchmark::RegisterBenchmark(("BM_Settle" + suffix).c_str(), [=](benchmark::State& st) {
                bm_settle(st, n, threads);
            })->UseRealTime()->Unit(benchmark::kMicrosecond);
            benchmark::RegisterBenchmark(("BM_Update" + suffix).c_str(), [=](benchmark::State& st) {
                bm_update(st, n, threads, mdcore::SimdLevel::Auto);
            })->UseRealTime()->Unit(benchmark::kMicrosecond);
            benchmark::RegisterBenchmark(("BM_UpdateCold" + suffix).c_str(), [=](benchmark::State& st) {
                bm_update(st, n, threads, mdcore::SimdLevel::Auto, true);
            })->UseRealTime()->Unit(benchmark::kMicrosecond);
            for (mdcore::SimdLevel level : mdcore::available_simd_levels()) {
                const std::string name = "BM_Update/water/" + std::to_string(n) + "/" +
                                         std::string(mdcore::to_string(level)) + "/threads:" + std::to_string(threads);
                benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) {
                    bm_update(st, n, threads, level);
                })->UseRealTime()->Unit(benchmark::kMicrosecond);
            }
        }
}

}  // namespace

int main(int argc, char** argv) { return mdbench::run_benchmarks(argc, argv, register_all); }
