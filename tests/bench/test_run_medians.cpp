// The gate's unit of independence on synthetic runs with a fixed seed: each run
// (one process) has its own offset shared by all its repetitions, as on a machine
// whose speed wanders between processes. Compared on run medians, identical
// builds pass, a 5 % slowdown is caught, and a whole run that drifted does not
// fail the gate; a baseline from another time is judged against the benchmark's
// historic drift on that hardware.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <iostream>
#include <random>

#include "mdtune/bench/compare.h"
#include "mdtune/bench/ingest.h"
#include "mdtune/bench/noise_floor.h"

namespace mdtune::bench {
namespace {

std::map<std::string, double> twelve_benchmarks(double first_factor = 1.0) {
    std::map<std::string, double> m;
    for (int k = 0; k < 12; ++k) m["BM_" + std::to_string(k)] = 100.0 * (k == 0 ? first_factor : 1.0);
    return m;
}

// Runs as the store returns them: one row per process, every repetition in us.
struct RunModel {
    double process_sigma = 0.01;  // relative offset of a whole run (machine state)
    double rep_sigma = 0.002;     // scatter of repetitions inside one run
    int repetitions = 3;
    db::BenchRunRow draw(std::mt19937_64& rng, const std::string& label, long id,
                     const std::map<std::string, double>& centre_us) const {
        std::normal_distribution<double> g(0.0, 1.0);
        db::BenchRunRow row;
        row.id = id;
        row.label = label;
        row.hardware_id = "hw";
        for (const auto& [name, centre] : centre_us) {
            const double run_centre = centre * std::exp(process_sigma * g(rng));
            for (int r = 0; r < repetitions; ++r)
                row.results.push_back({name, r, run_centre * std::exp(rep_sigma * g(rng)), "us", 100, ""});
        }
        return row;
    }
    std::vector<db::BenchRunRow> draw_runs(std::mt19937_64& rng, const std::string& label, long first_id, int runs,
                                       const std::map<std::string, double>& centre_us) const {
        std::vector<db::BenchRunRow> out;
        for (int i = 0; i < runs; ++i) out.push_back(draw(rng, label, first_id + i, centre_us));
        return out;
    }
    // kDefaultRuns runs a side of twelve benchmarks; the candidate's BM_0 `factor` slower.
    std::pair<std::vector<db::BenchRunRow>, std::vector<db::BenchRunRow>> draw_sides(std::mt19937_64& rng,
                                                                             double factor) const {
        auto base = draw_runs(rng, "a", 1, kDefaultRuns, twelve_benchmarks());
        return {std::move(base), draw_runs(rng, "b", 100, kDefaultRuns, twelve_benchmarks(factor))};
    }
};

TEST(RunMedians, OneValuePerRunTheMedianOfItsRepetitions) {
    db::BenchRunRow a, b;
    a.results = {{"BM_A", 0, 10, "us", 1, ""}, {"BM_A", 1, 30, "us", 1, ""}, {"BM_A", 2, 11, "us", 1, ""},
                 {"BM_B", 0, 5, "ms", 1, ""}};
    b.results = {{"BM_A", 0, 20, "us", 1, ""}};
    const Samples s = run_medians_of({a, b});
    ASSERT_EQ(s.at("BM_A").size(), 2u);
    EXPECT_DOUBLE_EQ(s.at("BM_A")[0], 11e-6);
    EXPECT_DOUBLE_EQ(s.at("BM_A")[1], 20e-6);
    EXPECT_EQ(s.at("BM_B"), std::vector<double>{5e-3});
}

TEST(RunMedians, IdenticalBuildsPassAtLeast95PercentOfComparisons) {
    std::mt19937_64 rng(16);
    // Each process lands 3 % (sd) faster or slower; its repetitions agree within 0.2 %.
    const RunModel model{0.03, 0.002, 3};
    const int trials = 400;
    int failed_medians = 0, failed_pooled = 0;
    for (int t = 0; t < trials; ++t) {
        const auto [base, cand] = model.draw_sides(rng, 1.0);
        const GateReport r = run_gate(run_medians_of(base), run_medians_of(cand), GateOptions{});
        ASSERT_FALSE(r.no_verdict());
        failed_medians += r.failed();
        // The old unit, every repetition a sample: the runs' offsets look like a change.
        GateOptions pooled;
        pooled.min_runs = 5;
        failed_pooled += run_gate(samples_of(base), samples_of(cand), pooled).failed();
    }
    EXPECT_LE(failed_medians, trials * 5 / 100) << failed_medians;
    std::cout << "identical builds failed " << failed_medians << " of " << trials << " on run medians, " << failed_pooled
              << " with every repetition a sample\n";
    EXPECT_GT(failed_pooled, trials * 20 / 100) << failed_pooled;  // ~29 %
}

TEST(RunMedians, AFivePercentSlowdownWithLowSpreadIsCaught) {
    std::mt19937_64 rng(17);
    const RunModel quiet{0.005, 0.002, 3};
    const int trials = 300;
    int found = 0, others = 0;
    for (int t = 0; t < trials; ++t) {
        const auto [base, cand] = quiet.draw_sides(rng, 1.05);
        for (const auto& c : run_gate(run_medians_of(base), run_medians_of(cand), GateOptions{}).rows) {
            if (c.name == "BM_0") found += c.verdict == Verdict::Regression;
            else others += c.verdict == Verdict::Regression || c.verdict == Verdict::Improvement;
        }
    }
    EXPECT_GE(found, trials * 95 / 100) << found;
    EXPECT_LE(others, trials / 20) << others;
}

TEST(RunMedians, ARunThatDriftedAsAWholeDoesNotFailTheGate) {
    // Seven quiet runs a side; in the candidate every repetition of one run is 20 %
    // slower (the machine was in its slow state for that process).
    const RunModel still{0.0, 0.001, 5};
    std::mt19937_64 rng(18);
    const std::map<std::string, double> one{{"BM_Step", 100.0}};
    const auto base = still.draw_runs(rng, "a", 1, kDefaultRuns, one);
    auto cand = still.draw_runs(rng, "b", 100, kDefaultRuns, one);
    for (auto& res : cand[3].results) res.value *= 1.20;
    const GateReport r = run_gate(run_medians_of(base), run_medians_of(cand), GateOptions{});
    EXPECT_FALSE(r.failed()) << format_report(r, ReportFormat::Table);
    EXPECT_FALSE(r.no_verdict());
    EXPECT_LT(std::abs(r.rows.at(0).change), 0.01);
}

TEST(RunMedians, FewerRunsThanTheMinimumGiveNoVerdict) {
    std::mt19937_64 rng(19);
    const RunModel model;
    const auto base = model.draw_runs(rng, "a", 1, 1, twelve_benchmarks());  // one process, 3 repetitions
    const auto cand = model.draw_runs(rng, "b", 10, kDefaultRuns, twelve_benchmarks(1.5));
    GateReport r = run_gate(run_medians_of(base), run_medians_of(cand), GateOptions{});
    EXPECT_TRUE(r.no_verdict());
    EXPECT_FALSE(r.failed());  // no verdict is neither pass nor fail
    EXPECT_EQ(r.too_few_runs_text(), "too few independent runs: 1 < " + std::to_string(kDefaultRuns));
    EXPECT_NE(format_report(r, ReportFormat::Table).find("gate: no verdict - too few independent runs: 1 < 7"),
              std::string::npos);
    const auto j = nlohmann::json::parse(format_report(r, ReportFormat::Json));
    EXPECT_FALSE(j["passed"].get<bool>());
    EXPECT_TRUE(j["no_verdict"].get<bool>());
}

TEST(RunMedians, HolmOverManyBenchmarksNeedsEnoughRuns) {
    // Five runs a side cannot reach p < 0.05 / 12: said so, not "no change".
    std::mt19937_64 rng(20);
    const RunModel quiet{0.001, 0.001, 3};
    const auto base = quiet.draw_runs(rng, "a", 1, 5, twelve_benchmarks());
    const auto cand = quiet.draw_runs(rng, "b", 10, 5, twelve_benchmarks(1.2));
    GateOptions five;
    five.min_runs = 5;
    const GateReport r = run_gate(run_medians_of(base), run_medians_of(cand), five);
    for (const auto& c : r.rows) {
        EXPECT_EQ(c.verdict, Verdict::TooNoisy) << c.name << ": " << c.reason;
        EXPECT_NE(c.reason.find("cannot reach p < 0.0500 over 12 benchmarks"), std::string::npos) << c.reason;
    }
}

}  // namespace
}  // namespace mdtune::bench
