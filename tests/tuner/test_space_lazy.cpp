// Large spaces are never materialised: a space knows its size, decodes its k-th
// point, strategies sample indices, and a sweep of a 10^12-point space with a
// budget of 3 starts at once and stays small (so a 10^12-point space costs no memory), while the
// points it drops as infeasible are counted by reason, so a user sees why a sweep shrank.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "mdtune/tuner/runner.h"
#include "mdtune/tuner/strategy.h"
#include "mdtune/tuner/sweep.h"
#include "space_sampling.h"

namespace mdtune {
namespace {

HardwareCaps caps() { return HardwareCaps{4, false, {"none", "avx2"}}; }

std::string integer_list(long first, long count) {
    std::string out = "[";
    for (long k = 0; k < count; ++k) out += (k ? ", " : "") + std::to_string(first + k);
    return out + "]";
}

std::string real_list(double first, double step, long count) {
    std::string out = "[";
    char buf[32];
    for (long k = 0; k < count; ++k) {
        std::snprintf(buf, sizeof buf, "%s%.6f", k ? ", " : "", first + step * static_cast<double>(k));
        out += buf;
    }
    return out + "]";
}

// nstlist x nstprune x rlist (x pme_spacing): about half infeasible (nstprune > nstlist).
tuner::SearchSpace big_space(long lists, long rlists, long spacings) {
    std::string text = "[system]\nkind = \"lj\"\nnatoms = [4000]\n[space]\nnstlist = " + integer_list(1, lists) +
                       "\nnstprune = " + integer_list(1, lists) + "\nrlist = " + real_list(1.0, 1e-4, rlists) + "\n";
    if (spacings > 0) text += "pme_spacing = " + real_list(0.1, 1e-5, spacings) + "\n";
    text += "[measure]\nsteps = 100\nwarmup = 10\nrepeats = 1\ntimeout_s = 5\n";
    return tuner::parse_space(text, "big.toml");
}

// Resident set size of this process, from /proc/self/status (kB).
long rss_kb() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

const char* kSmall = R"(
[system]
kind = "lj"
natoms = [4000, 32000]
[space]
cluster = ["4x4", "4x8", "8x4"]
nstlist = [10, 20, 40, 80]
threads = [2, 4, 8]
)";

TEST(SpaceIndex, DecodingMatchesTheMaterialisedProduct) {
    const tuner::SearchSpace s = tuner::parse_space(kSmall, "small.toml");
    const std::vector<Config> all = s.configs();
    ASSERT_EQ(s.config_count(), all.size());
    EXPECT_EQ(s.size(), 2u * all.size());
    for (std::uint64_t k = 0; k < all.size(); ++k) EXPECT_EQ(s.config_at(k).canonical(), all[k].canonical()) << k;
    const tuner::SpacePoint last = s.point_at(s.size() - 1);
    EXPECT_EQ(last.system, 1u);
    EXPECT_EQ(last.config.canonical(), all.back().canonical());
    EXPECT_THROW(s.point_at(s.size()), std::out_of_range);
    const tuner::SearchSpace bare = tuner::parse_space("[system]\nkind = \"lj\"\nnatoms = 4000\n", "x");
    EXPECT_EQ(bare.config_count(), 1u);
    EXPECT_EQ(bare.config_at(0).canonical(), "");
}

TEST(SpaceIndex, SizeIsExactForHugeSpacesAndRefusedAt2To63) {
    const tuner::SearchSpace s = big_space(1000, 1000, 1000);  // 10^12 points, parsed without building any
    EXPECT_EQ(s.size(), 1'000'000'000'000ull);
    EXPECT_EQ(s.config_at(s.size() - 1).canonical(), "nstlist=1000;nstprune=1000;rlist=1.0999;pme_spacing=0.10999");
    // Six dims of 1500 values: 1500^6 > 2^63 points, more than 64-bit indices may count.
    std::string text = "[system]\nkind = \"water\"\nnatoms = [3000]\n[space]\n";
    for (const char* key : {"nstlist", "nstprune", "threads"}) text += std::string(key) + " = " + integer_list(1, 1500) + "\n";
    for (const char* key : {"rlist", "pme_scale", "pme_spacing"}) text += std::string(key) + " = " + real_list(1, 0.001, 1500) + "\n";
    try {
        tuner::parse_space(text, "huge.toml");
        FAIL() << "a space beyond 2^63 points was accepted";
    } catch (const tuner::SpaceError& e) {
        EXPECT_NE(std::string(e.what()).find("2^63"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("huge.toml"), std::string::npos) << e.what();
    }
}

TEST(SpaceSampling, DistinctSeededAndExactWhenSmall) {
    const auto even = [](std::uint64_t k) { return k % 2 == 0; };
    const tuner::IndexSample a = tuner::sample_indices(1000, 10, 7, even);
    EXPECT_TRUE(a.examined_all);
    ASSERT_EQ(a.indices.size(), 10u);
    EXPECT_EQ(tuner::sample_indices(1000, 10, 7, even).indices, a.indices);
    EXPECT_NE(tuner::sample_indices(1000, 10, 8, even).indices, a.indices);
    EXPECT_EQ(tuner::sample_indices(1000, 0, 7, even).indices.size(), 500u);  // 0: all that pass
    // Large n: drawn, distinct, passing, and not examined in full.
    const tuner::IndexSample big = tuner::sample_indices(1'000'000'000'000ull, 50, 3, even);
    EXPECT_FALSE(big.examined_all);
    ASSERT_EQ(big.indices.size(), 50u);
    EXPECT_EQ(std::set<std::uint64_t>(big.indices.begin(), big.indices.end()).size(), 50u);
    for (std::uint64_t k : big.indices) EXPECT_TRUE(even(k));
    // Nothing passes: gives up after its draw limit instead of never returning.
    EXPECT_TRUE(tuner::sample_indices(1'000'000'000'000ull, 3, 3, [](std::uint64_t) { return false; }).indices.empty());
    EXPECT_THROW(tuner::sample_indices(tuner::kMaxDenseIndices + 1, 0, 1, even), std::invalid_argument);
}

TEST(InfeasibleTally, CountsByReasonAndSummarises) {
    const tuner::SearchSpace s = tuner::parse_space(kSmall, "small.toml");
    auto st = tuner::make_exhaustive(s, caps());
    const tuner::InfeasibleTally& t = st->infeasible();
    EXPECT_TRUE(t.complete);
    EXPECT_EQ(t.examined, 72u);
    EXPECT_EQ(t.dropped, 24u);  // threads = 8 on a 4-thread machine, both systems
    ASSERT_EQ(t.by_reason.size(), 1u);
    EXPECT_EQ(t.by_reason.begin()->first, "threads = 8 exceeds the 4 hardware threads");
    EXPECT_EQ(t.summary(),
              "24 of 72 (system, config) points dropped as infeasible on this machine: threads = 8 exceeds the 4 "
              "hardware threads (24)");
    EXPECT_EQ(st->planned(), 48u);
    tuner::InfeasibleTally many;
    for (std::size_t k = 0; k < tuner::InfeasibleTally::kMaxReasons + 10; ++k) many.add("reason " + std::to_string(k));
    many.add("");
    EXPECT_EQ(many.by_reason.size(), tuner::InfeasibleTally::kMaxReasons + 1);  // capped, the rest together
    EXPECT_EQ(many.dropped, tuner::InfeasibleTally::kMaxReasons + 10);
    // One kind of reason with many values reads as one group with an example.
    EXPECT_EQ(many.summary(2),
              "1010 of 1011 (system, config) points checked so far dropped as infeasible on this machine: "
              "reason 0 and 999 more like it (1000); other reasons (10)");
    tuner::InfeasibleTally two_kinds;
    for (int k = 0; k < 5; ++k) two_kinds.add("threads = " + std::to_string(8 + k) + " exceeds the 4 hardware threads");
    two_kinds.add("simd = avx512 is not available on this machine");
    two_kinds.complete = true;
    EXPECT_EQ(two_kinds.summary(1),
              "6 of 6 (system, config) points dropped as infeasible on this machine: threads = 10 exceeds the 4 "
              "hardware threads and 4 more like it (5); 1 more for 1 other reasons");
}

TEST(LargeSpace, StrategiesProposeWithoutBuildingTheSpace) {
    const tuner::SearchSpace s = big_space(100, 1000, 0);  // 10^7 points
    ASSERT_EQ(s.size(), 10'000'000u);
    auto random = tuner::make_random(s, caps(), 3, 1);
    EXPECT_EQ(random->planned(), 3u);
    std::vector<tuner::Observation> h;
    while (auto p = random->next(h)) {
        EXPECT_EQ(s.infeasible_reason(p->system, p->config, caps()), "");
        h.push_back({*p, {}});
    }
    EXPECT_EQ(h.size(), 3u);
    EXPECT_FALSE(random->infeasible().complete);
    auto halving = tuner::make_successive_halving(s, caps(), 3, 9, 1);
    EXPECT_LE(halving->planned(), 9u);
    EXPECT_GT(halving->planned(), 0u);
    auto exhaustive = tuner::make_exhaustive(s, caps());  // checked lazily beyond 2^20 points
    EXPECT_EQ(exhaustive->planned(), 10'000'000u);
    const auto first = exhaustive->next({});
    ASSERT_TRUE(first);
    EXPECT_EQ(first->config.canonical(), "nstlist=1;nstprune=1;rlist=1");
}

TEST(LargeSpace, RandomSweepOf10To12PointsStaysSmall) {
    const auto dir = std::filesystem::temp_directory_path() / ("mdtune_lazy_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const long before = rss_kb();
    const tuner::SearchSpace s = big_space(1000, 1000, 1000);
    db::Store store((dir / "big.db").string());
    auto runner = tuner::make_replay_runner({});  // nothing recorded: every trial comes back failed, at once
    auto strategy = tuner::make_random(s, caps(), 3, 42);
    tuner::SweepContext ctx;
    ctx.hardware_id = "hw-test";
    ctx.build_id = "build-test";
    ctx.caps = caps();
    const tuner::SweepSummary summary = tuner::run_sweep(s, store, *runner, *strategy, ctx, "big", nullptr, {});
    EXPECT_EQ(summary.measured, 4u);  // baseline + 3
    EXPECT_EQ(store.trials().size(), 4u);
    const long grown_kb = rss_kb() - before;
    // Materialising 10^12 configs would need terabytes; the sample needs a few MB.
    EXPECT_LT(grown_kb, 64 * 1024) << "RSS grew by " << grown_kb << " kB";
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mdtune
