#pragma once
// mpi_collectives' command line: its options, usage text and strict parser (every
// flag known, every value parsed whole; errors name the flag).
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mdtune/models/mpi_catalog.h"

namespace mpi_collectives {

using mdtune::models::mpi::Collective;

struct Options {
    Collective collective = Collective::Allreduce;
    std::vector<std::uint64_t> sizes;
    std::string selection = "default";  // forced | default | rules
    int algorithm = 0;
    std::optional<long> segsize;
    double budget_bytes = 64.0 * (1 << 20);  // bytes moved per rank per size, sets the iteration count
    long min_iters = 5, max_iters = 1000;
    double warmup_frac = 0.1;
    double max_seconds = 2.0;  // per size: caps iterations for slow (oversubscribed) cases
    bool probe = false;        // report the layout and library only
};

extern const char* const kUsage;

// --help is answered before MPI_Init, so it works without mpirun.
bool wants_help(int argc, char** argv);

struct ArgError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

Options parse(int argc, char** argv);

}  // namespace mpi_collectives
