#pragma once
// The regression gate: per benchmark, baseline vs candidate medians, relative
// change, a Mann-Whitney U p-value and a verdict (the statistics are in
// models, mdtune/models/statistics.h).
//
// Verdicts (statistical mode, wall time):
//   too noisy    fewer than min_repetitions (5) on either side, or so few that
//                even a complete separation could not reach p < alpha; or the
//                test cannot resolve a change of the threshold's size at the
//                observed spread (see `resolution`) and did not find one.
//   regression   p < alpha and the median got slower by more than the threshold
//   improvement  p < alpha and the median got faster by more than the threshold
//   no change    anything else: not significant although the test could have
//                resolved the threshold, or significant but within the threshold.
// resolution: the smallest relative change the test detects with 80 % power,
//   (z(1-alpha/2) + z(0.8)) * sqrt(pi/3) * sqrt(s_b^2/n_b + s_c^2/n_c), with
//   s = IQR / (1.349 median) (the normal-equivalent relative spread) and sqrt(pi/3)
//   the rank test's efficiency loss. With 9 repetitions a side and alpha 0.05 the
//   test is "too noisy" once the spread (IQR/median) exceeds about the threshold.
// Exact mode (instruction counts, deterministic): a change beyond the threshold
// is a regression/improvement without a p-value test (the p-value is still
// reported); counts that vary between repetitions by more than the threshold
// make the benchmark "too noisy".
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mdtune::bench {

enum class Verdict { Regression, Improvement, NoChange, TooNoisy };
std::string_view to_string(Verdict v);  // "regression", "improvement", "no change", "too noisy"

struct GateOptions {
    double alpha = 0.05;
    double threshold = 0.03;   // relative change that matters (3 %)
    int min_repetitions = 5;   // per side, statistical mode
    bool exact_counts = false; // instruction counts: compare values, no test needed
    // Holm's step-down correction over the benchmarks of one comparison: alpha
    // bounds the chance that any of them is flagged by chance (12 benchmarks
    // tested at 0.05 each would flag one of two identical builds ~46 % of the time).
    bool family_wise = true;
};

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
    Verdict verdict = Verdict::NoChange;
    std::string reason;        // why, in a few words
};

// Median and quartiles with linear interpolation between order statistics.
double quantile(std::vector<double> values, double q);
double median(std::span<const double> values);
double relative_spread(std::span<const double> values);  // IQR / median (0 for fewer than 2 values)

BenchComparison compare_benchmark(const std::string& name, std::span<const double> baseline,
                                  std::span<const double> candidate, const GateOptions& options);

using Samples = std::map<std::string, std::vector<double>>;  // benchmark name -> values (one unit)

struct GateReport {
    GateOptions options;
    std::string baseline, candidate;  // what was compared (labels / commits), for the header
    std::string metric;               // "real_time" | "instructions"
    std::vector<BenchComparison> rows;  // regressions first, then too noisy, improvements, no change
    std::vector<std::string> only_baseline, only_candidate;
    double geomean_ratio = 1.0;       // geometric mean of median_candidate / median_baseline
    std::size_t geomean_count = 0;
    std::size_t count(Verdict v) const;
    bool failed() const { return count(Verdict::Regression) > 0; }
};

// Values must be in one unit per benchmark on both sides (seconds or instructions).
GateReport run_gate(const Samples& baseline, const Samples& candidate, const GateOptions& options);

enum class ReportFormat { Table, Markdown, Json };
std::string format_report(const GateReport& report, ReportFormat format);

// "3%" -> 0.03. A bare number is rejected: "3" and "0.03" would both be plausible.
double parse_threshold(std::string_view text);
// Value in seconds or instructions, for people: "12.35 us", "4.21 M".
std::string format_value(double v, bool instructions);

}  // namespace mdtune::bench
