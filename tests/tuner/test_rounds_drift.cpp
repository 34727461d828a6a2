// A machine that switches between two speed states (every N runs the replayed
// times are 1.25x slower, then fast again): measured back to back, the ranking
// of configs 10 % apart breaks; measured in interleaved rounds (a sweep over a
// replayed database), it holds. Both halves run, so the test shows it can fail.
#include <gtest/gtest.h>

#include <filesystem>

#include "../common/temp_dir_test.h"
#include "mdtune/tuner/runner.h"
#include "mdtune/tuner/sweep.h"
#include "mdtune/tuner/verdict.h"

namespace mdtune {
namespace {

// Wraps a runner: runs [k N, (k+1) N) for odd k are `factor` times slower.
class TwoStateMachine : public tuner::Runner {
public:
    TwoStateMachine(tuner::Runner& inner, std::size_t period, double factor)
        : inner_(inner), period_(period), factor_(factor) {}
    tuner::RunOutcome run_once(const tuner::Proposal& p, int repeat) override {
        tuner::RunOutcome out = inner_.run_once(p, repeat);
        if ((runs_++ / period_) % 2 == 1) out.report.ms_per_step *= factor_;
        return out;
    }

private:
    tuner::Runner& inner_;
    std::size_t period_;
    double factor_;
    std::size_t runs_ = 0;
};

constexpr int kRounds = 9;
constexpr std::size_t kPeriod = 9;  // runs per speed state

tuner::SearchSpace space() {
    return tuner::parse_space(R"(
[system]
kind = "lj"
natoms = [256]
[space]
nstlist = [10, 20, 40]
[measure]
steps = 100
warmup = 10
repeats = 9
timeout_s = 60
)",
                              "drift.toml");
}

Config nstlist(long n) {
    Config c;
    c.set(Param::Nstlist, n);
    return c;
}

// The recorded database the replay answers from: the default at 1.0 ms/step and
// three configs each at least 10 % faster than the next.
std::vector<tuner::Observation> recorded(const tuner::SearchSpace& s) {
    std::vector<tuner::Observation> out;
    const std::vector<std::pair<Config, double>> speeds{
        {Config{}, 1.0}, {nstlist(10), 0.70}, {nstlist(20), 0.80}, {nstlist(40), 0.90}};
    for (const auto& [config, ms] : speeds) {
        TrialResult r;
        r.status = TrialStatus::Ok;
        r.repeats = kRounds;
        r.ms_median = r.ms_min = r.ms_max = ms;
        r.ns_per_day = 100.0 / ms;
        r.wall_s = kRounds;
        out.push_back({{s.systems[0], config, s.measure}, r});
    }
    return out;
}

tuner::SweepContext context() {
    tuner::SweepContext ctx;
    ctx.hardware_id = "hw-test";
    ctx.build_id = "build-drift";
    ctx.caps.cores = 2;
    ctx.caps.simd_levels = {"none", "avx2", "avx512"};
    return ctx;
}

class RoundsUnderDrift : public mdtest::TempDirTest {};  // the database lives in a directory removed afterwards

TEST_F(RoundsUnderDrift, BackToBackRepeatsBreakTheRanking) {
    const tuner::SearchSpace s = space();
    auto replay = tuner::make_replay_runner(recorded(s));
    TwoStateMachine machine(*replay, kPeriod, 1.25);
    // The old design: each config's repeats back to back, the default first.
    std::map<std::string, double> median;
    for (const Config& c : {Config{}, nstlist(10), nstlist(20), nstlist(40)})
        median[c.canonical()] = machine.measure({s.systems[0], c, s.measure}).ms_median;
    // nstlist=10 (0.70) ran entirely in the slow state, nstlist=20 (0.80) in the fast one.
    EXPECT_GT(median["nstlist=10"], median["nstlist=20"]) << "the drift did not break the back-to-back ranking";
}

TEST_F(RoundsUnderDrift, InterleavedRoundsKeepTheRanking) {
    const tuner::SearchSpace s = space();
    auto replay = tuner::make_replay_runner(recorded(s));
    TwoStateMachine machine(*replay, kPeriod, 1.25);
    db::Store store(path("drift.db"));
    auto strategy = tuner::make_exhaustive(s, context().caps);
    const tuner::SweepSummary summary =
        tuner::run_sweep(s, store, machine, *strategy, context(), "drift", nullptr, {});
    ASSERT_FALSE(summary.interrupted);
    EXPECT_EQ(summary.measured, 4u);
    // Ranked from the database, as show and a later sweep see it.
    std::vector<tuner::Observation> history;
    for (const db::StoredTrial& t : store.trials()) {
        EXPECT_EQ(t.result.samples.size(), static_cast<std::size_t>(kRounds));
        history.push_back({{t.system, t.config, t.measure}, t.result});
    }
    const auto ranked = tuner::ranked_finalists(history, s.systems[0]);
    ASSERT_EQ(ranked.size(), 4u);
    EXPECT_EQ(ranked[0]->proposal.config, nstlist(10));
    EXPECT_EQ(ranked[1]->proposal.config, nstlist(20));
    EXPECT_EQ(ranked[2]->proposal.config, nstlist(40));
    EXPECT_EQ(ranked[3]->proposal.config, Config{});
    ASSERT_TRUE(summary.systems[0].verdict);
    const tuner::Verdict& v = *summary.systems[0].verdict;
    EXPECT_EQ(v.best.proposal.config, nstlist(10));
    EXPECT_FALSE(v.indistinguishable_from_default);
    for (const tuner::Observation& o : v.tied) EXPECT_NE(o.proposal.config, Config{}) << "the default is 30 % slower";
    EXPECT_NEAR(v.ratio_to_default.estimate, 0.70, 1e-9);  // the drift cancels in the per-round ratio
}

}  // namespace
}  // namespace mdtune
