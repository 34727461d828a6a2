#include "domdec/zone_filter.h"

namespace mdcore {
namespace {

std::array<int, 3> shift_of(int index) {
    return {index % kShiftsPerDim - kShiftRange, (index / kShiftsPerDim) % kShiftsPerDim - kShiftRange,
            index / (kShiftsPerDim * kShiftsPerDim) - kShiftRange};
}

}  // namespace

void filter_pairs_by_zone(const LocalAtomZones& zones, const std::vector<int>& order, int num_threads,
                          PairList& list) {
    const int n = list.cluster_i, m = list.cluster_j;
    const auto& zone = zones.zone;
    const auto& image = zones.image;
#pragma omp parallel for num_threads(num_threads) schedule(dynamic, 64)
    for (long ie = 0; ie < static_cast<long>(list.i.size()); ++ie) {
        const IEntry& ei = list.i[ie];
        for (int e = ei.j_begin; e < ei.j_end; ++e) {
            JEntry& je = list.j[e];
            const std::array<int, 3> shift = shift_of(je.shift);
            std::uint32_t keep = 0;
            for (int i = 0; i < n; ++i) {
                const int a = order[ei.ci * n + i];
                if (a < 0) continue;
                for (int j = 0; j < m; ++j) {
                    const int b = order[je.cj * m + j];
                    if (b < 0 || (zone[a] & zone[b])) continue;
                    bool same_image = true;
                    for (int d = 0; d < 3; ++d)
                        if (zones.decomposed[d] && shift[d] != image[b][d] - image[a][d]) same_image = false;
                    if (same_image) keep |= 1u << (i * m + j);
                }
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
