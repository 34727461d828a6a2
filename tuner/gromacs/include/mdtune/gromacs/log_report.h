#pragma once
// A finished `gmx mdrun`'s md.log as the tuner's typed run report: speed over the
// timed steps, the accounting table as task timings (mdcore's task names where the
// meaning is the same: search, nonbonded, pme_spread, pme_fft, pme_solve,
// pme_gather, update, constraints; GROMACS' own rows in snake case otherwise), the
// settings mdrun used, first and last energies, and the conserved-energy drift
// fitted over the log's energy prints after the warm-up, with the same AR(1)
// standard error as mdcore's, so one validity rule judges both engines.
#include <stdexcept>

#include "mdcore/run_report.h"
#include "mdtune/gromacs/md_log.h"

namespace mdtune::gromacs {

struct LogReportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// `steps` and `warmup` as the trial asked (-nsteps, -resetstep). Throws
// LogReportError naming what is missing when the log has no speed or timing.
mdcore::RunReport report_from_md_log(const MdLog& log, long steps, long warmup);

// The report's name of an accounting row ("Neighbor search" -> "search",
// "NB X/F buffer ops." -> "nb_x_f_buffer_ops").
std::string task_name(const std::string& gromacs_row);

}  // namespace mdtune::gromacs
