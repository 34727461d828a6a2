#pragma once
// Moves home update groups to the rank whose cell holds their centre, one
// decomposed dimension after the other (a group crossing a corner hops twice),
// between neighbour ranks only: between two searches a group moves far less
// than a cell. Collective over the PP communicator.
#include <mpi.h>

#include "domdec/dd_cell.h"
#include "domdec/local_atoms.h"

namespace mdcore {

// Throws std::runtime_error naming the group when its centre is more than one
// cell away from this rank's cell along a dimension.
void migrate_home_groups(HomeGroups& home, const UpdateGroups& groups, const DdCell& cell, const Box& box,
                         MPI_Comm comm);

}  // namespace mdcore
