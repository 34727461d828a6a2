// Nonbonded kernel throughput: one force evaluation (MdRunner::compute_nonbonded, i.e.
// float coordinate update + cluster kernels + per-thread force reduction, exactly
// what `mdcore run` times as "nonbonded") over a fixed pair list built once by
// MdRunner::search() before the timed loop, for every cluster shape x SIMD level.
//
//   BM_Nonbonded/<shape>/<simd>/<natoms>/threads:<t>        lammps-lj (in.lj state), no energies
//   BM_NonbondedEnergy/<shape>/<simd>/<natoms>/threads:1    same with energies (largest size)
//   BM_NonbondedArgon/<shape>/<simd>/<natoms>/threads:1     liquid argon, 94.4 K (smallest size)
//   BM_NonbondedWater/<shape>/<simd>/3000/threads:1         SPC/E: the Ewald real-space kernels
//   BM_NonbondedWater<variant>/<shape>/<simd>/3000/threads:1  the same box with LJ force-switch
//                                                            (FSwitch), potential-switch (PSwitch)
//                                                            from 0.8 nm, or reaction field (RF,
//                                                            epsilon_rf 62) in place of Ewald
//
// Counters: pairs/s      atom pairs in the kernel's (inner) list per second, masked lanes included
//           cutoff_pairs/s  pairs within rc per second
//           atoms/s      atoms per second
//           list_pairs, efficiency (= cutoff / list pairs), both per evaluation
// 1x1 (plain particle list) runs the same scalar kernel at every SIMD level and is
// registered once as "none". Sizes: $MDT_BENCH_SIZES (default 4000,32000).
// Times are wall-clock (UseRealTime), since the kernels run in OpenMP threads.
#include <algorithm>
#include <string>

#include "bench_common.h"

namespace {

using mdbench::ClusterShape;
using mdbench::SimdLevel;
using mdbench::str;
using mdcore::EnergyOutput;

// The interaction form on top of the kind's (see the header).
enum class Form { Default, ForceSwitch, PotentialSwitch, ReactionField };

mdcore::System with_form(mdcore::System sys, Form form) {
    if (form == Form::ForceSwitch || form == Form::PotentialSwitch) {
        sys.vdw_modifier = form == Form::ForceSwitch ? mdcore::VdwModifier::ForceSwitch
                                                     : mdcore::VdwModifier::PotentialSwitch;
        sys.rvdw_switch = 0.8;
    } else if (form == Form::ReactionField) {
        sys.coulomb_type = mdcore::CoulombType::ReactionField;
        sys.epsilon_rf = 62.0;
    }
    return sys;
}

void bm_nonbonded(benchmark::State& state, const std::string& kind, long natoms, ClusterShape shape,
                  SimdLevel level, int threads, EnergyOutput energy, Form form = Form::Default) {
    try {
        const mdcore::System source = with_form(mdbench::equilibrated_system(kind, natoms), form);
        mdbench::Fixture fx(source, shape, level, threads);
        fx.md->search();  // grid + outer list, pruned to the inner list (dual list)
        // pairs_in_cutoff is counted by every kernel variant; one evaluation also warms caches.
        const auto first = fx.md->compute_nonbonded(EnergyOutput::Yes);
        const double list_pairs = fx.md->inner_list().atom_pairs();
        const double in_cutoff = first.pairs_in_cutoff;

        for (auto _ : state) {
            auto e = fx.md->compute_nonbonded(energy);  // kernels only: no PME mesh
            benchmark::DoNotOptimize(e);
            benchmark::ClobberMemory();
        }

        state.counters["pairs/s"] = mdbench::rate(list_pairs);
        state.counters["cutoff_pairs/s"] = mdbench::rate(in_cutoff);
        state.counters["atoms/s"] = mdbench::rate(static_cast<double>(natoms));
        state.counters["list_pairs"] = list_pairs;
        state.counters["efficiency"] = list_pairs > 0 ? in_cutoff / list_pairs : 0.0;
        char label[160];
        std::snprintf(label, sizeof label, "%s %s/%s rlist=%.3f/%.3f%s", kind.c_str(),
                      str(to_string(shape)).c_str(), str(to_string(level)).c_str(), fx.config.rlist,
                      fx.config.rlist_inner, energy == EnergyOutput::Yes ? " energies" : "");
        state.SetLabel(label);
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

void register_all() {
    const std::vector<long> sizes = mdbench::sizes_from_env({4000, 32000});
    const long largest = *std::max_element(sizes.begin(), sizes.end());
    const long smallest = *std::min_element(sizes.begin(), sizes.end());
    auto add = [](const std::string& family, const std::string& kind, long n, ClusterShape shape, SimdLevel level,
                  int threads, EnergyOutput energy, Form form = Form::Default) {
        const std::string name = family + "/" + str(to_string(shape)) + "/" + str(to_string(level)) + "/" +
                                 std::to_string(n) + "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) {
            bm_nonbonded(st, kind, n, shape, level, threads, energy, form);
        })->UseRealTime()->Unit(benchmark::kMicrosecond);
    };
    const auto variants = mdbench::kernel_variants();
    for (long n : sizes)
        for (int threads : {1, 2})
            for (const auto& [shape, level] : variants)
                add("BM_Nonbonded", "lammps-lj", n, shape, level, threads, EnergyOutput::No);
    for (const auto& [shape, level] : variants)
        add("BM_NonbondedEnergy", "lammps-lj", largest, shape, level, 1, EnergyOutput::Yes);
    for (const auto& [shape, level] : variants)
        add("BM_NonbondedArgon", "argon", smallest, shape, level, 1, EnergyOutput::No);
    for (const auto& [shape, level] : variants)
        add("BM_NonbondedWater", "water", 3000, shape, level, 1, EnergyOutput::No);
    for (auto [family, form] : {std::pair{"BM_NonbondedWaterFSwitch", Form::ForceSwitch},
                                std::pair{"BM_NonbondedWaterPSwitch", Form::PotentialSwitch},
                                std::pair{"BM_NonbondedWaterRF", Form::ReactionField}})
        for (const auto& [shape, level] : variants)
            add(family, "water", 3000, shape, level, 1, EnergyOutput::No, form);
}

}  // namespace

int main(int argc, char** argv) { return mdbench::run_benchmarks(argc, argv, register_all); }
