// Fuzzing the input parsers: 2,000 deterministic mutants per parser by default
// (label fuzz), MDT_FUZZ_CASES of them when set (the fuzz-long tests: 100,000).
// No crash, no hang, every rejection a typed exception naming the input, and no
// accepted input that breaks its format.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "driver.h"
#include "targets.h"

namespace mdtest::fuzz {
namespace {

namespace fs = std::filesystem;

FuzzOptions options() {
    FuzzOptions o;
    if (const char* n = std::getenv("MDT_FUZZ_CASES")) o.cases = std::strtoull(n, nullptr, 10);
    if (const char* s = std::getenv("MDT_FUZZ_SEED")) o.seed = std::strtoull(s, nullptr, 10);
    const char* dir = std::getenv("MDT_FUZZ_REPRODUCER_DIR");
    o.reproducer_dir = dir ? dir : MDT_FUZZ_REPRODUCER_DIR;
    return o;
}

void expect_clean(const Target& target) {
    const FuzzStats s = run_fuzz(target, options());
    std::printf("%s\n", s.summary(target.name).c_str());
    EXPECT_EQ(s.crashes, 0u) << s.summary(target.name);
    EXPECT_EQ(s.hangs, 0u) << s.summary(target.name);
    EXPECT_EQ(s.untyped, 0u) << s.summary(target.name);
    EXPECT_EQ(s.garbage, 0u) << s.summary(target.name);
    // Mutants that are all rejected (or all accepted) would test nothing.
    EXPECT_GT(s.accepted, 0u);
    EXPECT_GT(s.rejected, 0u);
}

// Every seed must be valid: mutations start from inputs the parser accepts.
void expect_seeds_accepted(const Target& target) {
    for (std::size_t i = 0; i < target.space.seeds.size(); ++i) {
        const CaseResult r = target.run(target.space.seeds[i]);
        EXPECT_EQ(r.verdict, Verdict::Accepted) << target.name << " seed " << i << ": " << r.detail;
    }
}

class Fuzz : public ::testing::Test {
protected:
    void SetUp() override {
        scratch_ = fs::temp_directory_path() / ("mdt_fuzz_" + std::to_string(getpid()));
        fs::create_directories(scratch_);
    }
    void TearDown() override { fs::remove_all(scratch_); }
    fs::path scratch_;
};

const std::string kCorpus = MDT_FUZZ_CORPUS;

TEST_F(Fuzz, GroReader) {
    const Target t = gro_target(kCorpus);
    expect_seeds_accepted(t);
    expect_clean(t);
}

TEST_F(Fuzz, TopReader) {
    const Target t = top_target(kCorpus, scratch_.string());
    expect_seeds_accepted(t);
    expect_clean(t);
}

TEST_F(Fuzz, TomlSpace) {
    const Target t = toml_space_target(kCorpus);
    expect_seeds_accepted(t);
    expect_clean(t);
}

TEST_F(Fuzz, GbenchJson) {
    const Target t = gbench_json_target(kCorpus);
    expect_seeds_accepted(t);
    expect_clean(t);
}

TEST_F(Fuzz, MpiRules) {
    const Target t = mpi_rules_target(kCorpus);
    expect_seeds_accepted(t);
    expect_clean(t);
}

TEST_F(Fuzz, MdpReader) {
    const Target t = mdp_target(kCorpus);
    expect_seeds_accepted(t);
    expect_clean(t);
}

TEST_F(Fuzz, GromacsMdLog) {
    const Target t = md_log_target(kCorpus);
    expect_seeds_accepted(t);
    expect_clean(t);
}

// The driver itself: a parser that crashes, hangs, throws the wrong type or accepts
// garbage on some inputs is caught, counted, and the input saved; the run goes on.
TEST(FuzzDriver, CatchesCrashesHangsAndBadVerdicts) {
    const fs::path dir = fs::temp_directory_path() / ("mdt_fuzz_driver_" + std::to_string(getpid()));
    Target t{"selftest", ".txt", {{"abc", "[x = 1]"}, {"tok"}, "["}, nullptr};
    // Which fate a mutant meets, from its bytes: about 1 in 30 each crash, throw a
    // foreign exception and be garbage accepted, 1 in 100 hang.
    const auto fate = [](const std::string& input) { return std::hash<std::string>{}(input) % 300; };
    t.run = [fate](const std::string& input) -> CaseResult {
        const std::size_t f = fate(input);
        if (f < 10) std::raise(SIGSEGV);
        if (f < 13) pause();  // until the per-case alarm
        if (f < 23) throw std::out_of_range("raw");
        if (f < 33) return {Verdict::Garbage, "accepted " + input};
        return {f % 2 ? Verdict::Accepted : Verdict::Rejected, ""};
    };
    FuzzOptions o;
    o.cases = 300;
    o.batch = 50;
    o.case_timeout_s = 1;
    o.reproducer_dir = dir.string();
    const FuzzStats s = run_fuzz(t, o);
    std::uint64_t expected[4] = {};  // crashes, hangs, untyped, garbage
    for (std::uint64_t i = 0; i < o.cases; ++i) {
        const std::size_t f = fate(mutant(t.space, o.seed, i));
        if (f < 33) ++expected[f < 10 ? 0 : f < 13 ? 1 : f < 23 ? 2 : 3];
    }
    for (std::uint64_t e : expected) ASSERT_GT(e, 0u) << "a fate no mutant of this seed meets: change the split";
    EXPECT_EQ(s.crashes, expected[0]) << s.summary("selftest");
    EXPECT_EQ(s.hangs, expected[1]) << s.summary("selftest");
    EXPECT_EQ(s.untyped, expected[2]) << s.summary("selftest");
    EXPECT_EQ(s.garbage, expected[3]) << s.summary("selftest");
    EXPECT_EQ(s.accepted + s.rejected + s.crashes + s.hangs + s.untyped + s.garbage, o.cases);
    std::size_t saved = 0;
    for (const auto& e : fs::directory_iterator(dir / "selftest")) saved += e.is_regular_file();
    EXPECT_EQ(saved, expected[0] + expected[1] + expected[2] + expected[3]);
    fs::remove_all(dir);
}

TEST(FuzzDriver, MutantsAreDeterministicAndVaried) {
    const MutationSpace space{{"[a]\nx = 10\n", "{\"k\": [1, 2]}"}, {"tok"}, "[", 1 << 16};
    std::set<std::string> distinct;
    for (std::uint64_t i = 0; i < 200; ++i) {
        EXPECT_EQ(mutant(space, 5, i), mutant(space, 5, i));
        EXPECT_LE(mutant(space, 5, i).size(), space.max_size);
        distinct.insert(mutant(space, 5, i));
    }
    EXPECT_GT(distinct.size(), 150u);
    EXPECT_NE(mutant(space, 5, 1), mutant(space, 6, 1));
}

}  // namespace
}  // namespace mdtest::fuzz
