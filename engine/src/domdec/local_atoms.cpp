#include "domdec/local_atoms.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mdcore {

void LocalAtoms::add_group(int g, const UpdateGroups& groups, const Vec3& c, std::uint8_t zone) {
    group.push_back(g);
    centre.push_back(c);
    group_zone.push_back(zone);
    for (int k = groups.atom_begin[g]; k < groups.atom_begin[g + 1]; ++k) global.push_back(groups.atoms[k]);
    group_begin.push_back(static_cast<int>(global.size()));
}

HomeGroups initial_home_groups(const System& system, const UpdateGroups& groups, const DdCell& cell) {
    HomeGroups home;
    Vec3 x[3];
    for (int g = 0; g < groups.size(); ++g) {
        const int first = groups.atom_begin[g], count = groups.atom_count(g);
        for (int k = 0; k < count; ++k) x[k] = system.positions[groups.atoms[first + k]];
        const Vec3 c = group_centre(x, count, system.box);
        bool mine = true;
        for (int d = 0; d < 3; ++d) {
            const double wrapped = c[d] - system.box.lengths[d] * std::floor(c[d] / system.box.lengths[d]);
            mine = mine && cell.index_of(wrapped, d) == cell.index[d];
        }
        if (!mine) continue;
        home.group.push_back(g);
        for (int k = 0; k < count; ++k) {
            home.x.push_back(x[k]);
            home.v.push_back(system.velocities[groups.atoms[first + k]]);
        }
    }
    return home;
}

LocalAtoms local_home_atoms(const HomeGroups& home, const UpdateGroups& groups, const Box& box) {
    const int n = static_cast<int>(home.group.size());
    std::vector<int> first_atom(n + 1, 0);
    for (int i = 0; i < n; ++i) first_atom[i + 1] = first_atom[i] + groups.atom_count(home.group[i]);
    std::vector<int> by_group(n);
    std::iota(by_group.begin(), by_group.end(), 0);
    std::sort(by_group.begin(), by_group.end(), [&](int a, int b) { return home.group[a] < home.group[b]; });
    LocalAtoms local;
    for (int i : by_group) {
        const int count = first_atom[i + 1] - first_atom[i];
        const Vec3* x = &home.x[first_atom[i]];
        Vec3 c = group_centre(x, count, box);
        Vec3 wrap{};
        for (int d = 0; d < 3; ++d) {
            wrap[d] = box.lengths[d] * std::floor(c[d] / box.lengths[d]);
            c[d] -= wrap[d];
            if (c[d] >= box.lengths[d]) c[d] = 0.0;  // -tiny rounds up to L
        }
        local.add_group(home.group[i], groups, c, 0);
        for (int k = 0; k < count; ++k) {
            const Vec3 r = nearest_image({x[k][0] - x[0][0], x[k][1] - x[0][1], x[k][2] - x[0][2]}, box);
            local.x.push_back({x[0][0] - wrap[0] + r[0], x[0][1] - wrap[1] + r[1], x[0][2] - wrap[2] + r[2]});
            local.v.push_back(home.v[first_atom[i] + k]);
        }
    }
    local.home_groups = local.group_count();
    local.home_atoms = local.size();
    return local;
}

LocalAtomZones local_zones(const LocalAtoms& local, const Box& box, const std::array<bool, 3>& decomposed) {
    LocalAtomZones z;
    z.decomposed = decomposed;
    z.zone.resize(local.size());
    z.image.resize(local.size());
    for (int g = 0; g < local.group_count(); ++g)
        for (int a = local.group_begin[g]; a < local.group_begin[g + 1]; ++a) {
            z.zone[a] = local.group_zone[g];
            for (int d = 0; d < 3; ++d)
                z.image[a][d] = static_cast<std::int8_t>(std::floor(local.x[a][d] / box.lengths[d]));
        }
    return z;
}

void build_local_system(const System& global, const LocalAtoms& local, const std::vector<int>& settle_of_atom,
                        std::vector<int>& global_to_local, System& out) {
    const int n = local.size();
    out.kind = global.kind;
    out.box = global.box;
    out.atom_types = global.atom_types;
    out.lj = global.lj;
    static_cast<PhysicalSettings&>(out) = global;  // all of them: a new one is not forgotten here
    out.positions = local.x;
    out.velocities.assign(n, Vec3{0, 0, 0});
    std::copy(local.v.begin(), local.v.end(), out.velocities.begin());
    out.type.resize(n);
    out.charge.resize(n);
    out.mass.resize(n);
    out.exclusions.assign(n, {});
    out.settles.clear();
    for (int a = 0; a < n; ++a) global_to_local[local.global[a]] = a;
    const bool has_exclusions = !global.exclusions.empty();
    for (int a = 0; a < n; ++a) {
        const int g = local.global[a];
        out.type[a] = global.type[g];
        out.charge[a] = global.charge[g];
        out.mass[a] = a < local.home_atoms ? global.mass[g] : 0.0;
        if (has_exclusions)
            for (int b : global.exclusions[g])
                if (global_to_local[b] >= 0) out.exclusions[a].push_back(global_to_local[b]);
        std::sort(out.exclusions[a].begin(), out.exclusions[a].end());
        if (a < local.home_atoms && settle_of_atom[g] >= 0) {
            Settle s = global.settles[settle_of_atom[g]];
            s.o = global_to_local[s.o];
            s.h1 = global_to_local[s.h1];
            s.h2 = global_to_local[s.h2];
            out.settles.push_back(s);
        }
    }
    for (int a = 0; a < n; ++a) global_to_local[local.global[a]] = -1;
}

}  // namespace mdcore
