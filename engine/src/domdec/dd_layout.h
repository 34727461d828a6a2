#pragma once
// The domain-decomposition layout of a run: how many ranks, how many of them do
// only PME, and the Cartesian grid of cells the PP ranks own. Checked before a
// run starts: a layout that cannot work is refused with a message naming the
// layout and the limit it breaks.
#include <array>
#include <optional>
#include <stdexcept>
#include <string>

#include "mdcore/system.h"

namespace mdcore {

struct DdLayoutError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

struct DdLayout {
    int ranks = 1;                   // MPI_COMM_WORLD
    int npme = 0;                    // PME-only ranks (the last npme ranks)
    std::array<int, 3> cells{1, 1, 1};
    double comm_distance = 0;        // nm: rlist + 2 x the largest update-group radius
    std::string reason;              // why this grid (auto) or "as requested"
    int pp_ranks() const { return ranks - npme; }
};

// Halo volume per cell (nm^3) of the eighth-shell zones for a grid: the box of
// edge (cell + d) along decomposed dimensions, minus the cell. The cost --dd auto
// minimises (GROMACS' optimizeDDCells estimates the same communicated volume).
double dd_halo_volume(const Box& box, const std::array<int, 3>& cells, double comm_distance);

// Resolves --dd (nullopt: auto) and --npme (-1: auto) for `ranks` MPI ranks.
// pme_ranks_available: whether this build has PME-only ranks (an MPI build).
// Throws DdLayoutError (message names the layout and the limit) when impossible.
DdLayout resolve_dd_layout(const Box& box, int ranks, const std::optional<std::array<int, 3>>& cells, int npme,
                           double comm_distance, bool pme_ranks_available);

std::string format_dd_cells(const std::array<int, 3>& cells);

}  // namespace mdcore
