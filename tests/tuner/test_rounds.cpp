// Interleaved rounds, the guard rail against runs that did not get their
// threads, and verdicts (tuner/rounds.h, tuner/verdict.h), with a scripted runner.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "mdtune/tuner/rounds.h"
#include "mdtune/tuner/space.h"
#include "mdtune/tuner/strategy.h"
#include "mdtune/tuner/verdict.h"

namespace mdtune {
namespace {

// Answers each run with a scripted ms per step per config (times a factor of
// the call number, for drift) and a scripted share of the CPU it asked for.
class ScriptedRunner : public tuner::Runner {
public:
    std::map<std::string, std::vector<double>> ms;         // per config: by round, cyclically
    std::map<std::string, std::vector<double>> cpu_share;  // per config: consumed per call, then 1
    std::vector<std::pair<std::string, int>> calls;        // (config, round)

    tuner::RunOutcome run_once(const tuner::Proposal& p, int round) override {
        const std::string c = p.config.canonical();
        calls.emplace_back(c, round);
        const std::vector<double>& times = ms.at(c);
        tuner::RunOutcome out;
        out.status = TrialStatus::Ok;
        out.report.ms_per_step = times[static_cast<std::size_t>(round) % times.size()];
        out.report.config.threads = 2;
        out.wall_s = 1.0;
        double share = 1.0;
        if (auto& seq = cpu_share[c]; !seq.empty()) {
            share = seq.front();
            seq.erase(seq.begin());
        }
        // The CPU a run that got `share` of its 2 threads uses (set-up serial).
        const double measured = out.report.ms_per_step * static_cast<double>(p.measure.steps - p.measure.warmup) / 1000;
        out.cpu_s = share * ((out.wall_s - measured) + measured * 2);
        return out;
    }
};

const SystemDescriptor kSystem{mdcore::SystemKind::Lj, 256, 1};

Config nstlist(long n) {
    Config c;
    c.set(Param::Nstlist, n);
    return c;
}

tuner::Proposal proposal(const Config& c, int rounds) {
    MeasureSettings m;
    m.steps = 100;
    m.warmup = 10;
    m.repeats = rounds;
    return {kSystem, c, m};
}

TEST(Rounds, EveryMemberOncePerRoundInFreshOrdersWithTheReferenceInEach) {
    ScriptedRunner runner;
    runner.ms = {{"", {2.0}}, {"nstlist=10", {1.0}}, {"nstlist=20", {1.5}}, {"nstlist=40", {3.0}}};
    const std::vector<tuner::Proposal> members{proposal(nstlist(10), 6), proposal(nstlist(20), 6),
                                               proposal(nstlist(40), 6)};
    const tuner::RoundsOutcome out = tuner::measure_in_rounds(runner, members, proposal(Config{}, 6), {});
    ASSERT_FALSE(out.interrupted);
    ASSERT_EQ(runner.calls.size(), 24u);
    std::set<std::vector<std::string>> orders;
    for (int round = 0; round < 6; ++round) {
        std::vector<std::string> order;
        for (std::size_t k = 0; k < 4; ++k) {
            EXPECT_EQ(runner.calls[round * 4 + k].second, round);
            order.push_back(runner.calls[round * 4 + k].first);
        }
        std::vector<std::string> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(sorted, (std::vector<std::string>{"", "nstlist=10", "nstlist=20", "nstlist=40"})) << "round " << round;
        orders.insert(order);
    }
    EXPECT_GT(orders.size(), 1u) << "every round ran in the same order";
    ASSERT_EQ(out.members.size(), 3u);
    const TrialResult& fast = out.members[0];
    EXPECT_EQ(fast.status, TrialStatus::Ok);
    EXPECT_EQ(fast.repeats, 6);
    EXPECT_DOUBLE_EQ(fast.ms_median, 1.0);
    ASSERT_EQ(fast.samples.size(), 6u);
    for (const RepeatSample& s : fast.samples) {
        EXPECT_DOUBLE_EQ(s.ref_ms_per_step, 2.0);
        EXPECT_DOUBLE_EQ(s.ratio(), 0.5);
        EXPECT_EQ(s.threads, 2);
        EXPECT_DOUBLE_EQ(s.cpu_share(), 1.0);
        EXPECT_FALSE(s.noisy);
    }
    ASSERT_EQ(out.reference.samples.size(), 6u);
    EXPECT_DOUBLE_EQ(clean_ratios(out.reference).front(), 1.0);
}

// The guard rail's two settings (mdtune sweep/tune --min-cpu-share, --reruns).
TEST(Rounds, TheStarvedShareAndTheRerunCountAreSettings) {
    const auto calls_of = [](const ScriptedRunner& r, const std::string& key) {
        return std::count_if(r.calls.begin(), r.calls.end(), [&](const auto& c) { return c.first == key; });
    };
    const std::vector<tuner::Proposal> members{proposal(nstlist(10), 2)};
    // 20 % of its CPU: starved at the default share, not at a share of 0.1.
    ScriptedRunner lenient;
    lenient.ms = {{"", {2.0}}, {"nstlist=10", {1.0}}};
    lenient.cpu_share["nstlist=10"] = std::vector<double>(6, 0.2);
    tuner::RoundSettings low;
    low.min_cpu_share = 0.1;
    const tuner::RoundsOutcome kept = tuner::measure_in_rounds(lenient, members, proposal(Config{}, 2), low);
    EXPECT_EQ(calls_of(lenient, "nstlist=10"), 2);
    EXPECT_FALSE(is_noisy(kept.members[0]));
    // Always starved: no re-run with reruns = 0, three attempts per repeat with 2.
    for (int reruns : {0, 2}) {
        ScriptedRunner starved;
        starved.ms = lenient.ms;
        starved.cpu_share["nstlist=10"] = std::vector<double>(6, 0.2);
        tuner::RoundSettings settings;
        settings.reruns = reruns;
        const tuner::RoundsOutcome out = tuner::measure_in_rounds(starved, members, proposal(Config{}, 2), settings);
        EXPECT_EQ(calls_of(starved, "nstlist=10"), 2 * (1 + reruns)) << reruns;
        EXPECT_TRUE(is_noisy(out.members[0])) << reruns;
    }
}

TEST(Rounds, SameSeedSameOrdersOtherSeedOtherOrders) {
    const auto orders = [](unsigned long seed) {
        ScriptedRunner runner;
        runner.ms = {{"", {2.0}}, {"nstlist=10", {1.0}}, {"nstlist=20", {1.5}}, {"nstlist=40", {3.0}}};
        tuner::RoundSettings settings;
        settings.seed = seed;
        tuner::measure_in_rounds(runner, {proposal(nstlist(10), 5), proposal(nstlist(20), 5), proposal(nstlist(40), 5)},
                                 proposal(Config{}, 5), settings);
        return runner.calls;
    };
    EXPECT_EQ(orders(7), orders(7));
    EXPECT_NE(orders(7), orders(8));
}

TEST(Rounds, ARepeatWithoutItsThreadsIsRunAgainThenMarkedNoisyAndNeverBest) {
    ScriptedRunner runner;
    runner.ms = {{"", {2.0}}, {"nstlist=10", {1.0}}, {"nstlist=20", {1.5}}};
    // nstlist=10: round 0 gets 20 % of its CPU, then the re-run gets all of it;
    // nstlist=20 never gets more than 30 %: every repeat noisy after its re-run.
    runner.cpu_share["nstlist=10"] = {0.2, 1.0};
    runner.cpu_share["nstlist=20"] = std::vector<double>(6, 0.3);
    const std::vector<tuner::Proposal> members{proposal(nstlist(10), 3), proposal(nstlist(20), 3)};
    const tuner::RoundsOutcome out = tuner::measure_in_rounds(runner, members, proposal(Config{}, 3), {});
    EXPECT_EQ(std::count(runner.calls.begin(), runner.calls.end(), std::make_pair(std::string("nstlist=10"), 0)), 2);
    EXPECT_EQ(std::count_if(runner.calls.begin(), runner.calls.end(),
                            [](const auto& c) { return c.first == "nstlist=20"; }),
              6);
    ASSERT_EQ(out.members[0].samples.size(), 3u);
    EXPECT_FALSE(out.members[0].samples[0].noisy);
    EXPECT_FALSE(is_noisy(out.members[0]));
    const TrialResult& starved = out.members[1];
    ASSERT_EQ(starved.samples.size(), 3u);
    for (const RepeatSample& s : starved.samples) {
        EXPECT_TRUE(s.noisy);
        EXPECT_NEAR(s.cpu_share(), 0.3, 1e-12);
    }
    EXPECT_TRUE(is_noisy(starved));
    // A round whose reference was starved gives no ratios.
    ScriptedRunner starved_ref;
    starved_ref.ms = runner.ms;
    starved_ref.cpu_share[""] = {0.1, 0.1};  // round 0 and its re-run
    const tuner::RoundsOutcome no_ref =
        tuner::measure_in_rounds(starved_ref, {members[0]}, proposal(Config{}, 3), {});
    EXPECT_TRUE(no_ref.reference.samples[0].noisy);
    EXPECT_EQ(no_ref.members[0].samples[0].ref_ms_per_step, 0.0);
    EXPECT_DOUBLE_EQ(no_ref.members[0].samples[1].ref_ms_per_step, 2.0);
    EXPECT_EQ(clean_ratios(no_ref.members[0]).size(), 2u);
    // Even when its times say it is the fastest, a noisy trial is never the best.
    TrialResult fake_fast = starved;
    for (RepeatSample& s : fake_fast.samples) s.ms_per_step = 0.1;
    fake_fast.ms_median = 0.1;
    const std::vector<tuner::Observation> history{{members[0], out.members[0]}, {members[1], fake_fast},
                                                  {proposal(Config{}, 3), out.reference}};
    const auto v = tuner::judge(history, kSystem);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->best.proposal.config, nstlist(10));
    EXPECT_EQ(v->noisy, 1u);
    const auto best = tuner::best_observation(history, kSystem);
    ASSERT_TRUE(best);
    EXPECT_EQ(best->proposal.config, nstlist(10));
}

TEST(Rounds, TheCpuShareCountsTheSetUpAsSerial) {
    RepeatSample s;
    s.wall_s = 2.0;
    s.measured_s = 1.0;
    s.threads = 2;
    s.cpu_s = 3.0;  // 1 s of set-up on one core + 1 s on two
    EXPECT_DOUBLE_EQ(s.cpu_share(), 1.0);
    s.cpu_s = 1.5;
    EXPECT_DOUBLE_EQ(s.cpu_share(), 0.5);
    s.threads = 0;
    EXPECT_EQ(s.cpu_share(), 0.0);  // unknown: never noisy
}

TEST(Rounds, AFailedMemberLeavesTheLaterRounds) {
    class FailingRunner : public ScriptedRunner {
    public:
        tuner::RunOutcome run_once(const tuner::Proposal& p, int round) override {
            if (p.config == nstlist(20) && round == 1) {
                calls.emplace_back(p.config.canonical(), round);
                tuner::RunOutcome out;
                out.status = TrialStatus::Crashed;
                out.stderr_tail = "killed by signal 6";
                return out;
            }
            return ScriptedRunner::run_once(p, round);
        }
    } runner;
    runner.ms = {{"", {2.0}}, {"nstlist=10", {1.0}}, {"nstlist=20", {1.5}}};
    const tuner::RoundsOutcome out = tuner::measure_in_rounds(
        runner, {proposal(nstlist(10), 4), proposal(nstlist(20), 4)}, proposal(Config{}, 4), {});
    EXPECT_EQ(out.members[1].status, TrialStatus::Crashed);
    EXPECT_EQ(out.members[1].stderr_tail, "killed by signal 6");
    EXPECT_EQ(out.members[1].repeats, 1);
    EXPECT_EQ(std::count_if(runner.calls.begin(), runner.calls.end(),
                            [](const auto& c) { return c.first == "nstlist=20"; }),
              2);
    EXPECT_EQ(out.members[0].status, TrialStatus::Ok);
    EXPECT_EQ(out.members[0].samples.size(), 4u);
}

TEST(Rounds, OnlineTuningStopsOnceTheBestIsSignificantlyAhead) {
    ScriptedRunner runner;
    runner.ms = {{"", {2.0}}, {"nstlist=10", {1.0, 1.02, 0.98, 1.01, 0.99}}, {"nstlist=20", {1.5, 1.52, 1.48}}};
    tuner::RoundSettings settings;
    settings.stop_when_decided = true;
    const std::vector<tuner::Proposal> members{proposal(nstlist(10), 9), proposal(nstlist(20), 9)};
    const tuner::RoundsOutcome apart = tuner::measure_in_rounds(runner, members, proposal(Config{}, 9), settings);
    EXPECT_EQ(apart.rounds_run, tuner::kMinDecidingRounds);
    EXPECT_EQ(apart.members[0].repeats, tuner::kMinDecidingRounds);
    EXPECT_EQ(runner.calls.size(), 9u);
    // Two configs as fast as each other are never decided: every round runs.
    ScriptedRunner tied;
    tied.ms = {{"", {2.0}}, {"nstlist=10", {1.0, 1.02, 0.98}}, {"nstlist=20", {1.01, 0.99, 1.0}}};
    const tuner::RoundsOutcome close = tuner::measure_in_rounds(tied, members, proposal(Config{}, 9), settings);
    EXPECT_EQ(close.rounds_run, 9);
    EXPECT_EQ(close.members[1].samples.size(), 9u);
}

// Per-round times of the default, a config 20 % faster and one as fast as the
// default (both with round-to-round noise of a few percent).
std::vector<tuner::Observation> measured_history(int rounds) {
    ScriptedRunner runner;
    std::vector<double> def, fast, same;
    for (int r = 0; r < rounds; ++r) {
        const double wobble = 1.0 + 0.02 * ((r * 7) % 5 - 2);  // -4 % .. +4 %
        def.push_back(2.0 * wobble);
        fast.push_back(1.6 * wobble * (r % 2 ? 1.01 : 0.99));
        same.push_back(2.0 * wobble * (r % 2 ? 0.99 : 1.01));
    }
    runner.ms = {{"", def}, {"nstlist=10", fast}, {"nstlist=20", same}};
    const std::vector<tuner::Proposal> members{proposal(nstlist(10), rounds), proposal(nstlist(20), rounds)};
    const tuner::RoundsOutcome out = tuner::measure_in_rounds(runner, members, proposal(Config{}, rounds), {});
    return {{members[0], out.members[0]}, {members[1], out.members[1]}, {proposal(Config{}, rounds), out.reference}};
}

TEST(Verdict, AClearlyFasterConfigIsBestAndDistinguishableFromTheDefault) {
    const std::vector<tuner::Observation> history = measured_history(7);
    const auto v = tuner::judge(history, kSystem, 0.95);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->best.proposal.config, nstlist(10));
    EXPECT_FALSE(v->best_is_default);
    EXPECT_FALSE(v->indistinguishable_from_default);
    EXPECT_TRUE(v->tied.empty());
    EXPECT_NEAR(v->ratio_to_default.estimate, 0.8, 0.01);
    EXPECT_LT(v->ratio_to_default.hi, 1.0);
    EXPECT_LE(v->speedup.lo, v->speedup.estimate);
    EXPECT_GE(v->speedup.hi, v->speedup.estimate);
    EXPECT_NEAR(v->speedup.estimate, 1.25, 0.02);
}

TEST(Verdict, ConfigsAsFastAsTheDefaultAreTiesAndIndistinguishable) {
    std::vector<tuner::Observation> history = measured_history(7);
    history.erase(history.begin());  // without the fast one: nstlist=20 and the default are alike
    const auto v = tuner::judge(history, kSystem, 0.95);
    ASSERT_TRUE(v);
    EXPECT_TRUE(v->indistinguishable_from_default);
    ASSERT_EQ(v->tied.size(), 1u);
    EXPECT_TRUE(v->best_is_default || v->tied[0].proposal.config.canonical().empty());
}

TEST(Verdict, SignificantlySlowerNeedsTheIntervalAboveOne) {
    const std::vector<tuner::Observation> history = measured_history(7);
    const TrialResult& fast = history[0].result;
    const TrialResult& same = history[1].result;
    EXPECT_TRUE(tuner::significantly_slower(same, fast, 0.95));
    EXPECT_FALSE(tuner::significantly_slower(fast, same, 0.95));
    EXPECT_FALSE(tuner::significantly_slower(same, history[2].result, 0.95));  // vs the default itself
}

TEST(Rounds, HalvingDropsAConfigOnlyWhenItIsSignificantlySlower) {
    const tuner::SearchSpace space = tuner::parse_space(R"(
[system]
kind = "lj"
natoms = [256]
[space]
nstlist = [10, 20, 40, 80]
[measure]
steps = 2000
warmup = 100
repeats = 3
)",
                                                        "halving.toml");
    // Per-round ratios to the reference: 40 overlaps the cut-off (20), 80 is far behind it.
    const std::map<long, std::vector<double>> ratios{
        {10, {0.50, 0.52, 0.48}}, {20, {0.60, 0.62, 0.58}}, {40, {0.61, 0.70, 0.55}}, {80, {0.90, 0.92, 0.88}}};
    auto strategy = tuner::make_successive_halving(space, HardwareCaps{2, false, {"none"}}, 2, 0);
    std::vector<tuner::Observation> history;
    std::set<long> first_rung;
    while (const auto p = strategy->next(history)) {
        const long n = std::get<long>(*p->config.get(Param::Nstlist));
        first_rung.insert(n);
        TrialResult r;
        r.status = TrialStatus::Ok;
        r.repeats = 3;
        for (int round = 0; round < 3; ++round) {
            RepeatSample sample;
            sample.round = round;
            sample.ref_ms_per_step = 2.0;
            sample.ms_per_step = 2.0 * ratios.at(n)[static_cast<std::size_t>(round)];
            r.samples.push_back(sample);
        }
        r.ms_median = 2.0 * ratios.at(n)[0];
        r.ms_min = r.ms_max = r.ms_median;  // the range rule alone would keep none beyond the cut
        history.push_back({*p, r});
        if (first_rung.size() == 4 && history.size() == 4) break;
    }
    ASSERT_EQ(first_rung, (std::set<long>{10, 20, 40, 80}));
    std::set<long> second_rung;
    while (const auto p = strategy->next(history)) {
        second_rung.insert(std::get<long>(*p->config.get(Param::Nstlist)));
        history.push_back({*p, history.front().result});
    }
    EXPECT_EQ(second_rung, (std::set<long>{10, 20, 40}));
}

}  // namespace
}  // namespace mdtune
