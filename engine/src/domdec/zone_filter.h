#pragma once
// Which atom pairs of a rank's pair list this rank computes under the
// eighth-shell zone scheme. The search runs on the rank's home and halo atoms
// with the box's periodic shifts, on a grid whose clusters each hold one zone
// and without the cluster pairs of zones sharing a bit (ClusterGrid::set_zones),
// so in a decomposed run the first rule below is already met and the second
// does the work; the filter checks both for any list. It keeps an atom pair
// only when
//  - its zones share no decomposed dimension (zone bit d set: the atom came
//    from the neighbour above along d), so every pair of cells is computed on
//    exactly one rank: the one whose cell is the lower corner of both; and
//  - along decomposed dimensions the list's periodic shift is the one between
//    the atoms' own images (halo atoms carry their shift already), so no pair
//    is computed twice through the box's periodicity.
// Along undecomposed dimensions every periodic image counts, as on one rank.
#include <array>
#include <cstdint>
#include <vector>

#include "pairlist/pair_list.h"

namespace mdcore {

struct LocalAtomZones {
    std::vector<std::uint8_t> zone;               // per local atom: bit d = shifted along d
    std::vector<std::array<std::int8_t, 3>> image;  // per local atom: floor(x / L) of its local coordinates
    std::array<bool, 3> decomposed{false, false, false};
};

// Whether the filter can change a list searched on these local coordinates: no
// when, along every decomposed dimension, the atoms span at most L - list_radius
// (list_radius >= the list's radius). Then a pair reached through a periodic
// shift other than the atoms' own images lies at least the list radius apart and
// adds nothing, and the zone-pure grid already skipped the pairs of zones sharing
// a bit. Water-24k at 2x1x1: a rank spans 4.6 of 6.26 nm, radius 1.43.
bool zone_filter_needed(const std::vector<std::array<double, 3>>& x, const std::array<double, 3>& box_lengths,
                        const std::array<bool, 3>& decomposed, double list_radius);

// Clears the mask bits of pairs this rank does not compute and drops entries
// left empty. order[slot] = local atom or -1 (the cluster grid's order).
void filter_pairs_by_zone(const LocalAtomZones& zones, const std::vector<int>& order, int num_threads,
                          PairList& list);

}  // namespace mdcore
