// Strategies driven by a synthetic landscape (no MD, no Runner::measure): the
// loop is proposal -> TrialResult from a known function of the config.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <set>

#include "mdtune/tuner/runner.h"
#include "mdtune/tuner/strategy.h"

namespace mdtune {
namespace {

// 4 clusters x 4 nstlist x 3 threads = 48 configs per system; threads = 8 is
// infeasible on a 4-core machine, so 32 are feasible (64 points in all).
const char* kSpace = R"(
[system]
kind = "lj"
natoms = [4000, 32000]
[space]
cluster = ["4x4", "4x8", "8x4", "1x1"]
nstlist = [10, 20, 40, 80]
threads = [2, 4, 8]
[measure]
steps = 2000
warmup = 200
repeats = 3
)";

HardwareCaps caps() { return HardwareCaps{4, false, {"none", "avx2"}}; }
tuner::SearchSpace space() { return tuner::parse_space(kSpace, "test.toml"); }

std::string key(const tuner::Proposal& p) {
    return p.system.canonical() + "|" + p.config.canonical() + "|" + p.measure.canonical();
}

// FNV-1a: a noise source that is the same on every platform.
double unit_noise(const std::string& s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return static_cast<double>(h % 100000) / 100000.0 * 2.0 - 1.0;  // [-1, 1)
}

// Values of a config, with a fallback for parameters the space leaves unset.
std::string text(const Config& c, Param p, std::string fallback = "4x4") {
    return c.get(p) ? to_string(*c.get(p)) : fallback;
}
long integer(const Config& c, Param p, long fallback = 40) { return c.get(p) ? std::get<long>(*c.get(p)) : fallback; }

// ms per step: best at 4x8 / nstlist 40 / threads 4, larger systems slower; the
// noise shrinks with the run length like a timing's would.
double true_ms(const tuner::Proposal& p) {
    static const std::map<std::string, double> cluster{{"4x4", 0.25}, {"4x8", 0.0}, {"8x4", 0.15}, {"1x1", 1.0}};
    const double nstlist = 0.3 * std::abs(std::log2(integer(p.config, Param::Nstlist) / 40.0));
    const double threads = integer(p.config, Param::Threads, 4) == 4 ? 0.0 : 0.4;
    return (1.0 + cluster.at(text(p.config, Param::Cluster)) + nstlist + threads) * p.system.natoms / 4000.0;
}

TrialResult landscape(const tuner::Proposal& p) {
    TrialResult r;
    r.status = TrialStatus::Ok;
    r.repeats = p.measure.repeats;
    const double amp = 0.06 * std::sqrt(2000.0 / p.measure.steps) * p.system.natoms / 4000.0;
    r.ms_median = true_ms(p) + amp * unit_noise(key(p));
    r.ms_min = r.ms_median - 0.5 * amp;
    r.ms_max = r.ms_median + 0.5 * amp;
    r.ns_per_day = 864.0 / r.ms_median;
    r.drift = 1e-4;
    r.drift_tolerance = 1e-3;
    return r;
}

using Landscape = std::function<TrialResult(const tuner::Proposal&)>;

std::vector<tuner::Observation> drive(tuner::Strategy& s, const Landscape& f, std::vector<tuner::Observation> history = {},
                               std::size_t max_steps = 100000) {
    while (max_steps-- > 0) {
        const auto p = s.next(history);
        if (!p) break;
        history.push_back({*p, f(*p)});
    }
    return history;
}

long trial_steps(const std::vector<tuner::Observation>& h) {
    long total = 0;
    for (const tuner::Observation& o : h) total += o.proposal.measure.steps;
    return total;
}

Config best_config_by_truth(const tuner::SearchSpace& s, const SystemDescriptor& sys, const std::set<std::string>& bad = {}) {
    Config best;
    double best_ms = 1e300;
    for (const Config& c : s.configs()) {
        if (!s.infeasible_reason(sys, c, caps()).empty() || bad.count(c.canonical())) continue;
        const double ms = true_ms({sys, c, s.measure});
        if (ms < best_ms) best_ms = ms, best = c;
    }
    return best;
}

// Noise-free and monotone in nstlist (for spaces that sweep only nstlist).
TrialResult separated(const tuner::Proposal& p) {
    TrialResult r;
    r.status = TrialStatus::Ok;
    r.ms_median = r.ms_min = r.ms_max = 1.0 + 0.1 * integer(p.config, Param::Nstlist);
    return r;
}

// ---- exhaustive -------------------------------------------------------------

TEST(Exhaustive, EveryFeasiblePointOnceInSpaceOrder) {
    const tuner::SearchSpace s = space();
    auto st = tuner::make_exhaustive(s, caps());
    EXPECT_EQ(st->name(), "exhaustive");
    EXPECT_EQ(st->planned(), 2u * 32);
    const auto h = drive(*st, landscape);
    ASSERT_EQ(h.size(), 2u * 32);
    std::vector<std::string> expected;
    for (const SystemDescriptor& sys : s.systems)
        for (const Config& c : s.configs())
            if (s.infeasible_reason(sys, c, caps()).empty()) expected.push_back(key({sys, c, s.measure}));
    std::vector<std::string> got;
    for (const tuner::Observation& o : h) got.push_back(key(o.proposal));
    EXPECT_EQ(got, expected);
    for (const tuner::Observation& o : h) EXPECT_NE(integer(o.proposal.config, Param::Threads), 8);
}

TEST(Exhaustive, ResumesWithoutRedoingWork) {
    const tuner::SearchSpace s = space();
    auto first = tuner::make_exhaustive(s, caps());
    const auto partial = drive(*first, landscape, {}, 30);
    ASSERT_EQ(partial.size(), 30u);
    auto second = tuner::make_exhaustive(s, caps());
    const auto h = drive(*second, landscape, partial);
    EXPECT_EQ(h.size(), 64u);
    std::set<std::string> keys;
    for (const tuner::Observation& o : h) keys.insert(key(o.proposal));
    EXPECT_EQ(keys.size(), 64u);
}

TEST(Exhaustive, AskingTwiceBeforeRecordingGivesDistinctPoints) {
    auto st = tuner::make_exhaustive(space(), caps());
    const auto a = st->next({});
    const auto b = st->next({});
    ASSERT_TRUE(a && b);
    EXPECT_NE(key(*a), key(*b));
}

// ---- random -----------------------------------------------------------------

std::vector<std::string> keys_of(const std::vector<tuner::Observation>& h) {
    std::vector<std::string> out;
    for (const tuner::Observation& o : h) out.push_back(key(o.proposal));
    return out;
}

TEST(Random, DistinctFeasibleWithinBudgetAndSeeded) {
    const tuner::SearchSpace s = space();
    auto a = tuner::make_random(s, caps(), 10, 42);
    EXPECT_EQ(a->name(), "random");
    EXPECT_EQ(a->planned(), 10u);
    const auto ha = drive(*a, landscape);
    ASSERT_EQ(ha.size(), 10u);
    const auto ka = keys_of(ha);
    EXPECT_EQ(std::set<std::string>(ka.begin(), ka.end()).size(), 10u);
    for (const tuner::Observation& o : ha) EXPECT_EQ(s.infeasible_reason(o.proposal.system, o.proposal.config, caps()), "");

    auto again = tuner::make_random(s, caps(), 10, 42);
    EXPECT_EQ(keys_of(drive(*again, landscape)), ka);
    auto other = tuner::make_random(s, caps(), 10, 43);
    EXPECT_NE(keys_of(drive(*other, landscape)), ka);
    // Not simply the first points in space order.
    auto ex = tuner::make_exhaustive(s, caps());
    EXPECT_NE(keys_of(drive(*ex, landscape, {}, 10)), ka);
}

TEST(Random, BudgetIsCappedByTheFeasibleCount) {
    auto st = tuner::make_random(space(), caps(), 1000, 7);
    EXPECT_EQ(st->planned(), 64u);
    EXPECT_EQ(drive(*st, landscape).size(), 64u);
    auto all = tuner::make_random(space(), caps(), 0, 7);  // 0: every feasible point
    EXPECT_EQ(drive(*all, landscape).size(), 64u);
}

TEST(Random, ResumeSkipsObservedPointsOfTheSameSample) {
    const tuner::SearchSpace s = space();
    auto a = tuner::make_random(s, caps(), 12, 5);
    const auto full = keys_of(drive(*a, landscape));
    auto b = tuner::make_random(s, caps(), 12, 5);
    const auto partial = drive(*b, landscape, {}, 4);
    auto c = tuner::make_random(s, caps(), 12, 5);
    EXPECT_EQ(keys_of(drive(*c, landscape, partial)), full);
}

// ---- successive halving -----------------------------------------------------

TEST(Halving, RungsAndStepSchedule) {
    const tuner::SearchSpace s = space();
    auto st = tuner::make_successive_halving(s, caps(), 3, 0);
    EXPECT_EQ(st->name(), "halving");
    // 32 feasible -> 11 -> 4 -> 2 -> 1: five rungs. Rungs 1 and 2 run as many steps
    // as rung 0 (the warmup + 50 floor), so they cut on rung 0's observations.
    EXPECT_EQ(st->planned(), 2u * (32 + 2 + 1));
    const auto h = drive(*st, landscape);
    std::map<std::string, std::set<long>> steps_by_system;
    for (const tuner::Observation& o : h) {
        steps_by_system[o.proposal.system.canonical()].insert(o.proposal.measure.steps);
        EXPECT_EQ(o.proposal.measure.warmup, 200);
        EXPECT_EQ(o.proposal.measure.repeats, 3);
    }
    // steps / 3^(4-r), floored at warmup + 50: 250, 250, 250, 666, 2000.
    for (const auto& [sys, steps] : steps_by_system) EXPECT_EQ(steps, (std::set<long>{250, 666, 2000})) << sys;
    // Rung 0 runs every feasible config of each system exactly once.
    std::size_t rung0 = 0;
    for (const tuner::Observation& o : h) rung0 += o.proposal.measure.steps == 250;
    EXPECT_EQ(rung0, 64u);
}

TEST(Halving, FindsTheTrueBestWithFewerTrialSteps) {
    const tuner::SearchSpace s = space();
    auto st = tuner::make_successive_halving(s, caps(), 3, 0);
    const auto h = drive(*st, landscape);
    auto ex = tuner::make_exhaustive(s, caps());
    const auto he = drive(*ex, landscape);
    EXPECT_LT(trial_steps(h), trial_steps(he) / 3);
    for (const SystemDescriptor& sys : s.systems) {
        const auto best = tuner::best_observation(h, sys);
        ASSERT_TRUE(best) << sys.canonical();
        EXPECT_EQ(best->proposal.config.canonical(), best_config_by_truth(s, sys).canonical()) << sys.canonical();
        EXPECT_EQ(best->proposal.measure.steps, 2000);
        EXPECT_EQ(best->proposal.system.canonical(), sys.canonical());
        // Exhaustive agrees.
        EXPECT_EQ(tuner::best_observation(he, sys)->proposal.config.canonical(), best->proposal.config.canonical());
    }
    const auto hk = keys_of(h);
    EXPECT_EQ(std::set<std::string>(hk.begin(), hk.end()).size(), h.size());  // nothing proposed twice
}

TEST(Halving, FailedAndInvalidConfigsNeverAdvance) {
    const tuner::SearchSpace s = space();
    // The fastest-looking configs are broken in different ways.
    const std::set<std::string> broken{"cluster=4x8;nstlist=40;threads=4", "cluster=4x8;nstlist=20;threads=4",
                                       "cluster=8x4;nstlist=40;threads=4", "cluster=4x8;nstlist=80;threads=4"};
    const Landscape f = [&](const tuner::Proposal& p) {
        TrialResult r = landscape(p);
        const std::string c = p.config.canonical();
        if (c == "cluster=4x8;nstlist=40;threads=4") {
            r.status = TrialStatus::Failed;
            r.ms_median = r.ms_min = r.ms_max = 0;  // failures carry no timing
        } else if (c == "cluster=4x8;nstlist=20;threads=4") {
            r.status = TrialStatus::Invalid;
            r.ms_median = r.ms_min = r.ms_max = 0.1;
        } else if (c == "cluster=8x4;nstlist=40;threads=4") {
            r.status = TrialStatus::Invalid;  // drift over tolerance, as the runner judged it
            r.drift = 1e-2;
            r.ms_median = r.ms_min = r.ms_max = 0.2;
        } else if (c == "cluster=4x8;nstlist=80;threads=4") {
            r.status = TrialStatus::Timeout;
        }
        return r;
    };
    auto st = tuner::make_successive_halving(s, caps(), 3, 0);
    const auto h = drive(*st, f);
    for (const tuner::Observation& o : h)
        if (broken.count(o.proposal.config.canonical())) EXPECT_EQ(o.proposal.measure.steps, 250) << key(o.proposal);
    for (const SystemDescriptor& sys : s.systems) {
        const auto best = tuner::best_observation(h, sys);
        ASSERT_TRUE(best);
        EXPECT_FALSE(broken.count(best->proposal.config.canonical()));
        EXPECT_EQ(best->proposal.config.canonical(), best_config_by_truth(s, sys, broken).canonical());
    }
}

TEST(Halving, NoiseAwareKeepsConfigsWithinTheCutoffsSpread) {
    // Medians in a clear order but spreads wider than their gaps: every config's
    // best repeat beats the cut-off's worst, so none may be dropped early.
    const tuner::SearchSpace s = tuner::parse_space(
        "[system]\nkind = \"lj\"\nnatoms = 4000\n[space]\nnstlist = [10, 20, 40, 80, 100, 120, 140, 160, 180]\n"
        "[measure]\nsteps = 900\nwarmup = 10\n",
        "x");
    const Landscape overlapping = [](const tuner::Proposal& p) {
        TrialResult r;
        r.status = TrialStatus::Ok;
        r.ms_median = 1.0 + 0.001 * integer(p.config, Param::Nstlist);
        r.ms_min = r.ms_median - 1.0;
        r.ms_max = r.ms_median + 1.0;
        return r;
    };
    auto st = tuner::make_successive_halving(s, caps(), 3, 0);
    const auto h = drive(*st, overlapping);
    std::size_t full = 0;
    for (const tuner::Observation& o : h) full += o.proposal.measure.steps == 900;
    EXPECT_EQ(full, 9u);  // all nine survive to the last rung

    auto st2 = tuner::make_successive_halving(s, caps(), 3, 0);
    const auto h2 = drive(*st2, separated);
    EXPECT_EQ(h2.size(), 9u + 3 + 1);
    EXPECT_EQ(tuner::best_observation(h2, s.systems[0])->proposal.config.canonical(), "nstlist=10");
}

TEST(Halving, ARungWaitsForAllItsObservations) {
    const tuner::SearchSpace s = tuner::parse_space(
        "[system]\nkind = \"lj\"\nnatoms = 4000\n[space]\nnstlist = [10, 20, 40, 80]\n[measure]\nsteps = 1000\n"
        "warmup = 10\n",
        "x");
    auto st = tuner::make_successive_halving(s, caps(), 2, 0);
    std::vector<tuner::Proposal> issued;
    while (auto p = st->next({})) issued.push_back(*p);  // never recorded
    ASSERT_EQ(issued.size(), 4u);                        // rung 0 only; the rest waits
    std::vector<tuner::Observation> history;
    for (const tuner::Proposal& p : issued) history.push_back({p, separated(p)});
    const auto more = st->next(history);
    ASSERT_TRUE(more);
    EXPECT_GT(more->measure.steps, issued[0].measure.steps);
}

TEST(Halving, BudgetCapsProposals) {
    // 20 for two systems: each bracket starts from a sample of 6 of its 32 feasible
    // configs (6 + 2 + 1 planned) and spends at most its share of 10 (noise-aware
    // extras included), so the first system never eats the second's budget.
    auto st = tuner::make_successive_halving(space(), caps(), 3, 20);
    EXPECT_EQ(st->planned(), 18u);
    const auto h = drive(*st, landscape);
    EXPECT_LE(h.size(), 20u);
    std::map<std::string, std::size_t> rung0, all;
    for (const tuner::Observation& o : h) {
        rung0[o.proposal.system.canonical()] += o.proposal.measure.steps == 250;
        ++all[o.proposal.system.canonical()];
    }
    for (const SystemDescriptor& sys : space().systems) {
        EXPECT_EQ(rung0[sys.canonical()], 6u) << sys.canonical();
        EXPECT_LE(all[sys.canonical()], 10u) << sys.canonical();
    }
    // Without noise the plan holds: both brackets reach the full run.
    auto quiet = tuner::make_successive_halving(space(), caps(), 3, 20);
    std::map<std::string, std::size_t> full;
    for (const tuner::Observation& o : drive(*quiet, separated)) full[o.proposal.system.canonical()] += o.proposal.measure.steps == 2000;
    for (const SystemDescriptor& sys : space().systems) EXPECT_EQ(full[sys.canonical()], 1u) << sys.canonical();
    // The sample is seeded.
    auto again = tuner::make_successive_halving(space(), caps(), 3, 20);
    EXPECT_EQ(keys_of(drive(*again, landscape)), keys_of(h));
    auto other = tuner::make_successive_halving(space(), caps(), 3, 20, 2);
    EXPECT_NE(keys_of(drive(*other, landscape)), keys_of(h));
}

TEST(Halving, ResumeMakesTheSameDecisions) {
    const tuner::SearchSpace s = space();
    auto a = tuner::make_successive_halving(s, caps(), 3, 0);
    const auto full = keys_of(drive(*a, landscape));
    for (std::size_t cut : {1u, 40u, 80u, 100u}) {
        auto b = tuner::make_successive_halving(s, caps(), 3, 0);
        const auto partial = drive(*b, landscape, {}, cut);
        auto c = tuner::make_successive_halving(s, caps(), 3, 0);
        EXPECT_EQ(keys_of(drive(*c, landscape, partial)), full) << "cut " << cut;
    }
}

TEST(Halving, SingleConfigRunsOnceInFull) {
    const tuner::SearchSpace s = tuner::parse_space("[system]\nkind = \"lj\"\nnatoms = 4000\n", "x");
    auto st = tuner::make_successive_halving(s, caps(), 3, 0);
    const auto h = drive(*st, landscape);
    ASSERT_EQ(h.size(), 1u);
    EXPECT_EQ(h[0].proposal.measure.steps, s.measure.steps);
    EXPECT_THROW(tuner::make_successive_halving(s, caps(), 1, 0), std::invalid_argument);
}

// ---- best_observation -------------------------------------------------------

tuner::Observation obs(const SystemDescriptor& sys, long nstlist, long steps, TrialStatus status, double ms,
                double drift = 0.0) {
    tuner::Observation o;
    o.proposal.system = sys;
    o.proposal.config.set(Param::Nstlist, nstlist);
    o.proposal.measure.steps = steps;
    o.result.status = status;
    o.result.ms_median = o.result.ms_min = o.result.ms_max = ms;
    o.result.drift = drift;
    o.result.drift_tolerance = 1e-3;
    return o;
}

TEST(BestObservation, IgnoresInvalidFailedAndOtherSystems) {
    const SystemDescriptor a{"lj", 4000, 1}, b{"lj", 8000, 1};
    std::vector<tuner::Observation> h{
        obs(a, 10, 2000, TrialStatus::Failed, 0.0),  obs(a, 20, 2000, TrialStatus::Invalid, 0.5),
        obs(a, 40, 2000, TrialStatus::Timeout, 0.0), obs(a, 50, 2000, TrialStatus::Ok, 1.2),
        obs(a, 60, 2000, TrialStatus::Ok, 1.0),      obs(a, 70, 250, TrialStatus::Ok, 0.7),  // shorter rung
        obs(b, 80, 2000, TrialStatus::Ok, 0.1),
    };
    const auto best = tuner::best_observation(h, a);
    ASSERT_TRUE(best);
    EXPECT_EQ(best->proposal.config.canonical(), "nstlist=60");
    EXPECT_EQ(tuner::best_observation(h, b)->proposal.config.canonical(), "nstlist=80");
    EXPECT_FALSE(tuner::best_observation(h, SystemDescriptor{"water", 3000, 1}));
    EXPECT_FALSE(tuner::best_observation({obs(a, 10, 2000, TrialStatus::Failed, 0.0)}, a));
}

TEST(DriftVerdict, NeedsTwoStandardErrorsAboveTheTolerance) {
    EXPECT_FALSE(tuner::drift_breaks_tolerance(0.004, 0.0, 0.005));
    EXPECT_TRUE(tuner::drift_breaks_tolerance(0.006, 0.0, 0.005));   // no error estimate: the value as is
    EXPECT_TRUE(tuner::drift_breaks_tolerance(-0.006, 0.0, 0.005));  // either sign
    EXPECT_FALSE(tuner::drift_breaks_tolerance(0.009, 0.003, 0.005));  // a short, noisy run: cannot tell
    EXPECT_TRUE(tuner::drift_breaks_tolerance(0.012, 0.003, 0.005));
    EXPECT_FALSE(tuner::drift_breaks_tolerance(1.0, 0.0, 0.0));  // no tolerance reported
}

// ---- stop conditions --------------------------------------------------------

TEST(StopConditions, Compose) {
    std::vector<tuner::Observation> h(2);
    EXPECT_FALSE(tuner::stop_after_trials(3)->should_stop(h));
    h.resize(3);
    EXPECT_TRUE(tuner::stop_after_trials(3)->should_stop(h));
    EXPECT_TRUE(tuner::stop_after_seconds(0.0)->should_stop(h));
    EXPECT_FALSE(tuner::stop_after_seconds(1e9)->should_stop(h));

    std::vector<std::unique_ptr<tuner::StopCondition>> conds;
    conds.push_back(tuner::stop_after_trials(5));
    conds.push_back(tuner::stop_after_seconds(1e9));
    const auto any = tuner::stop_any(std::move(conds));
    EXPECT_FALSE(any->should_stop(h));
    h.resize(5);
    EXPECT_TRUE(any->should_stop(h));
    EXPECT_FALSE(tuner::stop_any({})->should_stop(h));

    // A sweep loop with a trial limit stops a strategy early.
    auto st = tuner::make_exhaustive(space(), caps());
    const auto limit = tuner::stop_after_trials(7);
    std::vector<tuner::Observation> history;
    while (!limit->should_stop(history))
        if (auto p = st->next(history)) history.push_back({*p, landscape(*p)});
    EXPECT_EQ(history.size(), 7u);
}

// ---- replay runner (run_once level; measure() is exercised with runner.cpp) ----

TEST(ReplayRunner, AnswersFromRecordings) {
    const tuner::SearchSpace s = space();
    tuner::Proposal p{s.systems[0], s.configs()[0], s.measure};
    TrialResult r = landscape(p);
    r.ms_median = 2.0;
    r.ms_min = 1.5;
    r.ms_max = 3.0;
    r.ns_per_day = 100.0;
    r.timings = {{"nonbonded", 1e-3}, {"total", 2e-3}};
    r.report.emplace();
    r.report->pairlist.efficiency = 0.5;
    r.report->build.git_commit = "0123456789ab";
    tuner::Proposal failed = p;
    failed.config = s.configs()[1];
    TrialResult fr;
    fr.status = TrialStatus::Crashed;
    fr.stderr_tail = "segfault";
    const auto runner = tuner::make_replay_runner({{p, r}, {failed, fr}});

    std::vector<double> ms;
    for (int i = 0; i < p.measure.repeats; ++i) {
        const tuner::RunOutcome out = runner->run_once(p, i);
        ASSERT_EQ(out.status, TrialStatus::Ok);
        const mdcore::RunReport& j = out.report;
        EXPECT_EQ(j.status, "ok");
        EXPECT_DOUBLE_EQ(j.drift_per_atom_per_ps, r.drift);
        EXPECT_DOUBLE_EQ(j.config.drift_tolerance, r.drift_tolerance);
        EXPECT_DOUBLE_EQ(j.pairlist.efficiency, 0.5);
        EXPECT_EQ(j.build.git_commit, "0123456789ab");  // the recorded report's other fields are kept
        EXPECT_EQ(j.steps, 2000);
        const double m = j.ms_per_step;
        // Timings scale with the repeat and cover the measured steps.
        EXPECT_NEAR(j.timings.at("total"), m * 1e-3 * 1800, 1e-9);
        EXPECT_NEAR(j.ns_per_day * m, 200.0, 1e-9);
        ms.push_back(m);
    }
    std::sort(ms.begin(), ms.end());
    EXPECT_DOUBLE_EQ(ms.front(), 1.5);
    EXPECT_DOUBLE_EQ(ms[ms.size() / 2], 2.0);
    EXPECT_DOUBLE_EQ(ms.back(), 3.0);

    const tuner::RunOutcome crashed = runner->run_once(failed, 0);
    EXPECT_EQ(crashed.status, TrialStatus::Crashed);
    EXPECT_EQ(crashed.stderr_tail, "segfault");

    tuner::Proposal shorter = p;
    shorter.measure.steps = 250;  // a halving rung that was never recorded
    const tuner::RunOutcome missing = runner->run_once(shorter, 0);
    EXPECT_EQ(missing.status, TrialStatus::Failed);
    EXPECT_NE(missing.stderr_tail.find("not recorded"), std::string::npos);
}

}  // namespace
}  // namespace mdtune
