// The historic drift that a baseline measured at another time is judged
// against: from the label medians of past runs on one machine, robust to a rare
// real step, absent without enough history, and not applied to interleaved runs.
#include <gtest/gtest.h>

#include <cmath>

#include "mdtune/bench/compare.h"
#include "mdtune/bench/ingest.h"
#include "mdtune/bench/noise_floor.h"

namespace mdtune::bench {
namespace {

// One run of BM_A with three repetitions around `us`.
db::BenchRunRow run(long id, const std::string& label, double us) {
    db::BenchRunRow r;
    r.id = id;
    r.label = label;
    r.hardware_id = "hw";
    for (int k = 0; k < 3; ++k) r.results.push_back({"BM_A", k, us * (1.0 + 0.001 * (k - 1)), "us", 10, ""});
    return r;
}

TEST(NoiseFloor, DriftIsTheNinetiethPercentileOfConsecutiveLabelSteps) {
    // A machine switching between a fast and a slow state (+10 %).
    const std::vector<double> two_state{100, 110, 100, 100, 110, 110, 100, 110, 100, 100, 110};
    EXPECT_NEAR(drift_of(two_state), 0.10, 1e-9);
    // A single real 30 % step among steady labels does not become the floor.
    std::vector<double> one_step(15, 100.0);
    for (std::size_t i = 8; i < one_step.size(); ++i) one_step[i] = 130.0;
    EXPECT_LT(drift_of(one_step), 0.01);
    // Too little history: unknown, no floor.
    EXPECT_EQ(drift_of(std::vector<double>{100, 125}), 0.0);
    EXPECT_EQ(drift_of(std::vector<double>{100, 0, 100}), 0.0);
}

TEST(NoiseFloor, FromLabelMediansOfPastRunsOnTheMachine) {
    std::vector<db::BenchRunRow> history;
    long id = 1;
    // Labels alternate between 100 us and 108 us; each label has three runs.
    for (int label = 0; label < 6; ++label)
        for (int k = 0; k < 3; ++k) history.push_back(run(id++, "L" + std::to_string(label), label % 2 ? 108.0 : 100.0));
    const NoiseFloors floors = historic_drift(history);
    ASSERT_EQ(floors.count("BM_A"), 1u);
    EXPECT_NEAR(floors.at("BM_A").drift, 0.08, 1e-9);
    EXPECT_EQ(floors.at("BM_A").labels, 6u);
    // Two labels are not a history.
    EXPECT_TRUE(historic_drift({run(1, "a", 100), run(2, "b", 120)}).empty());
    // Only the most recent kDriftLabels labels count: old wild swings are forgotten.
    std::vector<db::BenchRunRow> long_history;
    id = 1;
    for (int label = 0; label < 10; ++label) long_history.push_back(run(id++, "old" + std::to_string(label), label % 2 ? 150.0 : 100.0));
    for (std::size_t label = 0; label < kDriftLabels; ++label) long_history.push_back(run(id++, "new" + std::to_string(label), 100.0));
    EXPECT_LT(historic_drift(long_history).at("BM_A").drift, 1e-6);
}

TEST(NoiseFloor, AChangeInsideTheHistoricDriftIsNotARegression) {
    // Seven quiet runs a side, the candidate 6 % slower as a whole: significant.
    std::vector<double> base, cand;
    for (int i = 0; i < kDefaultRuns; ++i) {
        base.push_back(100e-6 * (1 + 0.001 * i));
        cand.push_back(106e-6 * (1 + 0.001 * i));
    }
    const Samples b{{"BM_A", base}}, c{{"BM_A", cand}};
    EXPECT_TRUE(run_gate(b, c, GateOptions{}).failed());  // no history: a regression
    const NoiseFloors wandering{{"BM_A", NoiseFloor{0.10, 12}}};
    const GateReport r = run_gate(b, c, GateOptions{}, wandering);
    EXPECT_FALSE(r.failed());
    EXPECT_EQ(r.rows.at(0).verdict, Verdict::NoChange);
    EXPECT_NE(r.rows.at(0).reason.find("historic drift +-10.0%"), std::string::npos) << r.rows.at(0).reason;
    // Beyond the drift it is one.
    std::vector<double> far;
    for (double v : base) far.push_back(v * 1.15);
    EXPECT_TRUE(run_gate(b, Samples{{"BM_A", far}}, GateOptions{}, wandering).failed());
    // Instruction counts have no drift: the floor is ignored.
    GateOptions exact;
    exact.exact_counts = true;
    EXPECT_TRUE(run_gate(Samples{{"BM_A", {1e6}}}, Samples{{"BM_A", {1.06e6}}}, exact, wandering).failed());
}

TEST(NoiseFloor, InterleavedRunsAreMeasuredTogether) {
    const std::vector<db::BenchRunRow> a{run(1, "a", 1), run(3, "a", 1), run(5, "a", 1)};
    const std::vector<db::BenchRunRow> b{run(2, "b", 1), run(4, "b", 1), run(6, "b", 1)};
    const std::vector<db::BenchRunRow> later{run(7, "c", 1), run(8, "c", 1)};
    EXPECT_TRUE(measured_interleaved(a, b));
    EXPECT_TRUE(measured_interleaved(b, a));
    EXPECT_FALSE(measured_interleaved(a, later));
    EXPECT_FALSE(measured_interleaved(later, b));
    EXPECT_FALSE(measured_interleaved(a, {}));
}

}  // namespace
}  // namespace mdtune::bench
