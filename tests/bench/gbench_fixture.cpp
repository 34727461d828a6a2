// A tiny Google Benchmark suite with known, deterministic work per iteration,
// for the runner and callgrind tests. MDT_FIXTURE_FAIL=1 adds a benchmark that
// skips with an error (inside its loop), as a broken suite would.
#include <benchmark/benchmark.h>

#include <cstdlib>

namespace {

void bm_work(benchmark::State& state) {
    const long n = state.range(0);
    double x = 1.0;
    for (auto _ : state) {
        for (long i = 0; i < n; ++i) {
            x = x * 1.0000001 + 1e-9;
            benchmark::DoNotOptimize(x);
        }
    }
    state.counters["items"] = static_cast<double>(n);
}

void bm_fails(benchmark::State& state) {
    state.SkipWithError("deliberate failure");
    for (auto _ : state) {
    }
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::RegisterBenchmark("BM_Work", bm_work)->Arg(10000)->Arg(20000);
    if (const char* f = std::getenv("MDT_FIXTURE_FAIL"); f && *f == '1') benchmark::RegisterBenchmark("BM_Fails", bm_fails);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
