// Pair-list construction on the lammps-lj (in.lj state) fluid:
//
//   BM_Search/<shape>/<natoms>/threads:<t>        MdRunner::search() with the dual list off:
//                                                 wrap + grid build/sort + cluster-pair search
//                                                 of the outer list (rlist from the buffer estimate)
//   BM_Prune/<shape>/<simd>/<natoms>/threads:<t>  MdRunner::prune(): the outer list pruned to the
//                                                 inner radius (SIMD prune kernels), dual list on
//   BM_SearchWater/<natoms>/threads:<t>           MdRunner::search() on SPC/E water as an MD run
//                                                 does it (default shape, dual list on: exclusions,
//                                                 SETTLE list and the first prune included)
//   BM_GpuListBuild/<natoms>/threads:<t>          the GPU pair list (super-clusters, cj4 groups,
//                                                 masks) built on the CPU from the 8x4 water list,
//                                                 as every --nb gpu search does (no GPU needed)
//
// Counters: atoms/s; list entries (j-cluster entries) of the list built / pruned;
// BM_Search also i_entries and list_pairs (atom pairs incl. masked lanes), BM_Prune
// outer_entries, inner_entries and entries/s (outer entries checked per second).
// Sizes: $MDT_BENCH_SIZES (default 4000,32000), water: $MDT_BENCH_WATER_SIZES (default
// 3000). Times are wall-clock (UseRealTime).
#include <string>

#include "bench_common.h"
#include "gpu/gpu_pair_list.h"
#include "bench_water.h"

namespace {

using mdbench::ClusterShape;
using mdbench::SimdLevel;
using mdbench::str;

// Times MdRunner::search() on `source` and labels the result "<name> <shape> rlist=..".
void time_search(benchmark::State& state, const mdcore::System& source, const char* name,
                 std::optional<ClusterShape> shape, int threads, bool dual_list) {
    try {
        mdbench::Fixture fx(source, shape, SimdLevel::Auto, threads, dual_list);
        fx.md->search();  // first search allocates the grid, list and work buffers

        for (auto _ : state) {
            fx.md->search();
            benchmark::ClobberMemory();
        }

        const mdcore::PairList& list = fx.md->outer_list();
        state.counters["atoms/s"] = mdbench::rate(static_cast<double>(source.natoms()));
        state.counters["list_entries"] = static_cast<double>(list.j.size());
        state.counters["i_entries"] = static_cast<double>(list.i.size());
        state.counters["list_pairs"] = list.atom_pairs();
        char label[128];
        std::snprintf(label, sizeof label, "%s %s rlist=%.3f", name, str(to_string(fx.config.cluster)).c_str(),
                      fx.config.rlist);
        state.SetLabel(label);
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

void bm_prune(benchmark::State& state, long natoms, ClusterShape shape, SimdLevel level, int threads) {
    try {
        const mdcore::System& source = mdbench::equilibrated_system("lammps-lj", natoms);
        mdbench::Fixture fx(source, shape, level, threads, /*dual_list=*/true);
        if (!fx.md->dual_list()) {
            state.SkipWithError("dual pair list is off for this shape (rlist_inner == rlist)");
            return;
        }
        fx.md->search();  // builds the outer list and prunes once

        for (auto _ : state) {
            fx.md->prune();
            benchmark::ClobberMemory();
        }

        const double outer = static_cast<double>(fx.md->outer_list().j.size());
        state.counters["atoms/s"] = mdbench::rate(static_cast<double>(natoms));
        state.counters["entries/s"] = mdbench::rate(outer);
        state.counters["outer_entries"] = outer;
        state.counters["inner_entries"] = static_cast<double>(fx.md->inner_list().j.size());
        char label[128];
        std::snprintf(label, sizeof label, "lammps-lj %s/%s rlist=%.3f->%.3f", str(to_string(shape)).c_str(),
                      str(to_string(level)).c_str(), fx.config.rlist, fx.config.rlist_inner);
        state.SetLabel(label);
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

void bm_gpu_list_build(benchmark::State& state, long natoms, int threads) {
    try {
        mdbench::Fixture fx(mdbench::water_box(natoms), ClusterShape::k8x4, SimdLevel::Auto, threads,
                            /*dual_list=*/true);
        fx.md->search();
        const mdcore::gpu::SuperClusterLayout layout = mdcore::gpu::group_super_clusters(fx.md->grid());
        mdcore::gpu::GpuPairList list;
        mdcore::gpu::build_gpu_pair_list(fx.md->outer_list(), layout, list, threads);  // allocates

        for (auto _ : state) {
            mdcore::gpu::build_gpu_pair_list(fx.md->outer_list(), layout, list, threads);
            benchmark::ClobberMemory();
        }

        state.counters["atoms/s"] = mdbench::rate(static_cast<double>(natoms));
        state.counters["cpu_entries"] = static_cast<double>(fx.md->outer_list().j.size());
        state.counters["sci"] = static_cast<double>(list.sci.size());
        state.counters["cj4"] = static_cast<double>(list.cj4.size());
        state.counters["masks"] = static_cast<double>(list.masks.size());
        char label[64];
        std::snprintf(label, sizeof label, "SPC/E 8x4 rlist=%.3f", fx.config.rlist);
        state.SetLabel(label);
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

void register_all() {
    const std::vector<long> sizes = mdbench::sizes_from_env({4000, 32000});
    for (long n : sizes)
        for (int threads : {1, 2})
            for (ClusterShape shape : mdbench::all_shapes()) {
                const std::string name = "BM_Search/" + str(to_string(shape)) + "/" + std::to_string(n) +
                                         "/threads:" + std::to_string(threads);
                benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) {
                    time_search(st, mdbench::equilibrated_system("lammps-lj", n), "lammps-lj", shape, threads,
                                /*dual_list=*/false);
                })->UseRealTime()->Unit(benchmark::kMicrosecond);
            }
    for (long n : mdbench::water_sizes())
        for (int threads : {1, 2}) {
            const std::string name = "BM_SearchWater/" + std::to_string(n) + "/threads:" + std::to_string(threads);
            benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) {
                time_search(st, mdbench::water_box(n), "SPC/E", std::nullopt, threads, /*dual_list=*/true);
            })
                ->UseRealTime()
                ->Unit(benchmark::kMicrosecond);
        }
    for (long n : mdbench::water_sizes())
        for (int threads : {1, 2}) {
            const std::string name = "BM_GpuListBuild/" + std::to_string(n) + "/threads:" + std::to_string(threads);
            benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) { bm_gpu_list_build(st, n, threads); })
                ->UseRealTime()
                ->Unit(benchmark::kMicrosecond);
        }
    const auto variants = mdbench::kernel_variants();
    for (long n : sizes)
        for (int threads : {1, 2})
            for (const auto& [shape, level] : variants) {
                const std::string name = "BM_Prune/" + str(to_string(shape)) + "/" + str(to_string(level)) + "/" +
                                         std::to_string(n) + "/threads:" + std::to_string(threads);
                benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) {
                    bm_prune(st, n, shape, level, threads);
                })->UseRealTime()->Unit(benchmark::kMicrosecond);
            }
}

}  // namespace

int main(int argc, char** argv) { return mdbench::run_benchmarks(argc, argv, register_all); }
