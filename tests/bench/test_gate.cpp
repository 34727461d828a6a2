// The gate's statistical behaviour on synthetic data with a fixed seed: it finds
// an injected 5 % slowdown, raises false alarms no more often than alpha, and
// refuses to judge on too few repetitions or too much noise.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "bench_test_util.h"
#include "mdtune/bench/compare.h"

namespace mdtune::bench {
namespace {

using testing::NoiseModel;

// A lightly shared machine: 1 % log-normal scatter, 5 % of repetitions up to 10 %
// slow (IQR/median ~1.2 %). A heavily loaded one (IQR/median 6-20 %, measured on a
// 2-core VM with other builds running) gives "too noisy", as it should.
const NoiseModel kRealistic{0.01, 0.05, 0.10};
// A worse neighbour: 10 % of repetitions up to 15 % slow.
const NoiseModel kHarsh{0.01, 0.10, 0.15};

double detection_rate(const NoiseModel& noise, int trials, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const bench::GateOptions o;  // alpha 0.05, threshold 3 %, at least 5 repetitions
    int flagged = 0;
    for (int t = 0; t < trials; ++t) {
        const auto base = noise.draw(rng, 9, 100e-6);
        const auto slow = noise.draw(rng, 9, 105e-6);
        flagged += bench::compare_benchmark("BM_Kernel", base, slow, o).verdict == bench::Verdict::Regression;
    }
    return static_cast<double>(flagged) / trials;
}

TEST(Gate, FindsAnInjectedFivePercentSlowdownWithNineRepetitions) {
    // The misses are draws whose median change lands below the 3 % threshold.
    EXPECT_GE(detection_rate(kRealistic, 1000, 20240601), 0.97);
    EXPECT_GE(detection_rate(kHarsh, 1000, 20240602), 0.90);
}

TEST(Gate, IdenticalDistributionsAreFlaggedAtMostAlphaOfTheTime) {
    std::mt19937_64 rng(7);
    const bench::GateOptions o;
    const int trials = 3000;
    int significant = 0, alarms = 0;
    for (int t = 0; t < trials; ++t) {
        const auto a = kRealistic.draw(rng, 9, 100e-6);
        const auto b = kRealistic.draw(rng, 9, 100e-6);
        const bench::BenchComparison c = bench::compare_benchmark("BM_Same", a, b, o);
        significant += c.p_value < o.alpha;
        alarms += c.verdict == bench::Verdict::Regression || c.verdict == bench::Verdict::Improvement;
    }
    // The test's own size: P(p < alpha) <= alpha (+ 2.5 binomial standard errors).
    const double slack = 2.5 * std::sqrt(o.alpha * (1 - o.alpha) / trials);
    EXPECT_LE(static_cast<double>(significant) / trials, o.alpha + slack) << significant;
    // Verdicts also need the change beyond the threshold: far rarer.
    EXPECT_LE(static_cast<double>(alarms) / trials, o.alpha + slack) << alarms;
}

// One comparison holds many benchmarks; CI fails if any of them is flagged.
double family_alarm_rate(bool family_wise, int trials) {
    std::mt19937_64 rng(314);
    const NoiseModel noisy{0.05, 0.0, 0.0};  // changes beyond 3 % are common by chance
    bench::GateOptions o;
    o.family_wise = family_wise;
    int alarms = 0;
    for (int t = 0; t < trials; ++t) {
        bench::Samples a, b;
        for (int k = 0; k < 12; ++k) {
            const std::string name = "BM_" + std::to_string(k);
            a[name] = noisy.draw(rng, 9, 100e-6);
            b[name] = noisy.draw(rng, 9, 100e-6);
        }
        const bench::GateReport r = bench::run_gate(a, b, o);
        alarms += r.count(bench::Verdict::Regression) + r.count(bench::Verdict::Improvement) > 0;
    }
    return static_cast<double>(alarms) / trials;
}

TEST(Gate, TwelveIdenticalBenchmarksRaiseAnAlarmAtMostAlphaOfTheTime) {
    const int trials = 1000;
    const double slack = 2.5 * std::sqrt(0.05 * 0.95 / trials);
    EXPECT_LE(family_alarm_rate(true, trials), 0.05 + slack);
    // Without the correction one of twelve fires far more often than alpha.
    EXPECT_GT(family_alarm_rate(false, trials), 0.2);
}

TEST(Gate, AFivePercentSlowdownAmongElevenUnchangedBenchmarksIsStillFound) {
    std::mt19937_64 rng(2718);
    const int trials = 500;
    int found = 0, others = 0;
    for (int t = 0; t < trials; ++t) {
        bench::Samples a, b;
        for (int k = 0; k < 12; ++k) {
            const std::string name = "BM_" + std::to_string(k);
            a[name] = kRealistic.draw(rng, 9, 100e-6);
            b[name] = kRealistic.draw(rng, 9, k == 0 ? 105e-6 : 100e-6);
        }
        for (const auto& c : bench::run_gate(a, b, bench::GateOptions{}).rows) {
            if (c.name == "BM_0") found += c.verdict == bench::Verdict::Regression;
            else others += c.verdict == bench::Verdict::Regression || c.verdict == bench::Verdict::Improvement;
        }
    }
    EXPECT_GE(static_cast<double>(found) / trials, 0.90);
    EXPECT_LE(others, trials / 20);
}

TEST(Gate, TiedQuantisedTimingsKeepTheFalseAlarmRate) {
    // Timers with a coarse tick: many ties, so the normal approximation path.
    std::mt19937_64 rng(99);
    const bench::GateOptions o;
    const int trials = 3000;
    int significant = 0;
    auto quantise = [](std::vector<double> v) {
        for (auto& x : v) x = std::round(x / 1e-6) * 1e-6;  // 1 us tick on ~100 us
        return v;
    };
    for (int t = 0; t < trials; ++t) {
        const auto a = quantise(kRealistic.draw(rng, 9, 100e-6));
        const auto b = quantise(kRealistic.draw(rng, 9, 100e-6));
        significant += bench::compare_benchmark("BM_Tick", a, b, o).p_value < o.alpha;
    }
    const double slack = 2.5 * std::sqrt(o.alpha * (1 - o.alpha) / trials);
    EXPECT_LE(static_cast<double>(significant) / trials, o.alpha + slack) << significant;
}

TEST(Gate, FewerThanTheMinimumRunsIsTooNoisyNotAVerdict) {
    GateOptions o;
    o.min_runs = 5;
    const std::vector<double> base{100, 100, 100, 100}, slow{150, 151, 152, 153};
    const BenchComparison c = compare_benchmark("BM_Few", base, slow, o);
    EXPECT_EQ(c.verdict, Verdict::TooNoisy);
    EXPECT_TRUE(c.too_few_runs);
    EXPECT_NE(c.reason.find("too few independent runs: 4 < 5"), std::string::npos) << c.reason;
    EXPECT_NE(c.reason.find("at least 5"), std::string::npos) << c.reason;
    EXPECT_NEAR(c.change, 0.515, 1e-9);  // still reported (medians 100 and 151.5)
    // Five a side, cleanly separated: a verdict.
    const std::vector<double> b5{100, 100.5, 101, 99.5, 100.2}, s5{110, 110.5, 111, 109.5, 110.2};
    EXPECT_EQ(compare_benchmark("BM_Five", b5, s5, o).verdict, Verdict::Regression);
    EXPECT_EQ(compare_benchmark("BM_Five", s5, b5, o).verdict, Verdict::Improvement);
    // The default asks for more independent runs than five.
    EXPECT_TRUE(compare_benchmark("BM_Five", b5, s5, GateOptions{}).too_few_runs);
    // Five a side cannot reach a very small alpha.
    bench::GateOptions strict = o;
    strict.alpha = 0.001;
    EXPECT_EQ(bench::compare_benchmark("BM_Five", b5, s5, strict).verdict, bench::Verdict::TooNoisy);
}

TEST(Gate, SpreadTooLargeToResolveTheThresholdIsTooNoisy) {
    std::mt19937_64 rng(3);
    const bench::GateOptions o;
    const NoiseModel wild{0.10, 0.0, 0.0};  // 10 % scatter: IQR/median ~ 13 %
    const auto a = wild.draw(rng, 9, 1.0), b = wild.draw(rng, 9, 1.0);
    const bench::BenchComparison c = bench::compare_benchmark("BM_Wild", a, b, o);
    EXPECT_EQ(c.verdict, bench::Verdict::TooNoisy) << c.reason;
    EXPECT_GT(c.resolution, o.threshold);
    // A change far beyond the noise is still a regression.
    const auto slow = wild.draw(rng, 9, 2.0);
    EXPECT_EQ(bench::compare_benchmark("BM_Wild", a, slow, o).verdict, bench::Verdict::Regression);
}

TEST(Gate, ResolutionEqualsTheSpreadAtNineRepetitions) {
    // Documented rule of thumb: with 9 a side and alpha 0.05, "too noisy" starts
    // where IQR/median exceeds the threshold.
    const std::vector<double> v{0.96, 0.97, 0.98, 0.99, 1.0, 1.01, 1.02, 1.03, 1.04};
    const bench::BenchComparison c = bench::compare_benchmark("x", v, v, bench::GateOptions{});
    EXPECT_NEAR(c.spread_baseline, 0.04, 1e-12);
    EXPECT_NEAR(c.resolution / c.spread_baseline, 1.0, 0.01);
}

TEST(Gate, SignificantButWithinTheThresholdIsNoChange) {
    const bench::GateOptions o;
    std::vector<double> a, b;
    for (int i = 0; i < 9; ++i) {
        a.push_back(100.0 + 0.01 * i);
        b.push_back(101.0 + 0.01 * i);  // +1 %: clearly real, but below 3 %
    }
    const bench::BenchComparison c = bench::compare_benchmark("BM_Small", a, b, o);
    EXPECT_LT(c.p_value, 0.001);
    EXPECT_EQ(c.verdict, bench::Verdict::NoChange);
    EXPECT_NE(c.reason.find("significant but within"), std::string::npos);
}

TEST(Gate, InstructionCountsCompareExactly) {
    bench::GateOptions o;
    o.exact_counts = true;
    const std::vector<double> base{1'000'000}, same{1'000'000}, plus5{1'050'000}, plus2{1'020'000};
    EXPECT_EQ(bench::compare_benchmark("i", base, same, o).verdict, bench::Verdict::NoChange);
    EXPECT_EQ(bench::compare_benchmark("i", base, plus5, o).verdict, bench::Verdict::Regression);
    EXPECT_EQ(bench::compare_benchmark("i", plus5, base, o).verdict, bench::Verdict::Improvement);
    EXPECT_EQ(bench::compare_benchmark("i", base, plus2, o).verdict, bench::Verdict::NoChange);
    // Counts that are not reproducible are not trusted.
    const std::vector<double> shaky{1'000'000, 1'100'000, 900'000};
    EXPECT_EQ(bench::compare_benchmark("i", shaky, plus5, o).verdict, bench::Verdict::TooNoisy);
}

TEST(Gate, ReportFailsOnARegressionAndSummarisesWithTheGeometricMean) {
    const std::vector<double> base{100, 100.2, 99.8, 100.1, 99.9, 100, 100.3, 99.7, 100};
    auto scaled = [&](double f) {
        std::vector<double> v;
        for (double x : base) v.push_back(x * f);
        return v;
    };
    bench::Samples a{{"BM_Fast", base}, {"BM_Slow", base}, {"BM_Gone", base}};
    bench::Samples b{{"BM_Fast", scaled(1 / 1.1)}, {"BM_Slow", scaled(1.1)}, {"BM_New", base}};
    bench::GateReport r = bench::run_gate(a, b, bench::GateOptions{});
    r.baseline = "main";
    r.candidate = "pr";
    r.metric = "real_time";
    ASSERT_EQ(r.rows.size(), 2u);
    EXPECT_TRUE(r.failed());
    EXPECT_EQ(r.rows[0].name, "BM_Slow");  // regressions first
    EXPECT_EQ(r.count(bench::Verdict::Improvement), 1u);
    EXPECT_NEAR(r.geomean_ratio, 1.0, 1e-9);
    EXPECT_EQ(r.only_baseline, std::vector<std::string>{"BM_Gone"});
    EXPECT_EQ(r.only_candidate, std::vector<std::string>{"BM_New"});
    const std::string table = bench::format_report(r, bench::ReportFormat::Table);
    EXPECT_NE(table.find("gate: FAIL"), std::string::npos) << table;
    EXPECT_NE(table.find("geometric mean"), std::string::npos);
    EXPECT_NE(bench::format_report(r, bench::ReportFormat::Markdown).find("| `BM_Slow` |"), std::string::npos);
    const auto j = nlohmann::json::parse(bench::format_report(r, bench::ReportFormat::Json));
    EXPECT_FALSE(j["passed"].get<bool>());
    EXPECT_EQ(j["regressions"].get<int>(), 1);
    EXPECT_EQ(j["benchmarks"][0]["verdict"], "regression");
}

// Seven runs a side whose spread (IQR/median 8 %) cannot resolve 3 %.
const std::vector<double> kNoisyRuns{90, 95, 100, 105, 110, 97, 103};
const std::vector<double> kQuietRuns{100, 100.1, 99.9, 100.05, 99.95, 100.02, 99.98};

std::vector<double> times(const std::vector<double>& v, double f) {
    std::vector<double> out;
    for (double x : v) out.push_back(x * f);
    return out;
}

TEST(Gate, ANoisyFivePercentSlowdownIsInconclusiveNotAPass) {
    // Three benchmarks really 5 % slower but too noisy to tell, one unchanged and
    // quiet: the geometric mean moves beyond the threshold, and no verdict may pass it.
    Samples base, cand;
    for (const char* name : {"BM_A", "BM_B", "BM_C"}) {
        base[name] = kNoisyRuns;
        cand[name] = times(kNoisyRuns, 1.05);
    }
    base["BM_Quiet"] = cand["BM_Quiet"] = kQuietRuns;
    const GateReport r = run_gate(base, cand, GateOptions{});
    EXPECT_EQ(r.count(Verdict::TooNoisy), 3u);
    EXPECT_EQ(r.count(Verdict::NoChange), 1u);
    EXPECT_GT(r.geomean_ratio - 1.0, 0.03);
    EXPECT_FALSE(r.failed());
    EXPECT_FALSE(r.no_verdict());
    EXPECT_TRUE(r.inconclusive());
    EXPECT_EQ(r.outcome(), GateOutcome::Inconclusive);
    EXPECT_EQ(exit_code(r.outcome()), 3);
    // Spread 8 % at one run is resolution ~24 %: (24 % / 3 %)^2 = 65 runs a side.
    EXPECT_EQ(r.rows[0].runs_to_resolve, 65u);
    const std::string text = r.inconclusive_text();
    for (const char* part : {"3 of 4 benchmark(s) cannot resolve +-3.0%", "BM_A (~65 runs a side)", "BM_B", "BM_C",
                             "--runs 65", "--metric instructions", "geometric mean moved +3.73%",
                             "--allow-inconclusive"})
        EXPECT_NE(text.find(part), std::string::npos) << part << " in: " << text;
    EXPECT_EQ(text.find("BM_Quiet"), std::string::npos) << text;
    const std::string table = format_report(r, ReportFormat::Table);
    EXPECT_NE(table.find("gate: INCONCLUSIVE - 3 benchmark(s) too noisy"), std::string::npos) << table;
    EXPECT_EQ(table.find("gate: pass"), std::string::npos) << table;
    EXPECT_NE(format_report(r, ReportFormat::Markdown).find("**INCONCLUSIVE**"), std::string::npos);
    const auto j = nlohmann::json::parse(format_report(r, ReportFormat::Json));
    EXPECT_EQ(j["outcome"], "inconclusive");
    EXPECT_FALSE(j["passed"].get<bool>());

    // --allow-inconclusive: the old behaviour, said so.
    GateOptions allow;
    allow.allow_inconclusive = true;
    const GateReport allowed = run_gate(base, cand, allow);
    EXPECT_EQ(allowed.outcome(), GateOutcome::Pass);
    EXPECT_EQ(exit_code(allowed.outcome()), 0);
    EXPECT_NE(format_report(allowed, ReportFormat::Table).find("gate: pass (inconclusive allowed: 3 benchmark(s)"),
              std::string::npos);
}

TEST(Gate, EachOutcomeFromConstructedRuns) {
    const Samples quiet{{"BM_K", kQuietRuns}};
    // Pass: quiet and unchanged; "no change" is a verdict the data could resolve.
    const GateReport pass = run_gate(quiet, quiet, GateOptions{});
    EXPECT_EQ(pass.outcome(), GateOutcome::Pass);
    EXPECT_EQ(pass.count(Verdict::NoChange), 1u);
    // Fail: quiet and 10 % slower, even beside a benchmark too noisy to tell.
    Samples base = quiet, slow{{"BM_K", times(kQuietRuns, 1.10)}};
    base["BM_Noisy"] = slow["BM_Noisy"] = kNoisyRuns;
    EXPECT_EQ(run_gate(base, slow, GateOptions{}).outcome(), GateOutcome::Fail);
    EXPECT_EQ(exit_code(GateOutcome::Fail), 1);
    // No verdict: fewer than the minimum runs on a side (insufficient data).
    const Samples three{{"BM_K", {100, 100.1, 99.9}}};
    const GateReport few = run_gate(three, quiet, GateOptions{});
    EXPECT_EQ(few.outcome(), GateOutcome::NoVerdict);
    EXPECT_EQ(exit_code(few.outcome()), 2);
    EXPECT_EQ(few.rows[0].runs_to_resolve, static_cast<std::size_t>(kDefaultRuns));
    // Inconclusive: enough runs, too much spread.
    const Samples noisy{{"BM_K", kNoisyRuns}};
    EXPECT_EQ(run_gate(noisy, noisy, GateOptions{}).outcome(), GateOutcome::Inconclusive);
}

TEST(Gate, InstructionCountOutcomes) {
    GateOptions o;
    o.exact_counts = true;
    o.min_runs = 1;
    const Samples base{{"BM_K", {1'000'000}}}, same{{"BM_K", {1'000'000}}}, plus5{{"BM_K", {1'050'000}}};
    EXPECT_EQ(run_gate(base, same, o).outcome(), GateOutcome::Pass);
    EXPECT_EQ(run_gate(base, plus5, o).outcome(), GateOutcome::Fail);
    // Counts that differ between repetitions of one build: more runs would not help.
    const Samples shaky{{"BM_K", {1'000'000, 1'100'000, 900'000}}};
    const GateReport r = run_gate(shaky, same, o);
    EXPECT_EQ(r.outcome(), GateOutcome::Inconclusive);
    EXPECT_NE(r.inconclusive_text().find("BM_K (counts not reproducible)"), std::string::npos) << r.inconclusive_text();
}

TEST(Gate, ThresholdIsAPercentage) {
    EXPECT_DOUBLE_EQ(bench::parse_threshold("3%"), 0.03);
    EXPECT_DOUBLE_EQ(bench::parse_threshold("0.5%"), 0.005);
    EXPECT_THROW(bench::parse_threshold("3"), std::invalid_argument);
    EXPECT_THROW(bench::parse_threshold("0%"), std::invalid_argument);
    EXPECT_THROW(bench::parse_threshold("x%"), std::invalid_argument);
}

}  // namespace
}  // namespace mdtune::bench
