#pragma once
// Cluster-pair list: for each i-cluster (N atoms) a run of j-cluster entries (M
// atoms each) with a periodic shift and an N x M interaction mask.
#include <cstdint>
#include <vector>

namespace mdcore {

// Periodic shifts in [-2, 2] per dimension, so lists stay valid for rlist < 2 L.
inline constexpr int kShiftRange = 2;
inline constexpr int kShiftsPerDim = 2 * kShiftRange + 1;
inline constexpr int kNumShifts = kShiftsPerDim * kShiftsPerDim * kShiftsPerDim;
constexpr int shift_index(int sx, int sy, int sz) {
    return (sx + kShiftRange) + kShiftsPerDim * ((sy + kShiftRange) + kShiftsPerDim * (sz + kShiftRange));
}
inline constexpr int kZeroShift = shift_index(0, 0, 0);

struct JEntry {
    std::int32_t cj;       // j-cluster index
    std::int32_t shift;    // index into the shift-vector table, added to j coordinates
    std::uint32_t mask;    // bit i*M + j set: pair (i, j) interacts
    std::uint32_t excluded;  // bit set: pair (i, j) is excluded (needs the Ewald correction)
};

struct IEntry {
    std::int32_t ci;
    std::int32_t j_begin;  // range in PairList::j
    std::int32_t j_end;
};

struct PairList {
    int cluster_i = 4;
    int cluster_j = 4;
    double rlist = 0.0;
    std::vector<IEntry> i;
    std::vector<JEntry> j;
    // Atom pairs the kernel evaluates (N*M per j-entry, masked lanes included).
    double atom_pairs() const { return static_cast<double>(j.size()) * cluster_i * cluster_j; }
};

}  // namespace mdcore
