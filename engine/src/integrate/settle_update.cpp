#include "integrate/settle_update.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <climits>
#include <stdexcept>
#include <string>

#include "integrate/thread_sum.h"

namespace mdcore {

// One instance per compiled SIMD level (settle_update_<level>.cpp).
double settle_update_none(const SettleUpdateArgs& args, int begin, int end, int* first_bad);
#ifdef MDT_SIMD_AVX2
double settle_update_avx2(const SettleUpdateArgs& args, int begin, int end, int* first_bad);
#endif
#ifdef MDT_SIMD_AVX512
double settle_update_avx512(const SettleUpdateArgs& args, int begin, int end, int* first_bad);
#endif

SettleUpdateKernel settle_update_kernel(SimdLevel level) {
    switch (level) {
#ifdef MDT_SIMD_AVX512
        case SimdLevel::Avx512:
            return settle_update_avx512;
#endif
#ifdef MDT_SIMD_AVX2
        case SimdLevel::Avx2:
            return settle_update_avx2;
#endif
        case SimdLevel::None:
            return settle_update_none;
        default:
            throw std::invalid_argument("SETTLE update: SIMD level " + std::string(to_string(level)) +
                                        " is not compiled in");
    }
}

std::vector<int> settle_atom_roles(std::size_t natoms, const std::vector<Settle>& settles) {
    std::vector<int> role(natoms, kFreeAtom);
    for (std::size_t m = 0; m < settles.size(); ++m) {
        role[settles[m].o] = static_cast<int>(m);
        role[settles[m].h1] = role[settles[m].h2] = kCoveredH;
    }
    return role;
}

void build_settle_update_list(const std::vector<int>& order, const std::vector<int>& slot_of,
                              const std::vector<int>& atom_role, const std::vector<Settle>& settles,
                              SettleUpdateList& list, int num_threads) {
    // Each thread takes a block of slots, counts, and fills its part at prefix-sum
    // offsets: the lists stay in slot order whatever the thread count.
    const long nslots = static_cast<long>(order.size());
    std::vector<std::array<long, 2>> start(num_threads + 1);  // molecules, free slots
#pragma omp parallel num_threads(num_threads)
    {
        const int t = omp_get_thread_num();
        const int nt = omp_get_num_threads();
        const long begin = nslots * t / nt, end = nslots * (t + 1) / nt;
        std::array<long, 2> count{0, 0};
        for (long s = begin; s < end; ++s) {
            const int a = order[s];
            if (a < 0) continue;  // padding
            count[0] += atom_role[a] >= 0;
            count[1] += atom_role[a] == kFreeAtom;
        }
        start[t + 1] = count;
#pragma omp barrier
#pragma omp single
        {
            for (int u = 0; u < nt; ++u)
                for (int k = 0; k < 2; ++k) start[u + 1][k] += start[u][k];
            list.molecules.resize(start[nt][0]);
            list.molecule_index.resize(start[nt][0]);
            list.free_slots.resize(start[nt][1]);
        }
        long mol = start[t][0], free = start[t][1];
        for (long s = begin; s < end; ++s) {
            const int a = order[s];
            if (a < 0) continue;
            const int role = atom_role[a];
            if (role == kFreeAtom) {
                list.free_slots[free++] = static_cast<int>(s);
            } else if (role >= 0) {
                const Settle& m = settles[role];
                list.molecules[mol] = {static_cast<int>(s), slot_of[m.h1], slot_of[m.h2]};
                list.molecule_index[mol++] = role;
            }
        }
    }
}

namespace {

// Plain leap-frog for the atoms outside any SETTLE, slots [begin, end) of `slots`.
double update_free_atoms(const std::vector<int>& slots, std::size_t begin, std::size_t end, SortedState& s,
                         double dt, double lambda) {
    double k = 0.0;
    for (std::size_t j = begin; j < end; ++j) k += leapfrog_atom(s, slots[j], dt, lambda);
    return k;
}

}  // namespace

double leapfrog_settle_update(const SettleParameters& p, const SettleUpdateList& list, SortedState& s,
                              FloatCoordinates out, const double* box, double dt, double lambda, SimdLevel level,
                              int num_threads, ThreadWaits* waits, ThreadShares* shares) {
    const SettleUpdateKernel kernel = settle_update_kernel(level);
    const SettleUpdateArgs args{
        settle_geometry(p),
        list.molecules.data(),
        list.molecule_index.size() == list.molecules.size() ? list.molecule_index.data() : nullptr,
        &s,
        {box[0], box[1], box[2]},
        dt,
        lambda};
    const long nmol = static_cast<long>(list.molecules.size());
    const std::size_t nfree = list.free_slots.size();
    const long nslots = static_cast<long>(s.size());
    constexpr long kFloatsPerLine = 16;  // thread blocks of whole lines: no line written by two threads
    int first_bad = INT_MAX;  // lowest System::settles index that failed
    const double twice_ke = sum_over_threads(num_threads, [&](int t, int nt) {
        int bad = -1;
        const double start = omp_get_wtime();
        static const ThreadShares even;  // not adapting: the even split
        const auto [m0, m1] = (shares != nullptr ? *shares : even).range(t, nt, static_cast<std::size_t>(nmol));
        double k = kernel(args, static_cast<int>(m0), static_cast<int>(m1), &bad);
        if (shares != nullptr) shares->record(t, static_cast<double>(m1 - m0), omp_get_wtime() - start);
        k += update_free_atoms(list.free_slots, nfree * t / nt, nfree * (t + 1) / nt, s, dt, lambda);
        if (bad >= 0) {
#pragma omp critical(mdcore_settle_failure)
            first_bad = std::min(first_bad, bad);
        }
        if (out.x != nullptr) {
            // After the kernel, not in its scatter: there the stores go to lines both
            // cores read during the force tasks, and each waits for its line
            // (water-24k: the update took 0.309 against 0.285 ms/step with this pass).
            const long lines = (nslots + kFloatsPerLine - 1) / kFloatsPerLine;
#pragma omp barrier
            copy_to_floats(s, out, std::min(nslots, lines * t / nt * kFloatsPerLine),
                           std::min(nslots, lines * (t + 1) / nt * kFloatsPerLine));
        }
        return k;
    }, waits);
    if (shares != nullptr) shares->rebalance();
    if (first_bad != INT_MAX)
        throw std::runtime_error("SETTLE: no solution for molecule " + std::to_string(first_bad) +
                                 " (it moved too far in one step)");
    return twice_ke;
}

}  // namespace mdcore
