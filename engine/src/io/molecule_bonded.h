#pragma once
// A molecule type's interactions in the engine's form (mdcore/interactions.h),
// in indices local to the molecule, and its exclusions: built once per type and
// copied, shifted, for each molecule of the system.
#include <utility>
#include <vector>

#include "io/topology.h"
#include "mdcore/gromacs_input.h"
#include "mdcore/interactions.h"

namespace mdcore {

struct MoleculeBonded {
    BondedInteractions terms;
    std::vector<std::pair<int, int>> exclusions;  // first < second, sorted, unique
};

// Converts units (degrees to radians, sigma/epsilon to c6/c12, fudgeQQ into the
// 1-4 charge product), turns bonds into constraints as `constraints` asks
// (h-bonds: bonds with an atom whose name starts with H, as grompp decides) and
// generates the exclusions of atoms within nrexcl bonds.
MoleculeBonded molecule_bonded(const Topology& top, const MoleculeType& mol, ConstraintMode constraints);

// Appends `mol`'s interactions with every atom index shifted by `offset`.
void append_shifted(const BondedInteractions& mol, int offset, BondedInteractions& out);

// The CMAP grids of the topology in the engine's form (index = [ cmaptypes ] order).
std::vector<CmapGrid> cmap_grids(const Topology& top);

}  // namespace mdcore
