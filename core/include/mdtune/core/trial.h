#pragma once
// What a trial is: which system, config and measurement settings were run where,
// and what came out. Every outcome is a row, failures included.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mdcore/run_report.h"
#include "mdcore/generators.h"
#include "mdtune/core/config.h"

namespace mdtune::inline core {

enum class TrialStatus { Ok, Invalid, Failed, Timeout, Crashed };
std::string_view to_string(TrialStatus s);
std::optional<TrialStatus> parse_trial_status(std::string_view s);
// Not a result: the run did not finish (an invalid run finished and was judged).
bool is_failure(TrialStatus s);

// The system a sweep runs: generator kind and size (what mdcore's --system takes),
// or a user's GROMACS box (--gro/--top, core/system_files.h). The kind is written
// and read as mdcore's name for it (mdcore::to_string / parse_system_kind: "lj",
// "water-ions"), in the database and in spaces alike; a user's box is kind "gro",
// keyed by a digest of its files' contents (not their paths).
inline constexpr const char* kFileSystemKind = "gro";

struct SystemDescriptor {
    mdcore::SystemKind kind = mdcore::SystemKind::Lj;  // generated systems only
    long natoms = 0;   // for water kinds: atoms = 3 * nwater (ions replace waters)
    unsigned long seed = 1;
    // A user's box: the files as given (empty when read back from a database) and
    // the digest of their contents; empty for generated systems.
    // (Default member initialisers: {kind, natoms, seed} then names every field
    // -Wmissing-field-initializers asks for.)
    std::string gro{}, top{}, files_digest{};
    // Its .mdp, as given; empty when none. The digest covers its content too, so a
    // box without one keeps the id it had before .mdp files were taken.
    std::string mdp{};

    bool from_files() const { return !files_digest.empty(); }
    std::string kind_name() const;                 // "water-ions", or "gro" for a user's box
    std::vector<std::string> mdcore_args() const;  // e.g. {"--system","water","--nwater","1000"}, {"--gro",F,"--top",F[,"--mdp",F]}
    std::string canonical() const;                 // "water:natoms=3000:seed=1", "gro:natoms=648:files=<digest>"
};

// The descriptor of a user's box from its canonical text (the database's system id);
// nullopt when the text is not one. Its files are not known (gro, top empty).
std::optional<SystemDescriptor> parse_file_system_id(const std::string& canonical);

struct MeasureSettings {
    long steps = 2000;
    long warmup = 200;
    int repeats = 3;
    double timeout_s = 120.0;
    std::string canonical() const;  // "steps=2000:warmup=200:repeats=3"
};

// One repeat of a trial measured in interleaved rounds (docs/user/sweep.md, "Rounds,
// verdicts and guard rails"): its round, its place in that round's random order, its
// time, the reference config's time in the same round and the CPU time the
// run got, from which a repeat that did not get the threads it asked for is
// marked noisy (excluded from the trial's statistics, never the best).
struct RepeatSample {
    int round = 0;
    int position = 0;               // place in the round's order (0 = first run)
    double ms_per_step = 0;
    double ref_ms_per_step = 0;     // the reference config in the same round; 0 when none
    double wall_s = 0;              // the whole run (set-up included)
    double measured_s = 0;          // wall seconds of its measured steps (ms_per_step x measured steps)
    double cpu_s = 0;               // user + system CPU seconds of the run
    int threads = 0;                // threads (x ranks) the run asked for
    double load_avg = 0;            // 1-minute load average before the run
    bool noisy = false;
    // The CPU the run got over the CPU it asked for: cpu_s / ((wall_s - measured_s)
    // + measured_s x threads), the set-up counted as serial; about 1 (or above) for
    // a run that got its threads, 0 when unknown.
    double cpu_share() const;
    // ms_per_step / ref_ms_per_step; 0 without a reference.
    double ratio() const { return ref_ms_per_step > 0 ? ms_per_step / ref_ms_per_step : 0.0; }
};

struct TrialResult {
    TrialStatus status = TrialStatus::Failed;
    int repeats = 0;                 // repeats that completed
    double ms_median = 0, ms_min = 0, ms_max = 0;
    double ns_per_day = 0;           // at the median
    double drift = 0;                // kJ/mol/ps per atom (of the median repeat)
    double drift_tolerance = 0;
    std::map<std::string, double> timings;  // task -> seconds per step (median repeat)
    // The median repeat's RunReport, typed: effective config (report->config),
    // pair-list stats (report->pairlist), the build that ran (report->build).
    // Absent when no repeat completed, and in rows of the first database schema.
    std::optional<mdcore::RunReport> report;
    std::string stderr_tail;         // last lines of stderr for failed/crashed/timeout
    double load_avg = 0;             // 1-minute load average when the trial started
    double wall_s = 0;
    // Per repeat, when measured in rounds (empty for back-to-back measurements
    // and for trials recorded before schema 6).
    std::vector<RepeatSample> samples;
};

// The engine that measured a trial: "gromacs" when its report says a GROMACS build
// ran it ("GROMACS <version>" as the engine version), else "mdcore" (rows without a
// report are mdcore's: other engines came later). Models learn from one engine's trials.
std::string_view trial_engine(const TrialResult& r);

// A trial that a stop (Ctrl-C, SIGTERM) cut short: status failed, stderr_tail
// "interrupted..." (with the rounds it completed); its samples are the repeats it
// measured. Not a result: a resume measures it again, even with --no-retry-failed.
inline constexpr std::string_view kInterruptedTail = "interrupted";
bool is_interrupted(const TrialResult& r);

// More than half of the trial's repeats were noisy: never the best.
bool is_noisy(const TrialResult& r);

// Ratios to the round's reference of the trial's clean repeats (those with a reference).
std::vector<double> clean_ratios(const TrialResult& r);
// ms per step of the trial's clean repeats.
std::vector<double> clean_times(const TrialResult& r);

// Identity of a trial for resume: same key = same work.
struct TrialKey {
    std::string hardware_id, system, config, build_id, measure;
    std::string str() const;  // joined with '|'
};

}  // namespace mdtune::core
