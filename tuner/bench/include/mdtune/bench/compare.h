#pragma once
// The regression gate: per benchmark, baseline vs candidate medians, relative
// change, a Mann-Whitney U p-value and a verdict (the statistics are in
// models, mdtune/models/statistics.h).
//
// The unit of independence is a run: one process of a suite. Repetitions inside
// one process share the machine's state at that moment (its clock, its
// neighbours), so they are summarised by their median and each run contributes
// ONE value per benchmark (run_medians_of in ingest.h).
//
// Verdicts (statistical mode, wall time):
//   too noisy    fewer than min_runs independent runs on either side ("too few
//                independent runs": the comparison then gives no verdict), or so
//                few that even a complete separation could not reach p < alpha
//                (after Holm's correction over the benchmarks compared); or the
//                test cannot resolve a change of the threshold's size at the
//                observed spread (see `resolution`) and did not find one.
//   regression   p < alpha and the median got slower by more than the threshold
//                and by more than the benchmark's historic drift (NoiseFloor)
//   improvement  likewise, faster
//   no change    anything else: not significant although the test could have
//                resolved the threshold, or significant but within the threshold
//                or within the historic drift.
// resolution: the smallest relative change the test detects with 80 % power,
//   (z(1-alpha/2) + z(0.8)) * sqrt(pi/3) * sqrt(s_b^2/n_b + s_c^2/n_c), with
//   s = IQR / (1.349 median) (the normal-equivalent relative spread) and sqrt(pi/3)
//   the rank test's efficiency loss. With 9 values a side and alpha 0.05 the
//   test is "too noisy" once the spread (IQR/median) exceeds about the threshold.
// A comparison in which some benchmark is "too noisy" (and none regressed) is
// inconclusive, not a pass: the gate could not have seen a regression there.
// Exact mode (instruction counts, deterministic): a change beyond the threshold
// is a regression/improvement without a p-value test (the p-value is still
// reported); counts that vary between runs by more than the threshold make the
// benchmark "too noisy"; one run a side is enough and no drift applies.
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mdtune::bench {

enum class Verdict { Regression, Improvement, NoChange, TooNoisy };
std::string_view to_string(Verdict v);  // "regression", "improvement", "no change", "too noisy"

// Independent runs (processes) per suite that `mdtune bench run` makes for wall
// time and that `mdtune bench compare` needs a side for a verdict. Seven, because
// the smallest two-sided U-test p-value for n runs a side is 2/C(2n, n): 0.0079
// at 5 (Holm over 12 benchmarks then never gets below 0.05), 5.8e-4 at 7 (up to
// 85 benchmarks per comparison).
inline constexpr int kDefaultRuns = 7;

struct GateOptions {
    double alpha = 0.05;
    double threshold = 0.03;   // relative change that matters (3 %)
    int min_runs = kDefaultRuns;  // independent runs per side, statistical mode (exact mode: 1)
    bool exact_counts = false; // instruction counts: compare values, no test needed
    // Holm's step-down correction over the benchmarks of one comparison: alpha
    // bounds the chance that any of them is flagged by chance (12 benchmarks
    // tested at 0.05 each would flag one of two identical builds ~46 % of the time).
    bool family_wise = true;
    // An inconclusive comparison passes (the gate's behaviour before it could say
    // "inconclusive"): for a job that must not block on a noisy runner.
    bool allow_inconclusive = false;
};

// How far a benchmark's wall time wanders between measurements taken at
// different times on one machine, with no code change needed: from its history
// (noise_floor.h). A difference inside it is not a regression.
struct NoiseFloor {
    double drift = 0;          // relative; 0 = unknown or none
    std::size_t labels = 0;    // past labels it was estimated from
};
using NoiseFloors = std::map<std::string, NoiseFloor>;  // benchmark name -> floor

struct BenchComparison {
    std::string name;
    std::size_t n_baseline = 0, n_candidate = 0;
    double median_baseline = 0, median_candidate = 0;
    double change = 0;         // median_candidate / median_baseline - 1 (> 0: slower / more instructions)
    double p_value = 1;        // two-sided Mann-Whitney U
    double p_adjusted = 1;     // what the verdict used: p_value, or Holm-adjusted over the comparison
    bool tested = false;       // went through the U test (enough repetitions, statistical mode)
    bool exact_p = false;
    double spread_baseline = 0, spread_candidate = 0;  // IQR / median
    double resolution = 0;     // smallest detectable relative change (statistical mode; inf if unknown)
    NoiseFloor floor;          // historic drift applied (drift 0: none)
    bool too_few_runs = false; // fewer than min_runs on a side: the comparison gives no verdict
    // Too noisy: independent runs a side that would resolve the threshold at the
    // observed spread (wall time; 0 when more runs would not help, e.g. counts
    // that are not reproducible).
    std::size_t runs_to_resolve = 0;
    Verdict verdict = Verdict::NoChange;
    std::string reason;        // why, in a few words
};

// Median and quartiles with linear interpolation between order statistics.
double quantile(std::vector<double> values, double q);
double median(std::span<const double> values);
double relative_spread(std::span<const double> values);  // IQR / median (0 for fewer than 2 values)

BenchComparison compare_benchmark(const std::string& name, std::span<const double> baseline,
                                  std::span<const double> candidate, const GateOptions& options,
                                  const NoiseFloor& floor = {});

// Benchmark name -> values in one unit: one per run (run medians) for the gate.
using Samples = std::map<std::string, std::vector<double>>;

// What a whole comparison says, most severe first: a regression fails it whatever
// else it holds; too few runs gives no verdict at all; a benchmark too noisy to
// resolve the threshold makes it inconclusive ("insufficient data", which is not
// "no change"); otherwise it passes.
enum class GateOutcome { Fail, NoVerdict, Inconclusive, Pass };
std::string_view to_string(GateOutcome o);
// Exit status of `mdtune bench compare`: 0 pass, 1 fail, 2 no verdict, 3 inconclusive.
int exit_code(GateOutcome o);

struct GateReport {
    GateOptions options;
    std::string baseline, candidate;  // what was compared (labels / commits), for the header
    std::string metric;               // "real_time" | "instructions"
    std::string floor_note;           // where the noise floors came from (or why none), for the header
    std::vector<BenchComparison> rows;  // regressions first, then too noisy, improvements, no change
    std::vector<std::string> only_baseline, only_candidate;
    double geomean_ratio = 1.0;       // geometric mean of median_candidate / median_baseline
    std::size_t geomean_count = 0;
    std::size_t count(Verdict v) const;
    // Some benchmark has fewer than min_runs runs a side: no verdict at all.
    bool no_verdict() const;
    bool failed() const { return !no_verdict() && count(Verdict::Regression) > 0; }
    // Some benchmark could not resolve the threshold and none regressed.
    bool inconclusive() const { return !no_verdict() && !failed() && count(Verdict::TooNoisy) > 0; }
    // Fail, no verdict, inconclusive (pass when options.allow_inconclusive) or pass.
    GateOutcome outcome() const;
    std::string too_few_runs_text() const;  // "too few independent runs: N < K" ("" when enough)
    // "inconclusive: BM_a (...), BM_b (...) cannot resolve +-3.0%: ..." naming what
    // would resolve them ("" when the comparison is not inconclusive).
    std::string inconclusive_text() const;
};

// Values must be in one unit per benchmark on both sides (seconds or instructions).
// Floors (wall time only) raise the bar per benchmark to its historic drift.
GateReport run_gate(const Samples& baseline, const Samples& candidate, const GateOptions& options,
                    const NoiseFloors& floors = {});

enum class ReportFormat { Table, Markdown, Json };
std::string format_report(const GateReport& report, ReportFormat format);

// "3%" -> 0.03. A bare number is rejected: "3" and "0.03" would both be plausible.
double parse_threshold(std::string_view text);
// Value in seconds or instructions, for people: "12.35 us", "4.21 M".
std::string format_value(double v, bool instructions);

}  // namespace mdtune::bench
