#pragma once
// What a `gmx mdrun` md.log says about a run: the version, the settings mdrun
// chose (nstlist, rlist, the rank and thread layout, the DD grid), the speed,
// the cycle and time accounting table, the conserved-energy drift, and the fatal
// error of a run that stopped. Read as GROMACS 2019-2024 write it; a line that
// does not fit is skipped, never guessed, so a field absent from the log stays empty.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mdtune::gromacs {

// One row of "R E A L   C Y C L E   A N D   T I M E   A C C O U N T I N G".
struct CycleRow {
    std::string task;        // as GROMACS prints it, "PME mesh *" without the marker: "PME mesh"
    int ranks = 0;           // 0 where the row has no rank/thread columns ("Rest", "PME wait for PP")
    int threads = 0;
    long calls = 0;
    double wall_s = 0;
    double giga_cycles = 0;
    double percent = 0;
    bool pme_breakdown = false;  // a row of the "Breakdown of PME mesh computation"
};

// One energy print of the run ("Step Time" then "Energies (kJ/mol)" blocks).
struct EnergyFrame {
    long step = 0;
    double time_ps = 0;
    std::map<std::string, double> terms;  // GROMACS' names: "Potential", "Conserved En.", "Temperature"
};

struct MdLog {
    std::string version;      // "2022.5-Debian_2022.5_2" from "GROMACS:      gmx mdrun, version ..."
    long natoms = 0;          // "There are: N Atoms"
    // The .tpr's input parameters as the log dumps them ("nstlist" -> "10", "rcoulomb" -> "1").
    std::map<std::string, std::string> parameters;
    // Settings mdrun chose at start-up.
    std::vector<std::string> changes;  // "Changing nstlist from 10 to 40, rlist from 1 to 1.098", verbatim
    int nstlist = 0;                   // the one used (after a change), else the input's
    double rlist = 0, rlist_inner = 0; // nm: the outer and (with dynamic pruning) inner list radii
    int prune_interval = 0;            // steps between dynamic prunes (0: none)
    std::string kernel;                // "SIMD 4x4", "GPU"
    int mpi_ranks = 0;                 // "Using N MPI threads|processes"
    int omp_threads = 0;               // per rank
    std::array<int, 3> dd{0, 0, 0};    // "Domain decomposition grid 2 x 1 x 1" (0: not decomposed)
    int pme_ranks = -1;                // "separate PME ranks K" (-1: not said)
    // Speed over the timed steps (after -resetstep).
    double core_s = 0, wall_s = 0;     // "Time:" line
    double ns_per_day = 0;             // "Performance:" line
    std::vector<CycleRow> cycles;
    std::optional<double> drift;       // "Conserved energy drift: X kJ/mol/ps per atom"
    std::vector<EnergyFrame> frames;   // the energy prints before the averages (every nstlog steps)
    bool finished = false;             // "Finished mdrun"
    // A run GROMACS stopped: the message after "Fatal error:" (lines joined) and its source.
    std::string fatal_error;
    std::string fatal_source;          // "src/gromacs/domdec/domdec_setup.cpp (line 816)"

    // A parameter's value, or "" when the log does not have it.
    std::string parameter(const std::string& name) const;
    // The timed steps: from ns/day, wall time and dt (GROMACS' own accounting),
    // 0 when any of them is missing.
    long timed_steps() const;
};

// Parses md.log text (any size the caller read; lines over 64 KiB are skipped).
MdLog parse_md_log(std::string_view text);

// The fatal error of a GROMACS program's output (md.log or stderr): the message
// and its source; empty when there is none.
struct FatalError {
    std::string message, source;
};
FatalError find_fatal_error(std::string_view text);

// Why GROMACS refused a layout, in one short phrase, when the message is one of
// the refusals a sweep meets (no DD grid for the ranks, too many PME ranks, a
// thread count clash, a missing GPU); "" for any other error.
std::string infeasibility_reason(std::string_view fatal_message);

}  // namespace mdtune::gromacs
