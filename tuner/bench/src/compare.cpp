#include "mdtune/bench/compare.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "mdtune/models/statistics.h"

namespace mdtune::bench {
namespace {

constexpr double kIqrPerSigma = 1.349;   // IQR of a normal distribution in sigmas
constexpr double kZPower80 = 0.8416;     // one-sided z for 80 % power
// Asymptotic relative efficiency of the U test vs the t test is 3/pi under
// normality: it needs pi/3 times the samples, i.e. sqrt(pi/3) times the shift.
const double kRankEfficiency = std::sqrt(M_PI / 3.0);
constexpr std::size_t kMostRuns = 1000;  // what `mdtune bench run --runs` accepts

std::string pct(double x, int digits = 1) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.*f%%", digits, 100.0 * x);
    return buf;
}

std::string plain_pct(double x, int digits = 1) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f%%", digits, 100.0 * x);
    return buf;
}

std::string pvalue_text(double p) {
    char buf[32];
    if (p < 1e-4) std::snprintf(buf, sizeof buf, "%.1e", p);
    else std::snprintf(buf, sizeof buf, "%.4f", p);
    return buf;
}


// Independent runs a side at which the smallest possible U-test p-value, times
// the benchmarks it is corrected over, gets below alpha (0: beyond any --runs).
std::size_t runs_reaching(double alpha, std::size_t tests) {
    for (std::size_t n = 2; n <= kMostRuns; ++n)
        if (models::stats::mann_whitney_min_p(n, n) * static_cast<double>(tests) < alpha) return n;
    return 0;
}

int severity(Verdict v) {
    switch (v) {
        case Verdict::Regression: return 0;
        case Verdict::TooNoisy: return 1;
        case Verdict::Improvement: return 2;
        case Verdict::NoChange: return 3;
    }
    return 4;
}

}  // namespace

std::string_view to_string(GateOutcome o) {
    switch (o) {
        case GateOutcome::Fail: return "fail";
        case GateOutcome::NoVerdict: return "no verdict";
        case GateOutcome::Inconclusive: return "inconclusive";
        case GateOutcome::Pass: return "pass";
    }
    return "?";
}

int exit_code(GateOutcome o) {
    switch (o) {
        case GateOutcome::Fail: return 1;
        case GateOutcome::NoVerdict: return 2;
        case GateOutcome::Inconclusive: return 3;
        case GateOutcome::Pass: return 0;
    }
    return 1;
}

std::string_view to_string(Verdict v) {
    switch (v) {
        case Verdict::Regression: return "regression";
        case Verdict::Improvement: return "improvement";
        case Verdict::NoChange: return "no change";
        case Verdict::TooNoisy: return "too noisy";
    }
    return "?";
}





namespace {

// The smallest detectable relative change with n_b and n_c runs at the observed spreads.
double resolution_of(const BenchComparison& c, const GateOptions& o, double n_b, double n_c) {
    const double z = models::stats::normal_two_sided_quantile(o.alpha) + kZPower80;
    const double sb = c.spread_baseline / kIqrPerSigma, sc = c.spread_candidate / kIqrPerSigma;
    return z * kRankEfficiency * std::sqrt(sb * sb / n_b + sc * sc / n_c);
}

// Runs a side that would resolve the threshold at the observed spreads (the
// resolution shrinks as 1/sqrt(runs)); 0 when even the most --runs would not.
std::size_t runs_resolving(const BenchComparison& c, const GateOptions& o) {
    const double at_one = resolution_of(c, o, 1.0, 1.0);
    const double need = std::ceil(at_one * at_one / (o.threshold * o.threshold));
    if (!std::isfinite(need) || need > static_cast<double>(kMostRuns)) return 0;
    return std::max(static_cast<std::size_t>(need), runs_reaching(o.alpha, 1));
}

// The statistical verdict of a tested benchmark for a given (possibly adjusted) p.
void decide(BenchComparison& c, double p, const GateOptions& o) {
    c.p_adjusted = p;
    c.runs_to_resolve = 0;
    const bool beyond = std::abs(c.change) > o.threshold;
    const bool beyond_drift = std::abs(c.change) > c.floor.drift;
    const Verdict direction = c.change > 0 ? Verdict::Regression : Verdict::Improvement;
    const bool significant = p < o.alpha;
    if (significant && beyond && beyond_drift) {
        c.verdict = direction;
        c.reason = "p < " + pvalue_text(o.alpha) + " and beyond +-" + plain_pct(o.threshold);
        if (c.floor.drift > o.threshold) c.reason += " and the historic drift +-" + plain_pct(c.floor.drift);
    } else if (significant && beyond) {
        c.verdict = Verdict::NoChange;
        c.reason = "significant but within this hardware's historic drift +-" + plain_pct(c.floor.drift) + " (" +
                   std::to_string(c.floor.labels) + " past labels)";
    } else if (significant) {
        c.verdict = Verdict::NoChange;
        c.reason = "significant but within +-" + plain_pct(o.threshold);
    } else if (c.resolution > o.threshold) {
        c.verdict = Verdict::TooNoisy;
        c.reason = "spread " + plain_pct(c.spread_baseline) + "/" + plain_pct(c.spread_candidate) +
                   " (IQR/median): resolves only +-" + plain_pct(c.resolution) + " > +-" + plain_pct(o.threshold);
        c.runs_to_resolve = runs_resolving(c, o);
    } else {
        c.verdict = Verdict::NoChange;
        c.reason = "not significant; resolves +-" + plain_pct(c.resolution);
    }
}

// Holm's correction over the tested benchmarks of one comparison. A benchmark
// whose smallest possible p-value, times the number tested, is not below alpha
// can never be flagged: said so rather than reported as "no change".
void decide_family_wise(std::vector<BenchComparison>& rows, const GateOptions& o) {
    std::vector<BenchComparison*> tested;
    std::vector<double> p;
    for (auto& c : rows)
        if (c.tested) tested.push_back(&c), p.push_back(c.p_value);
    const std::vector<double> adjusted = models::stats::holm_adjust(p);
    const auto m = static_cast<double>(tested.size());
    for (std::size_t i = 0; i < tested.size(); ++i) {
        BenchComparison& c = *tested[i];
        decide(c, adjusted[i], o);
        if (models::stats::mann_whitney_min_p(c.n_baseline, c.n_candidate) * m >= o.alpha) {
            c.verdict = Verdict::TooNoisy;
            c.reason = std::to_string(c.n_baseline) + " vs " + std::to_string(c.n_candidate) +
                       " runs cannot reach p < " + pvalue_text(o.alpha) + " over " + std::to_string(tested.size()) +
                       " benchmarks (Holm): more runs (--runs) or fewer benchmarks (--filter)";
        }
        if (c.verdict == Verdict::TooNoisy) {
            // Enough runs for the spread and for Holm's correction (0: none would do).
            const std::size_t reach = runs_reaching(o.alpha, tested.size());
            const bool spread_ok = c.resolution <= o.threshold;
            c.runs_to_resolve =
                reach == 0 || (!spread_ok && c.runs_to_resolve == 0) ? 0 : std::max(c.runs_to_resolve, reach);
        }
    }
}

}  // namespace

BenchComparison compare_benchmark(const std::string& name, std::span<const double> baseline,
                                  std::span<const double> candidate, const GateOptions& o, const NoiseFloor& floor) {
    BenchComparison c;
    c.name = name;
    if (!o.exact_counts) c.floor = floor;
    c.n_baseline = baseline.size();
    c.n_candidate = candidate.size();
    if (baseline.empty() || candidate.empty()) {
        c.verdict = Verdict::TooNoisy;
        c.reason = "no values on one side";
        return c;
    }
    c.median_baseline = models::stats::median(baseline);
    c.median_candidate = models::stats::median(candidate);
    c.change = c.median_baseline > 0 ? c.median_candidate / c.median_baseline - 1.0 : 0.0;
    const models::stats::MannWhitney mw = models::stats::mann_whitney_u(baseline, candidate);
    c.p_value = c.p_adjusted = mw.p_value;
    c.exact_p = mw.exact;
    c.spread_baseline = models::stats::relative_spread(baseline);
    c.spread_candidate = models::stats::relative_spread(candidate);
    const bool beyond = std::abs(c.change) > o.threshold;
    const Verdict direction = c.change > 0 ? Verdict::Regression : Verdict::Improvement;

    if (o.exact_counts) {
        c.resolution = std::max(c.spread_baseline, c.spread_candidate);
        if (c.resolution > o.threshold) {
            c.verdict = Verdict::TooNoisy;
            c.reason = "counts vary by " + plain_pct(c.resolution) + " between repetitions (not deterministic)";
        } else if (beyond) {
            c.verdict = direction;
            c.reason = "count changed beyond +-" + plain_pct(o.threshold);
        } else {
            c.verdict = Verdict::NoChange;
            c.reason = c.change == 0 ? "identical counts" : "within +-" + plain_pct(o.threshold);
        }
        return c;
    }

    c.resolution = resolution_of(c, o, static_cast<double>(c.n_baseline), static_cast<double>(c.n_candidate));
    const auto n_min = static_cast<std::size_t>(std::max(1, o.min_runs));
    if (c.n_baseline < n_min || c.n_candidate < n_min) {
        c.verdict = Verdict::TooNoisy;
        c.too_few_runs = true;
        c.runs_to_resolve = n_min;
        c.reason = "too few independent runs: " + std::to_string(std::min(c.n_baseline, c.n_candidate)) + " < " +
                   std::to_string(n_min) + " (" + std::to_string(c.n_baseline) + " vs " +
                   std::to_string(c.n_candidate) + "; at least " + std::to_string(n_min) + " a side needed)";
        return c;
    }
    if (models::stats::mann_whitney_min_p(c.n_baseline, c.n_candidate) >= o.alpha) {
        c.verdict = Verdict::TooNoisy;
        c.reason = "too few repetitions to reach p < " + pvalue_text(o.alpha);
        c.runs_to_resolve = runs_reaching(o.alpha, 1);
        return c;
    }
    c.tested = true;
    decide(c, c.p_value, o);
    return c;
}


std::size_t GateReport::count(Verdict v) const {
    return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [v](const auto& r) { return r.verdict == v; }));
}

bool GateReport::no_verdict() const {
    return std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.too_few_runs; });
}

GateOutcome GateReport::outcome() const {
    if (failed()) return GateOutcome::Fail;
    if (no_verdict()) return GateOutcome::NoVerdict;
    if (inconclusive() && !options.allow_inconclusive) return GateOutcome::Inconclusive;
    return GateOutcome::Pass;
}

std::string GateReport::inconclusive_text() const {
    if (!inconclusive()) return "";
    constexpr std::size_t kNamed = 8;
    std::string names;
    std::size_t named = 0, most_runs = 0;
    bool runs_help = false, runs_do_not = false;
    for (const auto& c : rows) {
        if (c.verdict != Verdict::TooNoisy) continue;
        most_runs = std::max(most_runs, c.runs_to_resolve);
        (c.runs_to_resolve ? runs_help : runs_do_not) = true;
        if (named++ == kNamed) names += ", ...";
        if (named > kNamed) continue;
        names += (named > 1 ? ", " : "") + c.name;
        if (options.exact_counts) names += " (counts not reproducible)";
        else if (c.runs_to_resolve) names += " (~" + std::to_string(c.runs_to_resolve) + " runs a side)";
        else names += " (more runs would not do)";
    }
    std::string s = "inconclusive: " + std::to_string(count(Verdict::TooNoisy)) + " of " +
                    std::to_string(rows.size()) + " benchmark(s) cannot resolve +-" + plain_pct(options.threshold) +
                    ": " + names + "; ";
    if (options.exact_counts)
        s += "instruction counts should be identical run to run: check that both builds run deterministically";
    else if (runs_help)
        s += "more independent runs (mdtune bench run --runs " + std::to_string(most_runs) +
             " on each side) or instruction counts (--metric instructions) would resolve them" +
             (runs_do_not ? std::string(" (instruction counts only, where more runs would not do)") : "");
    else
        s += "instruction counts (--metric instructions) would resolve them";
    if (std::abs(geomean_ratio - 1.0) > options.threshold)
        s += "; the geometric mean moved " + pct(geomean_ratio - 1.0, 2) + ", beyond +-" + plain_pct(options.threshold);
    return s + (options.allow_inconclusive ? " (passed: --allow-inconclusive)" : "; --allow-inconclusive passes it");
}

std::string GateReport::too_few_runs_text() const {
    std::size_t fewest = std::numeric_limits<std::size_t>::max();
    for (const auto& r : rows)
        if (r.too_few_runs) fewest = std::min({fewest, r.n_baseline, r.n_candidate});
    if (fewest == std::numeric_limits<std::size_t>::max()) return "";
    return "too few independent runs: " + std::to_string(fewest) + " < " + std::to_string(options.min_runs);
}

GateReport run_gate(const Samples& baseline, const Samples& candidate, const GateOptions& options,
                    const NoiseFloors& floors) {
    GateReport rep;
    rep.options = options;
    double log_sum = 0;
    for (const auto& [name, base] : baseline) {
        const auto it = candidate.find(name);
        if (it == candidate.end()) {
            rep.only_baseline.push_back(name);
            continue;
        }
        const auto floor = floors.find(name);
        BenchComparison c =
            compare_benchmark(name, base, it->second, options, floor == floors.end() ? NoiseFloor{} : floor->second);
        if (c.median_baseline > 0 && c.median_candidate > 0) {
            log_sum += std::log(c.median_candidate / c.median_baseline);
            ++rep.geomean_count;
        }
        rep.rows.push_back(std::move(c));
    }
    for (const auto& [name, values] : candidate)
        if (!baseline.count(name)) rep.only_candidate.push_back(name);
    if (options.family_wise && !options.exact_counts) decide_family_wise(rep.rows, options);
    rep.geomean_ratio = rep.geomean_count ? std::exp(log_sum / static_cast<double>(rep.geomean_count)) : 1.0;
    std::stable_sort(rep.rows.begin(), rep.rows.end(), [](const auto& a, const auto& b) {
        if (severity(a.verdict) != severity(b.verdict)) return severity(a.verdict) < severity(b.verdict);
        return std::abs(a.change) > std::abs(b.change);
    });
    return rep;
}

double parse_threshold(std::string_view text) {
    if (text.empty() || text.back() != '%')
        throw std::invalid_argument("'" + std::string(text) + "' is not a percentage (e.g. 3%)");
    const std::string number(text.substr(0, text.size() - 1));
    char* end = nullptr;
    const double v = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(v) || v <= 0 || v >= 100)
        throw std::invalid_argument("'" + std::string(text) + "' is not a percentage in (0%, 100%)");
    return v / 100.0;
}

std::string format_value(double v, bool instructions) {
    char buf[48];
    if (instructions) {
        if (v >= 1e9) std::snprintf(buf, sizeof buf, "%.4g G", v / 1e9);
        else if (v >= 1e6) std::snprintf(buf, sizeof buf, "%.4g M", v / 1e6);
        else if (v >= 1e3) std::snprintf(buf, sizeof buf, "%.4g k", v / 1e3);
        else std::snprintf(buf, sizeof buf, "%.4g", v);
        return buf;
    }
    if (v >= 1) std::snprintf(buf, sizeof buf, "%.4g s", v);
    else if (v >= 1e-3) std::snprintf(buf, sizeof buf, "%.4g ms", v * 1e3);
    else if (v >= 1e-6) std::snprintf(buf, sizeof buf, "%.4g us", v * 1e6);
    else std::snprintf(buf, sizeof buf, "%.4g ns", v * 1e9);
    return buf;
}

namespace {

std::string summary_line(const GateReport& r) {
    std::ostringstream s;
    s << r.rows.size() << " benchmark(s): " << r.count(Verdict::Regression) << " regression(s), "
      << r.count(Verdict::Improvement) << " improvement(s), " << r.count(Verdict::NoChange) << " no change, "
      << r.count(Verdict::TooNoisy) << " too noisy to tell";
    return s.str();
}

std::string geomean_line(const GateReport& r) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "geometric mean of candidate/baseline medians over %zu benchmark(s): %.4f (%s)",
                  r.geomean_count, r.geomean_ratio, pct(r.geomean_ratio - 1.0, 2).c_str());
    return buf;
}

std::string gate_line(const GateReport& r) {
    const std::string noisy = std::to_string(r.count(Verdict::TooNoisy)) + " benchmark(s) too noisy to resolve the threshold";
    std::string outcome;
    switch (r.outcome()) {
        case GateOutcome::Fail: outcome = "FAIL - significant regression beyond the threshold"; break;
        case GateOutcome::NoVerdict:
            outcome = "no verdict - " + r.too_few_runs_text() + " (mdtune bench run --runs " +
                      std::to_string(r.options.min_runs) + " on each side)";
            break;
        case GateOutcome::Inconclusive: outcome = "INCONCLUSIVE - " + noisy; break;
        case GateOutcome::Pass: outcome = r.inconclusive() ? "pass (inconclusive allowed: " + noisy + ")" : "pass";
    }
    const std::string test = r.options.exact_counts
                                 ? "exact instruction counts"
                                 : "Mann-Whitney U on run medians" +
                                       std::string(r.options.family_wise ? " with Holm's correction" : "") + ", >= " +
                                       std::to_string(r.options.min_runs) + " independent runs a side";
    char buf[400];
    std::snprintf(buf, sizeof buf, "gate: %s (alpha %g, threshold %s, %s)", outcome.c_str(), r.options.alpha,
                  plain_pct(r.options.threshold).c_str(), test.c_str());
    const std::string inconclusive = r.inconclusive_text();
    return inconclusive.empty() ? std::string(buf) : std::string(buf) + "\n" + inconclusive;
}

std::vector<std::string> cells(const GateReport& r, const BenchComparison& c) {
    const bool ins = r.options.exact_counts;
    return {c.name,
            format_value(c.median_baseline, ins),
            format_value(c.median_candidate, ins),
            pct(c.change, 2),
            pvalue_text(c.p_adjusted),
            std::to_string(c.n_baseline) + "/" + std::to_string(c.n_candidate),
            std::string(to_string(c.verdict)),
            c.reason};
}

const std::vector<std::string> kHeader{"benchmark", "baseline", "candidate", "change", "p", "n", "verdict", "why"};

std::string table(const GateReport& r) {
    std::vector<std::vector<std::string>> rows{kHeader};
    for (const auto& c : r.rows) rows.push_back(cells(r, c));
    std::vector<std::size_t> width(kHeader.size(), 0);
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    std::ostringstream s;
    s << "baseline " << r.baseline << " vs candidate " << r.candidate << " (" << r.metric << ")\n";
    if (!r.floor_note.empty()) s << r.floor_note << "\n";
    for (const auto& row : rows) {
        for (std::size_t i = 0; i < row.size(); ++i) {
            const bool right = i >= 1 && i <= 5;
            const std::string pad(width[i] - row[i].size(), ' ');
            s << (i ? "  " : "") << (right ? pad + row[i] : (i + 1 < row.size() ? row[i] + pad : row[i]));
        }
        s << "\n";
    }
    for (const auto& n : r.only_baseline) s << "only in baseline:  " << n << "\n";
    for (const auto& n : r.only_candidate) s << "only in candidate: " << n << "\n";
    s << summary_line(r) << "\n" << geomean_line(r) << "\n" << gate_line(r) << "\n";
    return s.str();
}

std::string markdown(const GateReport& r) {
    std::ostringstream s;
    s << "### Performance: `" << r.candidate << "` vs `" << r.baseline << "` (" << r.metric << ")\n\n";
    const GateOutcome outcome = r.outcome();
    const std::string word = outcome == GateOutcome::Pass ? "pass" : std::string(to_string(outcome));
    std::string upper = word;
    if (outcome != GateOutcome::Pass)
        std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return std::toupper(ch); });
    s << "**" << upper << "** - " << summary_line(r) << "\n\n";
    if (!r.floor_note.empty()) s << r.floor_note << "\n\n";
    s << "| " << kHeader[0];
    for (std::size_t i = 1; i < kHeader.size(); ++i) s << " | " << kHeader[i];
    s << " |\n|---|--:|--:|--:|--:|--:|---|---|\n";
    for (const auto& c : r.rows) {
        auto row = cells(r, c);
        row[0] = "`" + row[0] + "`";
        if (c.verdict == Verdict::Regression) row[6] = "**regression**";
        s << "| " << row[0];
        for (std::size_t i = 1; i < row.size(); ++i) s << " | " << row[i];
        s << " |\n";
    }
    s << "\n";
    for (const auto& n : r.only_baseline) s << "- only in baseline: `" << n << "`\n";
    for (const auto& n : r.only_candidate) s << "- only in candidate: `" << n << "`\n";
    s << "\n" << geomean_line(r) << "\n\n" << gate_line(r) << "\n";
    return s.str();
}

std::string as_json(const GateReport& r) {
    using nlohmann::json;
    json j;
    j["baseline"] = r.baseline;
    j["candidate"] = r.candidate;
    j["metric"] = r.metric;
    j["alpha"] = r.options.alpha;
    j["threshold"] = r.options.threshold;
    j["min_runs"] = r.options.min_runs;
    j["floor_note"] = r.floor_note;
    j["unit"] = r.options.exact_counts ? "instructions" : "s";
    json rows = json::array();
    for (const auto& c : r.rows) {
        const auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
        rows.push_back({{"name", c.name},
                        {"n_baseline", c.n_baseline},
                        {"n_candidate", c.n_candidate},
                        {"median_baseline", c.median_baseline},
                        {"median_candidate", c.median_candidate},
                        {"change", c.change},
                        {"p_value", c.p_value},
                        {"p_adjusted", c.p_adjusted},
                        {"exact_p", c.exact_p},
                        {"spread_baseline", num(c.spread_baseline)},
                        {"spread_candidate", num(c.spread_candidate)},
                        {"resolution", num(c.resolution)},
                        {"noise_floor", c.floor.drift},
                        {"noise_floor_labels", c.floor.labels},
                        {"verdict", std::string(to_string(c.verdict))},
                        {"runs_to_resolve", c.runs_to_resolve},
                        {"reason", c.reason}});
    }
    j["benchmarks"] = rows;
    j["only_in_baseline"] = r.only_baseline;
    j["only_in_candidate"] = r.only_candidate;
    j["geomean_ratio"] = r.geomean_ratio;
    j["regressions"] = r.count(Verdict::Regression);
    j["improvements"] = r.count(Verdict::Improvement);
    j["too_noisy"] = r.count(Verdict::TooNoisy);
    j["no_verdict"] = r.no_verdict();
    j["inconclusive"] = r.inconclusive();
    j["outcome"] = std::string(to_string(r.outcome()));
    j["passed"] = r.outcome() == GateOutcome::Pass;
    return j.dump(2) + "\n";
}

}  // namespace

std::string format_report(const GateReport& report, ReportFormat format) {
    switch (format) {
        case ReportFormat::Table: return table(report);
        case ReportFormat::Markdown: return markdown(report);
        case ReportFormat::Json: return as_json(report);
    }
    return {};
}

}  // namespace mdtune::bench
