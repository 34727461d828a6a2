#pragma once
// A rank's atoms between two searches: its home update groups first, then the
// halo groups received pulse by pulse; each group's atoms are contiguous. Local
// coordinates are the rank's own frame: home groups whole around their centre
// (wrapped into the box), halo groups shifted by the periodic shift they crossed.
#include <cstdint>
#include <vector>

#include "domdec/dd_cell.h"
#include "domdec/update_groups.h"
#include "domdec/zone_filter.h"
#include "mdcore/system.h"

namespace mdcore {

// Home groups as they travel between ranks: atoms in UpdateGroups order.
struct HomeGroups {
    std::vector<int> group;  // global group index
    std::vector<Vec3> x, v;  // per atom, group after group
};

struct LocalAtoms {
    int home_groups = 0;
    int home_atoms = 0;
    std::vector<int> group;              // global group index per local group
    std::vector<int> group_begin{0};     // local atom range per group; one extra at the end
    std::vector<Vec3> centre;            // per local group, local frame
    std::vector<std::uint8_t> group_zone;
    std::vector<int> global;             // per local atom
    std::vector<Vec3> x;                 // per local atom, local frame (at the search)
    std::vector<Vec3> v;                 // per home atom
    int size() const { return static_cast<int>(global.size()); }
    int group_count() const { return static_cast<int>(group.size()); }
    void add_group(int g, const UpdateGroups& groups, const Vec3& c, std::uint8_t zone);
};

// The groups of the whole system whose centre lies in `cell` (the first
// partition: every rank has the whole system).
HomeGroups initial_home_groups(const System& system, const UpdateGroups& groups, const DdCell& cell);

// Home groups made whole around their centre, the centre wrapped into the box;
// sorted by global group so a rank's order does not depend on arrival order.
LocalAtoms local_home_atoms(const HomeGroups& home, const UpdateGroups& groups, const Box& box);

// The per-atom zone bits and images the pair filter reads.
LocalAtomZones local_zones(const LocalAtoms& local, const Box& box, const std::array<bool, 3>& decomposed);

// The System the rank's MdRunner runs on: the global one's parameters and the
// local atoms, halo atoms massless and at rest; exclusions and SETTLEs between
// local atoms (SETTLEs of home waters only). settle_of_atom[a]: the index in
// global.settles of the water whose O is a, else -1. global_to_local: scratch,
// natoms entries of -1 (restored on return).
void build_local_system(const System& global, const LocalAtoms& local, const std::vector<int>& settle_of_atom,
                        std::vector<int>& global_to_local, System& out);

}  // namespace mdcore
