#pragma once
// From a fitted SelectionModel to an Open MPI rules file: for every communicator
// size, the predicted best variant over a quarter-octave grid of message sizes,
// merged into thresholds and converted to Open MPI's message-size measure.
#include <string>
#include <vector>

#include "mdtune/mpi/rules_file.h"
#include "mdtune/models/mpi_selection.h"

namespace mdtune::mpi {

struct RulesOptions {
    std::vector<models::mpi::Collective> collectives;  // empty: every collective with data
    std::vector<int> comm_sizes;          // empty: each size from the smallest to the largest measured
    int ppn = 0;                          // ranks per node assumed for sizes not measured; 0: the largest measured
    std::vector<std::string> header;      // extra comment lines
};

// The (nodes, ppn) a communicator of `ranks` is assumed to have: a measured
// layout with that many ranks if there is one, else `ppn` ranks per node.
models::mpi::Site layout_for(int ranks, const std::vector<models::mpi::Site>& measured_layouts, int ppn);

RulesFile build_rules(const models::mpi::SelectionModel& model, const std::vector<models::mpi::Observation>& data, const RulesOptions& opt);

}  // namespace mdtune::mpi
