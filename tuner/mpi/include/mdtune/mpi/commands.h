#pragma once
// `mdtune mpi rules`, `show` and `evaluate` as library functions: each reads the
// database (and for evaluate, launches mpi_collectives), does the work and returns
// what happened as a struct; the CLI (cli/src/mpi_command.cpp) only parses
// flags into the requests and prints the results.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mdtune/core/hardware.h"
#include "mdtune/models/mpi_catalog.h"
#include "mdtune/models/mpi_selection.h"
#include "mdtune/mpi/rules_file.h"
#include "mdtune/mpi/sweep.h"
#include "mdtune/db/mpi_store.h"
#include "mdtune/db/store.h"

namespace mdtune::mpi {

// Bad input to a command (no measurements, unreadable rules file): the CLI exits 2.
struct InputError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// The measurements of one hardware id, with the MPI library chosen: this
// machine's library when it has rows for it, else the one with the most rows.
struct Dataset {
    std::string hardware_id, mpi_library;
    int cores_per_node = 0;  // from the stored hardware record (what oversubscription is relative to)
    std::vector<db::MpiMeasurement> rows;
    std::vector<models::mpi::Observation> obs;
    std::string note;  // set when another hardware id than asked for was used, and why
};

// hardware: an id, or "this" (this_machine's id; when the file holds no rows for
// it but rows of exactly one other machine, those: a fingerprint can drift on a VM).
Dataset load_dataset(db::Store& store, const HardwareInfo& this_machine, const std::string& hardware,
                     const std::vector<models::mpi::Collective>& collectives);

// ---- rules ------------------------------------------------------------------

struct RulesRequest {
    std::string out;                            // the rules file to write
    std::vector<models::mpi::Collective> collectives = models::mpi::default_collectives();
    std::string hardware = "this";
    models::mpi::CvGroup cv_group = models::mpi::CvGroup::Layout;         // how the reported held-out regret is grouped
    models::mpi::FitOptions fit;                             // cores_per_node is taken from the data
    bool guard = true;                          // drop collectives whose model loses to the default
    std::vector<int> comm_sizes;                // communicator sizes to write rules for (empty: 2..max measured)
    int ppn = 0;                                // ranks per node of those sizes (0: as measured)
};

// A collective's model against Open MPI's default, one message size held out at a time.
struct GuardDecision {
    models::mpi::Collective collective = models::mpi::Collective::Allreduce;
    models::mpi::CvSummary held_out;
    bool kept = true;  // false: the file has no rules for it (left to Open MPI)
    std::string note() const;
};

struct RulesResult {
    Dataset data;
    models::mpi::FitOptions fit;  // as used (cores_per_node filled in)
    models::mpi::SelectionModel model;
    models::mpi::CvReport cv;     // grouped as asked
    std::vector<GuardDecision> guard;
    RulesFile file;  // as written to RulesRequest::out (and read back)
    std::size_t comm_sizes = 0, message_rules = 0;
};

// "ridge allreduce 0.1 alltoall 1": the penalty each collective's model used.
std::string describe_ridge(const models::mpi::SelectionModel& model, const std::vector<models::mpi::Collective>& collectives);

// Fits the selection model, cross-validates it, writes the rules file and
// stores the models (mpi_models). Throws InputError when there is nothing to fit.
RulesResult write_rules(db::Store& store, const HardwareInfo& this_machine, const RulesRequest& request);

// ---- show -------------------------------------------------------------------

struct ShowRequest {
    std::vector<models::mpi::Collective> collectives = models::mpi::default_collectives();
    std::string hardware = "this";
    std::optional<std::vector<int>> only_ranks;  // communicator sizes to list (all when empty)
    models::mpi::FitOptions fit;
    std::optional<RulesFile> rules;               // also list what this rules file decides
    std::size_t worst = 0;                        // how many worst held-out points to return
};

// One (collective, site): measured best, the model's choice, Open MPI's default.
struct ShowRow {
    models::mpi::Collective collective = models::mpi::Collective::Allreduce;
    models::mpi::Site site;
    std::optional<std::pair<models::mpi::Variant, double>> best;  // empty: every variant failed here
    std::optional<models::mpi::Prediction> predicted;
    std::optional<double> predicted_measured_us;     // the predicted variant's measured latency
    bool predicted_failed = false;                   // it was measured here and failed
    std::optional<double> default_us;
    std::optional<models::mpi::Variant> rules_choice;             // with ShowRequest::rules: its decision here
    bool rules_silent = false;                       // ... which had no rule here
};

// Geometric-mean speed-up over Open MPI's default, over the sizes where both were measured.
struct Speedup {
    double log_sum = 0;
    std::size_t sizes = 0;
    double geomean() const;
};

struct ShowResult {
    Dataset data;
    std::vector<ShowRow> rows;  // by collective, then layout, then size
    std::map<models::mpi::Collective, Speedup> measured_best, predicted_best;
    models::mpi::CvReport cv;                // one layout held out at a time
    std::vector<models::mpi::CvPoint> worst; // the largest held-out regrets, worst first
};

ShowResult show_selection(db::Store& store, const HardwareInfo& this_machine, const ShowRequest& request);

// ---- evaluate ---------------------------------------------------------------

struct EvaluateResult {
    std::string text;    // the rules file as read
    std::string digest;  // how the database names it
    EvalReport report;
    bool stored = false; // rows written (some size was measured both ways)
};

// Reads and checks the rules file (RulesError for one Open MPI would drop), measures
// it against the defaults (evaluate_rules) and stores the paired latencies under
// hardware_id. InputError when the file cannot be read.
EvaluateResult evaluate_and_store(db::Store& store, const std::string& hardware_id, const std::string& rules_path,
                                  const LaunchContext& launch, const EvalOptions& options,
                                  const std::function<void(const std::string&)>& log,
                                  const std::function<bool()>& stop);

}  // namespace mdtune::mpi
