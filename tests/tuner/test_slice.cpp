// Slices of a space for Slurm array tasks: a deterministic partition whose union
// is what a local sweep measures, a strategy restricted to one slice, a sweep
// that measures only its slice's baselines, and the [launch] section.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "mdtune/tuner/runner.h"
#include "mdtune/tuner/slice.h"
#include "mdtune/tuner/sweep.h"

namespace mdtune {
namespace {

const char* kSixConfigs = R"(
[system]
kind = "lj"
natoms = [256, 500]
[space]
cluster = ["4x4", "1x1"]
nstlist = [10, 20, 40]
[measure]
steps = 30
warmup = 10
repeats = 1
)";

std::string key(const tuner::Proposal& p) { return p.system.canonical() + "|" + p.config.canonical(); }

HardwareCaps caps() {
    HardwareCaps c;
    c.cores = 2;
    c.simd_levels = {"none"};
    return c;
}

TEST(Slice, ParseAcceptsIOverMAndNamesTheLimit) {
    EXPECT_EQ(tuner::parse_slice("2/5").index, 2);
    EXPECT_EQ(tuner::parse_slice("2/5").count, 5);
    EXPECT_EQ(tuner::parse_slice("0/1").count, 1);
    for (const char* bad : {"", "3", "a/b", "1/", "/2", "-1/3", "1/0", "1 /2", "2/2x"})
        EXPECT_THROW(tuner::parse_slice(bad), std::invalid_argument) << bad;
    try {
        tuner::parse_slice("3/3");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("0 to 2"), std::string::npos) << e.what();
    }
}

TEST(Slice, SlicesPartitionEveryPointOnceIncludingBaselines) {
    const tuner::SearchSpace space = tuner::parse_space(kSixConfigs, "six.toml");
    const auto all = tuner::enumerate_points(space);
    ASSERT_EQ(all.size(), 2u * 7u);  // per system: the default config + 6
    EXPECT_EQ(all[0].config.canonical(), "");
    for (int m : {1, 3, 4, 14, 20}) {
        std::multiset<std::string> seen;
        std::size_t largest = 0;
        for (int i = 0; i < m; ++i) {
            const auto part = tuner::slice_points(space, {i, m});
            largest = std::max(largest, part.size());
            for (const auto& p : part) seen.insert(key(p));
        }
        EXPECT_EQ(seen.size(), all.size()) << m;
        for (const auto& p : all) EXPECT_EQ(seen.count(key(p)), 1u) << m << " " << key(p);
        EXPECT_LE(largest, (all.size() + m - 1) / m) << m;
    }
    EXPECT_EQ(tuner::slice_count(space, 1), 14);
    EXPECT_EQ(tuner::slice_count(space, 5), 3);
    EXPECT_EQ(tuner::slice_count(space, 100), 1);
}

TEST(Slice, DefaultConfigInTheSpaceIsNotCountedTwice) {
    const tuner::SearchSpace space = tuner::parse_space("[system]\nkind = \"lj\"\nnatoms = 256\n", "plain.toml");
    EXPECT_EQ(tuner::enumerate_points(space).size(), 1u);
}

TEST(Slice, RestrictedExhaustiveProposesOnlyItsSlice) {
    const tuner::SearchSpace space = tuner::parse_space(kSixConfigs, "six.toml");
    const tuner::SliceFilter filter(space, {1, 3});
    auto strategy = tuner::restrict_to_slice(tuner::make_exhaustive(space, caps()), filter, filter.planned_proposals(space, caps()));
    std::set<std::string> expected;
    for (const auto& p : tuner::slice_points(space, {1, 3}))
        if (!p.config.canonical().empty()) expected.insert(key(p));
    std::set<std::string> got;
    std::vector<tuner::Observation> history;
    while (auto p = strategy->next(history)) {
        got.insert(key(*p));
        history.push_back({*p, {}});
    }
    EXPECT_EQ(got, expected);
    EXPECT_EQ(strategy->planned(), expected.size());
}

TEST(Slice, SweepOfAllSlicesRecordsWhatOneSweepRecords) {
    const tuner::SearchSpace space = tuner::parse_space(kSixConfigs, "six.toml");
    const auto dir = std::filesystem::temp_directory_path() / ("mdtune_test_slice_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    // Recorded results stand in for mdcore: the partition is under test, not MD.
    std::vector<tuner::Observation> recorded;
    for (const auto& p : tuner::enumerate_points(space)) {
        TrialResult r;
        r.status = TrialStatus::Ok;
        r.ms_median = r.ms_min = r.ms_max = 1.0 + static_cast<double>(recorded.size());
        r.repeats = 1;
        recorded.push_back({p, r});
    }
    auto runner = tuner::make_replay_runner(recorded);
    tuner::SweepContext ctx;
    ctx.hardware_id = "hw-test";
    ctx.build_id = "build-test";
    ctx.caps = caps();
    std::map<std::string, int> count;
    for (int i = 0; i < 3; ++i) {
        db::Store shard((dir / ("task-" + std::to_string(i) + ".db")).string());
        const tuner::SliceFilter filter(space, {i, 3});
        ctx.slice = &filter;
        auto strategy = tuner::restrict_to_slice(tuner::make_exhaustive(space, ctx.caps), filter, 0);
        tuner::run_sweep(space, shard, *runner, *strategy, ctx, "slice", nullptr, {});
        for (const auto& t : shard.trials()) {
            EXPECT_TRUE(filter.contains(t.system, t.config)) << t.config.canonical();
            ++count[t.system.canonical() + "|" + t.config.canonical()];
        }
    }
    EXPECT_EQ(count.size(), tuner::enumerate_points(space).size());
    for (const auto& [k, n] : count) EXPECT_EQ(n, 1) << k;
    std::filesystem::remove_all(dir);
}

TEST(LaunchSection, RanksComeFromTheSpaceAndAFixedLaunchRankCountIsRefused) {
    const std::string sys = "[system]\nkind = \"lj\"\nnatoms = 256\n";
    const tuner::SearchSpace one = tuner::parse_space(sys + "[launch]\nnodes = 1\nranks = 1\n", "l.toml");
    EXPECT_EQ(one.launch.nodes, 1);
    EXPECT_EQ(one.launch.ranks, 1);
    auto error_of = [&](const std::string& text) {
        try {
            tuner::parse_space(sys + text, "l.toml");
        } catch (const tuner::SpaceError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(error_of("[launch]\nranks = 2\n").find("sweep them in [space] (ranks = [1, 2])"), std::string::npos);
    EXPECT_NE(error_of("[launch]\nranks = 2\n").find("line 5"), std::string::npos);
    EXPECT_NE(error_of("[launch]\nnodes = 2\n").find("must not exceed the most ranks a trial uses (1)"),
              std::string::npos);
    EXPECT_NE(error_of("[launch]\noversubscribe = 1\n").find("must be true or false"), std::string::npos);
    // The allocation's tasks are the most ranks any trial uses.
    const tuner::SearchSpace swept =
        tuner::parse_space(sys + "[space]\nranks = [1, 4, 2]\n[launch]\nnodes = 2\noversubscribe = true\n", "l.toml");
    EXPECT_EQ(swept.launch.ranks, 4);
    EXPECT_EQ(swept.launch.nodes, 2);
    EXPECT_TRUE(swept.launch.oversubscribe);
    EXPECT_FALSE(one.launch.oversubscribe);
    EXPECT_NE(error_of("[launch]\nnodes = 0\n").find("must be 1 to"), std::string::npos);
    EXPECT_NE(error_of("[launch]\ngpus = 1\n").find("unknown key 'gpus'"), std::string::npos);
    EXPECT_NE(error_of("[launch]\nnodes = \"x\"\n").find("must be an integer"), std::string::npos);
}

}  // namespace
}  // namespace mdtune
