#include "domdec/update_groups.h"

#include <algorithm>
#include <cmath>

namespace mdcore {

Vec3 nearest_image(Vec3 v, const Box& box) {
    for (int d = 0; d < 3; ++d) v[d] -= box.lengths[d] * std::round(v[d] / box.lengths[d]);
    return v;
}

Vec3 group_centre(const Vec3* x, int n, const Box& box) {
    Vec3 sum{0, 0, 0};
    for (int k = 0; k < n; ++k) {
        const Vec3 r = nearest_image({x[k][0] - x[0][0], x[k][1] - x[0][1], x[k][2] - x[0][2]}, box);
        for (int d = 0; d < 3; ++d) sum[d] += r[d];
    }
    return {x[0][0] + sum[0] / n, x[0][1] + sum[1] / n, x[0][2] + sum[2] / n};
}

UpdateGroups make_update_groups(const System& system) {
    const int natoms = static_cast<int>(system.natoms());
    std::vector<int> first_of(natoms, -1);  // settle index for its O; -2 for its H atoms
    for (std::size_t s = 0; s < system.settles.size(); ++s) {
        const Settle& w = system.settles[s];
        first_of[w.o] = static_cast<int>(s);
        first_of[w.h1] = first_of[w.h2] = -2;
    }
    UpdateGroups groups;
    groups.atoms.reserve(natoms);
    groups.atom_begin.reserve(natoms + 1);
    for (int a = 0; a < natoms; ++a) {
        if (first_of[a] == -2) continue;
        groups.atom_begin.push_back(static_cast<int>(groups.atoms.size()));
        groups.atoms.push_back(a);
        if (first_of[a] >= 0) {
            const Settle& w = system.settles[first_of[a]];
            groups.atoms.push_back(w.h1);
            groups.atoms.push_back(w.h2);
        }
    }
    groups.atom_begin.push_back(static_cast<int>(groups.atoms.size()));
    Vec3 x[3];
    for (int g = 0; g < groups.size(); ++g) {
        const int n = groups.atom_count(g);
        if (n == 1) continue;
        for (int k = 0; k < n; ++k) x[k] = system.positions[groups.atoms[groups.atom_begin[g] + k]];
        const Vec3 c = group_centre(x, n, system.box);
        for (int k = 0; k < n; ++k) {
            const Vec3 r = nearest_image({x[k][0] - c[0], x[k][1] - c[1], x[k][2] - c[2]}, system.box);
            groups.max_radius = std::max(groups.max_radius, std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]));
        }
    }
    return groups;
}

}  // namespace mdcore
