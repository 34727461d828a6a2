#include "domdec/zone_filter.h"

#include <algorithm>

namespace mdcore {
namespace {

std::array<int, 3> shift_of(int index) {
    return {index % kShiftsPerDim - kShiftRange, (index / kShiftsPerDim) % kShiftsPerDim - kShiftRange,
            index / (kShiftsPerDim * kShiftsPerDim) - kShiftRange};
}

// What the rule needs of a cluster: the zone bits its atoms have (OR) and share
// (AND), whether its atoms are in one image along the decomposed dimensions, and
// which slots hold atoms. Most cluster pairs are then decided whole.
struct ClusterZones {
    std::uint8_t zone_or = 0, zone_and = 0xff;
    bool one_image = true;
    std::array<int, 3> image{0, 0, 0};
    std::uint32_t occupied = 0;  // bit k: slot k of the cluster holds an atom
};

std::vector<ClusterZones> summarise_clusters(const LocalAtomZones& zones, const std::vector<int>& order, int size) {
    std::vector<ClusterZones> out(order.size() / static_cast<std::size_t>(size));
    for (std::size_t c = 0; c < out.size(); ++c) {
        ClusterZones& z = out[c];
        bool first = true;
        for (int k = 0; k < size; ++k) {
            const int a = order[c * size + k];
            if (a < 0) continue;
            z.occupied |= 1u << k;
            z.zone_or |= zones.zone[a];
            z.zone_and &= zones.zone[a];
            for (int d = 0; d < 3; ++d) {
                if (!zones.decomposed[d]) continue;
                if (first) z.image[d] = zones.image[a][d];
                else if (z.image[d] != zones.image[a][d]) z.one_image = false;
            }
            first = false;
        }
    }
    return out;
}

// The pairs of one cluster pair this rank keeps, atom by atom.
std::uint32_t kept_pairs(const LocalAtomZones& zones, const std::vector<int>& order, int n, int m, int ci, int cj,
                         const std::array<int, 3>& shift) {
    std::uint32_t keep = 0;
    for (int i = 0; i < n; ++i) {
        const int a = order[ci * n + i];
        if (a < 0) continue;
        for (int j = 0; j < m; ++j) {
            const int b = order[cj * m + j];
            if (b < 0 || (zones.zone[a] & zones.zone[b])) continue;
            bool same_image = true;
            for (int d = 0; d < 3; ++d)
                if (zones.decomposed[d] && shift[d] != zones.image[b][d] - zones.image[a][d]) same_image = false;
            if (same_image) keep |= 1u << (i * m + j);
        }
    }
    return keep;
}

}  // namespace

bool zone_filter_needed(const std::vector<std::array<double, 3>>& x, const std::array<double, 3>& box_lengths,
                        const std::array<bool, 3>& decomposed, double list_radius) {
    for (int d = 0; d < 3; ++d) {
        if (!decomposed[d] || x.empty()) continue;
        double lo = x[0][d], hi = x[0][d];
        for (const auto& p : x) lo = std::min(lo, p[d]), hi = std::max(hi, p[d]);
        if (!(box_lengths[d] - (hi - lo) >= list_radius)) return true;
    }
    return false;
}

void filter_pairs_by_zone(const LocalAtomZones& zones, const std::vector<int>& order, int num_threads,
                          PairList& list) {
    const int n = list.cluster_i, m = list.cluster_j;
    const std::vector<ClusterZones> iz = summarise_clusters(zones, order, n);
    const std::vector<ClusterZones> jz = n == m ? iz : summarise_clusters(zones, order, m);
#pragma omp parallel for num_threads(num_threads) schedule(dynamic, 64)
    for (long ie = 0; ie < static_cast<long>(list.i.size()); ++ie) {
        const IEntry& ei = list.i[ie];
        const ClusterZones& ci = iz[ei.ci];
        for (int e = ei.j_begin; e < ei.j_end; ++e) {
            JEntry& je = list.j[e];
            const ClusterZones& cj = jz[je.cj];
            const std::array<int, 3> shift = shift_of(je.shift);
            std::uint32_t keep = 0;
            if (ci.zone_and & cj.zone_and) {
                keep = 0;  // every pair shares a zone bit
            } else if (!(ci.zone_or & cj.zone_or) && ci.one_image && cj.one_image) {
                bool same_image = true;  // no pair shares a bit: the images decide for all
                for (int d = 0; d < 3; ++d)
                    if (zones.decomposed[d] && shift[d] != cj.image[d] - ci.image[d]) same_image = false;
                if (same_image)
                    for (int i = 0; i < n; ++i)
                        if (ci.occupied >> i & 1u) keep |= cj.occupied << (i * m);
            } else {
                keep = kept_pairs(zones, order, n, m, ei.ci, je.cj, shift);
            }
            je.mask &= keep;
            je.excluded &= keep;
        }
    }
    // Compact in list order (independent of the thread count).
    std::vector<IEntry> kept_i;
    kept_i.reserve(list.i.size());
    long out = 0;
    for (const IEntry& ei : list.i) {
        const auto begin = static_cast<std::int32_t>(out);
        for (int e = ei.j_begin; e < ei.j_end; ++e)
            if (list.j[e].mask != 0 || list.j[e].excluded != 0) list.j[out++] = list.j[e];
        if (out > begin) kept_i.push_back({ei.ci, begin, static_cast<std::int32_t>(out)});
    }
    list.j.resize(out);
    list.i = std::move(kept_i);
}

}  // namespace mdcore
