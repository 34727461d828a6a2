#pragma once
// Update groups: the atoms that always live on the same rank, because the
// update couples them (a SETTLE water) — one group per rigid molecule, one per
// remaining atom. A group belongs to the cell holding its centre (the mean of
// its atoms, each at the image nearest the first).
#include <vector>

#include "mdcore/system.h"

namespace mdcore {

struct UpdateGroups {
    std::vector<int> atom_begin;  // per group, into atoms; one extra at the end
    std::vector<int> atoms;       // atom indices, group by group
    double max_radius = 0;        // nm: largest atom distance from its group's centre
    int size() const { return static_cast<int>(atom_begin.size()) - 1; }
    int atom_count(int g) const { return atom_begin[g + 1] - atom_begin[g]; }
};

// Groups of a system in atom order of their first atom; the radius is measured
// on the system's positions (rigid groups keep it).
UpdateGroups make_update_groups(const System& system);

// Centre of the atoms at `x` (count n): each atom taken at the image nearest
// the first; the result is not wrapped.
Vec3 group_centre(const Vec3* x, int n, const Box& box);
// v - L round(v / L) per dimension.
Vec3 nearest_image(Vec3 v, const Box& box);

}  // namespace mdcore
