#pragma once
// Running the mpi_collectives benchmark: command lines for mpirun and srun, one
// launch per (ranks, collective, algorithm variant) because Open MPI reads the
// forced algorithm once at MPI_Init; results into the database; and the
// measured comparison of a rules file against Open MPI's defaults.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mdtune/models/mpi_catalog.h"
#include "mdtune/models/mpi_selection.h"
#include "mdtune/db/mpi_store.h"

namespace mdtune::mpi {

enum class LauncherKind { Mpirun, Srun };

struct LaunchContext {
    LauncherKind kind = LauncherKind::Mpirun;
    std::string launcher = "mpirun";  // program to run
    std::string hostfile;             // mpirun --hostfile
    int ppn = 0;                      // ranks per node (mpirun --map-by ppr:N:node, srun --ntasks-per-node)
    int local_cores = 1;              // single node without hostfile: more ranks than this oversubscribe
    bool as_root = false;             // Open MPI refuses root unless told twice
    std::vector<std::pair<std::string, std::string>> extra_mca;
};

// srun inside a Slurm allocation (SLURM_JOB_ID set), mpirun otherwise; `choice`
// "auto", "mpirun" or "srun" overrides. Cores are those this process may use.
LaunchContext detect_launch_context(const std::string& choice, const std::string& hostfile, int ppn);

struct BenchSettings {
    std::vector<std::uint64_t> sizes;
    double budget_bytes = 16.0 * (1 << 20);  // bytes moved per rank per size
    long min_iters = 5, max_iters = 300;
    double warmup_frac = 0.1;
    double max_seconds = 0.4;                // per size, caps iterations of slow cases
};

// Default sweep: 8 B .. 4 MiB in factors of 4 (plus 4 MiB); --quick: factors of 32.
BenchSettings default_measure(bool quick);
// "8,64,1K,4M", "8-4M" (factors of 4) or "8-4M:2" (factor given).
std::vector<std::uint64_t> parse_sizes(const std::string& text);

enum class Selection { Forced, Default, Rules };

struct Job {
    int ranks = 2;
    models::mpi::Collective collective = models::mpi::Collective::Allreduce;
    Selection selection = Selection::Default;
    models::mpi::Variant variant;           // for Forced
    std::string rules_path;    // for Rules (absolute)
};

struct Command {
    std::vector<std::string> argv;
    std::vector<std::pair<std::string, std::string>> env;
    std::string display() const;  // shell-like, env first
};

// The launcher command for one job; the MCA parameters select the algorithm.
Command make_command(const LaunchContext& ctx, const std::string& binary, const Job& job, const BenchSettings& m);
// A launch that only reports the layout and the MPI library (no measurement).
Command make_probe_command(const LaunchContext& ctx, const std::string& binary, int ranks);

// One launch's parsed output.
struct LaunchOutput {
    bool have_header = false;
    std::string mpi_library;   // short form, "Open MPI 4.1.4"
    int nodes = 0, ppn = 0, ranks = 0;
    std::string mca_check;     // ok | unavailable | mismatch
    std::vector<db::MpiMeasurement> results;  // hardware id, sweep id left empty
    std::string error;         // from an {"type":"error"} line
    bool done = false;
};
// Feeds one line of mpi_collectives' stdout; lines that are not JSON are ignored.
void parse_output_line(const std::string& line, LaunchOutput& out);

struct LaunchResult {
    LaunchOutput output;
    int exit_code = -1;
    bool timed_out = false, interrupted = false;
    std::string stderr_tail;
    double wall_s = 0;
    bool usable() const { return output.have_header && output.error.empty(); }
};

LaunchResult launch(const Command& cmd, double timeout_s, const std::function<bool()>& stop = {});

struct SweepOptions {
    std::vector<int> ranks{2, 3, 4, 6, 8};
    std::vector<models::mpi::Collective> collectives = models::mpi::default_collectives();
    BenchSettings measure = default_measure(false);
    std::vector<long> segsizes{0};  // for algorithms that segment; 0 = unsegmented
    double timeout_s = 300;         // per launch
    bool remeasure = false;         // otherwise variants already in the database are skipped
    // Passes over the plan; later passes (in reverse order) keep, per row, the
    // faster measurement: on a shared machine a burst of load hits one pass.
    int rounds = 1;
    std::string binary;             // mpi_collectives
};

struct SweepProgress {
    std::size_t done = 0, planned = 0;
    const Job* job = nullptr;
    std::string message;
};

struct SweepReport {
    long sweep_id = 0;
    std::size_t launches = 0, reused = 0, failed_launches = 0;
    bool interrupted = false;
    double seconds = 0;
    std::string mpi_library;
};

// Plans and runs the sweep, writing each launch's rows in one transaction.
SweepReport run_sweep(db::MpiStore& store, const std::string& hardware_id, const LaunchContext& ctx,
                      const SweepOptions& opt, const std::function<void(const SweepProgress&)>& progress,
                      const std::function<bool()>& stop);

// The variants swept for a collective at a communicator size (default first).
std::vector<models::mpi::Variant> sweep_variants(models::mpi::Collective c, int ranks, const std::vector<long>& segsizes);

// ---- rules file against Open MPI's defaults, measured ------------------------

struct EvalOptions {
    std::vector<int> ranks{2, 4, 8};
    std::vector<models::mpi::Collective> collectives = models::mpi::default_collectives();
    BenchSettings measure = default_measure(false);
    int rounds = 2;  // default and rules runs alternate (ABBA) this many times each
    double timeout_s = 300;
    std::string binary;
};

struct EvalPoint {
    models::mpi::Collective collective = models::mpi::Collective::Allreduce;
    models::mpi::Site site;
    double default_us = 0, rules_us = 0;                // 10th percentiles, best of the rounds
    double default_median_us = 0, rules_median_us = 0;  // medians, median over rounds
    double speedup() const { return default_us / rules_us; }
    double speedup_median() const { return default_median_us / rules_median_us; }
};

struct EvalReport {
    std::vector<EvalPoint> points;
    bool canary_applied = false;  // Open MPI acted on a file from this writer
    std::string canary_note;
    std::string mpi_library;
    std::size_t failed_launches = 0;
    std::size_t rules_failures = 0, default_failures = 0;  // sizes that failed or gave wrong results
    bool interrupted = false;
    // Of the 10th percentiles; `median` uses the medians over iterations instead.
    double geomean_speedup(std::optional<models::mpi::Collective> c = std::nullopt, bool median = false) const;
};

// Checks with a canary file (allgather forced to two_proc at 3 ranks must fail)
// that Open MPI reads files of this format, then measures the rules file and the
// defaults at each size, alternating launches.
EvalReport evaluate_rules(const std::string& rules_path, const LaunchContext& ctx, const EvalOptions& opt,
                          const std::function<void(const std::string&)>& log, const std::function<bool()>& stop);

}  // namespace mdtune::mpi
