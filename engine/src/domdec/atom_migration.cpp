#include "domdec/atom_migration.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "domdec/mpi_exchange.h"

namespace mdcore {
namespace {

constexpr int kTagBelow = 100, kTagAbove = 110;

// Appends a group (index, then x and v of each atom) to a message.
void pack(const HomeGroups& home, int i, int first, int count, std::vector<double>& out) {
    out.push_back(home.group[i]);
    for (int k = first; k < first + count; ++k)
        for (const Vec3* p : {&home.x[k], &home.v[k]}) out.insert(out.end(), p->begin(), p->end());
}

void unpack(const std::vector<double>& in, const UpdateGroups& groups, HomeGroups& home) {
    for (std::size_t at = 0; at < in.size();) {
        const int g = static_cast<int>(in[at++]);
        home.group.push_back(g);
        for (int k = 0; k < groups.atom_count(g); ++k, at += 6) {
            home.x.push_back({in[at], in[at + 1], in[at + 2]});
            home.v.push_back({in[at + 3], in[at + 4], in[at + 5]});
        }
    }
}

}  // namespace

void migrate_home_groups(HomeGroups& home, const UpdateGroups& groups, const DdCell& cell, const Box& box,
                         MPI_Comm comm) {
    for (int d = 0; d < 3; ++d) {
        if (!cell.decomposed(d)) continue;
        HomeGroups kept;
        std::vector<double> to_below, to_above, from_below, from_above;
        int first = 0;
        for (std::size_t i = 0; i < home.group.size(); ++i) {
            const int count = groups.atom_count(home.group[i]);
            const Vec3 c = group_centre(&home.x[first], count, box);
            const double wrapped = c[d] - box.lengths[d] * std::floor(c[d] / box.lengths[d]);
            const int n = cell.cells[d];
            const int step = ((cell.index_of(wrapped, d) - cell.index[d]) % n + n) % n;
            if (step == 0) {
                kept.group.push_back(home.group[i]);
                kept.x.insert(kept.x.end(), home.x.begin() + first, home.x.begin() + first + count);
                kept.v.insert(kept.v.end(), home.v.begin() + first, home.v.begin() + first + count);
            } else if (step == 1) {
                pack(home, static_cast<int>(i), first, count, to_above);
            } else if (step == n - 1) {
                pack(home, static_cast<int>(i), first, count, to_below);
            } else {
                throw std::runtime_error("domain decomposition: update group " + std::to_string(home.group[i]) +
                                         " (atom " + std::to_string(groups.atoms[groups.atom_begin[home.group[i]]]) +
                                         ") moved more than one cell along " + std::string(1, "XYZ"[d]) +
                                         " between two searches");
            }
            first += count;
        }
        // Groups going up arrive at the rank above from its neighbour below, and vice versa.
        sendrecv_sized(comm, cell.rank_above[d], cell.rank_below[d], to_above, from_below, kTagAbove);
        sendrecv_sized(comm, cell.rank_below[d], cell.rank_above[d], to_below, from_above, kTagBelow);
        unpack(from_below, groups, kept);
        unpack(from_above, groups, kept);
        home = std::move(kept);
    }
}

}  // namespace mdcore
