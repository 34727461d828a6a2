// MPI collective tuning: the Open MPI catalogue, the rules-file writer and its
// parser (round trip, Open MPI's lookup, malformed files), the selection model
// and its grouped cross-validation, rules building and launcher command lines
// (the database tables: test_mpi_store.cpp; mpirun itself: test_mpi_acceptance.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "mdtune/models/mpi_catalog.h"
#include "mdtune/mpi/rules_builder.h"
#include "mdtune/mpi/rules_file.h"
#include "mdtune/models/mpi_selection.h"
#include "mdtune/mpi/sweep.h"
#include "mpi_test_support.h"

namespace fs = std::filesystem;
using namespace mdtune;
using namespace mdtune::mpi;
using namespace mpitest;

namespace {

// Throws RulesError whose message must contain `needle`.
void expect_rejected(const std::string& text, const std::string& needle) {
    try {
        mpi::parse_rules(text, "t.conf");
        ADD_FAILURE() << "accepted:\n" << text;
    } catch (const mpi::RulesError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
    }
}

mpi::RulesFile sample_rules() {
    mpi::RulesFile f;
    f.header = {"test file", "second line"};
    mpi::CollectiveRules allreduce{2, {{2, {{0, 3, 0, 0, "small"}, {8192, 4, 0, 0, ""}, {1 << 20, 5, 0, 65536, ""}}, ""},
                                  {5, {{0, 6, 0, 0, ""}}, "five"}}};
    mpi::CollectiveRules bcast{7, {{0, {{0, 2, 4, 0, ""}, {100, 0, 0, 0, ""}}, ""}}};
    mpi::CollectiveRules alltoall{3, {}};  // no communicator rules at all
    f.collectives = {allreduce, bcast, alltoall};
    return f;
}

}  // namespace


// ---- catalogue --------------------------------------------------------------

TEST(MpiCatalog, MatchesOpenMpi41) {
    // ompi_info --param coll tuned --level 9 (Open MPI 4.1.4) and enum COLLTYPE.
    EXPECT_EQ(info(models::mpi::Collective::Allgather).rules_id, 0);
    EXPECT_EQ(info(models::mpi::Collective::Allreduce).rules_id, 2);
    EXPECT_EQ(info(models::mpi::Collective::Alltoall).rules_id, 3);
    EXPECT_EQ(info(models::mpi::Collective::Bcast).rules_id, 7);
    EXPECT_EQ(info(models::mpi::Collective::ReduceScatter).rules_id, 12);
    EXPECT_EQ(models::mpi::algorithm_name(models::mpi::Collective::Allreduce, 6), "rabenseifner");
    EXPECT_EQ(models::mpi::algorithm_name(models::mpi::Collective::Alltoall, 3), "modified_bruck");
    EXPECT_EQ(models::mpi::algorithm_name(models::mpi::Collective::Bcast, 6), "binomial");
    EXPECT_EQ(models::mpi::algorithm_name(models::mpi::Collective::Bcast, 9), "scatter_allgather_ring");
    EXPECT_EQ(models::mpi::algorithm_name(models::mpi::Collective::Allgather, 5), "neighbor");
    EXPECT_EQ(models::mpi::algorithm_name(models::mpi::Collective::Allgather, 0), "default");
    EXPECT_EQ(models::mpi::max_algorithm(models::mpi::Collective::Bcast), 9);
    EXPECT_EQ(models::mpi::max_algorithm(models::mpi::Collective::Allreduce), 6);
    EXPECT_TRUE(models::mpi::valid_for_ranks(models::mpi::Collective::Alltoall, 5, 2));
    EXPECT_FALSE(models::mpi::valid_for_ranks(models::mpi::Collective::Alltoall, 5, 3));
    EXPECT_FALSE(models::mpi::valid_for_ranks(models::mpi::Collective::Allgather, 6, 4));
    EXPECT_FALSE(models::mpi::valid_for_ranks(models::mpi::Collective::Allgather, 7, 2));
    // Open MPI sizes allgather/alltoall rules by the whole receive buffer.
    EXPECT_EQ(models::mpi::rule_message_size(models::mpi::Collective::Alltoall, 1024, 4), 4096u);
    EXPECT_EQ(models::mpi::rule_message_size(models::mpi::Collective::Allgather, 8, 3), 24u);
    EXPECT_EQ(models::mpi::rule_message_size(models::mpi::Collective::Allreduce, 1024, 4), 1024u);
    EXPECT_EQ(models::mpi::parse_collectives("allreduce,bcast,allreduce").size(), 2u);
    EXPECT_THROW(models::mpi::parse_collectives("allreduce,gather"), std::invalid_argument);
}

// ---- rules file -------------------------------------------------------------

TEST(MpiRulesFile, RoundTripsThroughTheParser) {
    const mpi::RulesFile f = sample_rules();
    const std::string text = mpi::write_rules(f);
    EXPECT_EQ(text.rfind("# test file\n# second line\n3 # number of collectives", 0), 0u) << text;
    const mpi::RulesFile back = mpi::parse_rules(text);
    EXPECT_EQ(back, f);
    // Comments are not read back; everything else is written identically.
    mpi::RulesFile bare = f;
    bare.header.clear();
    for (auto& c : bare.collectives)
        for (auto& cr : c.comm_rules) {
            cr.comment.clear();
            for (auto& m : cr.rules) m.comment.clear();
        }
    EXPECT_EQ(mpi::write_rules(back), mpi::write_rules(bare));
    // Comments name the collective and the algorithm, so people can read the file.
    EXPECT_NE(text.find("collective id: allreduce"), std::string::npos);
    EXPECT_NE(text.find("from 8 KiB: ring"), std::string::npos);
    EXPECT_NE(text.find("from 1 MiB: segmented_ring"), std::string::npos);
}

TEST(MpiRulesFile, ReadsHandWrittenOpenMpiStyle) {
    const std::string text =
        "# a comment line\n"
        "1            # one collective\n\n"
        "2 # allreduce\n"
        "2\n"
        "1 1 0 3 0 0   # comm size 1, one rule\n"
        "#comment without a space\n"
        "16\t2\n"
        "0 4 0 0\n"
        "65536 5 0 32768#comment right after\n";
    const mpi::RulesFile f = mpi::parse_rules(text);
    ASSERT_EQ(f.collectives.size(), 1u);
    ASSERT_EQ(f.collectives[0].comm_rules.size(), 2u);
    EXPECT_EQ(f.collectives[0].comm_rules[1].comm_size, 16);
    EXPECT_EQ(f.collectives[0].comm_rules[1].rules[1].msg_size, 65536u);
    EXPECT_EQ(f.collectives[0].comm_rules[1].rules[1].segsize, 32768);
}

TEST(MpiRulesFile, LookupFollowsOpenMpi) {
    const mpi::RulesFile f = sample_rules();
    // Below the first communicator size, Open MPI still uses the first rule.
    EXPECT_EQ(mpi::lookup(f, 2, 1, 10)->algorithm, 3);
    EXPECT_EQ(mpi::lookup(f, 2, 4, 8191)->algorithm, 3);
    EXPECT_EQ(mpi::lookup(f, 2, 4, 8192)->algorithm, 4);
    EXPECT_EQ(mpi::lookup(f, 2, 4, 5u << 20)->algorithm, 5);
    EXPECT_EQ(mpi::lookup(f, 2, 4, 5u << 20)->segsize, 65536);
    EXPECT_EQ(mpi::lookup(f, 2, 5, 5u << 20)->algorithm, 6);
    EXPECT_EQ(mpi::lookup(f, 2, 64, 0)->algorithm, 6);
    EXPECT_EQ(mpi::lookup(f, 7, 8, 99)->faninout, 4);
    EXPECT_EQ(mpi::lookup(f, 7, 8, 100)->algorithm, 0);
    EXPECT_FALSE(mpi::lookup(f, 3, 8, 100));  // collective listed without rules
    EXPECT_FALSE(mpi::lookup(f, 0, 8, 100));  // not listed
}

TEST(MpiRulesFile, RejectsMalformedInputWithTheLine) {
    expect_rejected("", "t.conf:1: expected the number of collectives, found the end of the file");
    expect_rejected("1\n2\n1\n", "t.conf:3: expected a communicator size of collective 2 (allreduce), found the end");
    expect_rejected("1\n2 1\n4 1\n8 3 0 0\n", "t.conf:4: collective 2 (allreduce), communicator size 4: the first message rule is for size 8; it must be 0");
    expect_rejected("1\n2 1\n4 2\n0 3 0 0\n0 4 0 0\n", "t.conf:5: collective 2 (allreduce), communicator size 4: message size 0 after 0; sizes must increase");
    expect_rejected("1\n2 2\n4 1 0 3 0 0\n4 1 0 3 0 0\n", "t.conf:4: collective 2 (allreduce): communicator size 4 after 4");
    expect_rejected("1\n2 1\n4 2\n0 3 0 0\n010 4 0 0\n", "t.conf:5: '010' has a leading zero: Open MPI would read it as an octal number");
    expect_rejected("1\n2 1\n4 1\n0x0 3 0 0\n", "t.conf:4: expected a message size of collective 2 (allreduce), communicator size 4, found '0x0'");
    expect_rejected("1\n2 1\n4 1\n0 -3 0 0\n", "negative number '-3'");
    expect_rejected("1\nallreduce 1\n", "t.conf:2: expected a collective id (1 of 1), found 'allreduce'");
    expect_rejected("1\n22 0\n", "t.conf:2: collective id 22 is above 21");
    expect_rejected("23\n", "23 collectives; Open MPI 4.1 knows at most 22");
    expect_rejected("2\n2 0\n2 0\n", "t.conf:3: collective 2 (allreduce) appears twice");
    expect_rejected("1\n2 1\n4 1\n0 7 0 0\n", "t.conf:4: collective 2 (allreduce), communicator size 4, message size 0: algorithm 7 is not a coll_tuned algorithm of allreduce");
    expect_rejected("1\n2 1\n4 1\n0 3 0 0\n7\n", "t.conf:5: unexpected '7' after the last rule");
    expect_rejected("1\n2 1\n4 1\n0 3 0 99999999999999999999\n", "is too large");
    expect_rejected("1\n2 1\n99999999999 1\n", "communicator size 99999999999 is too large");
    // Unknown collectives keep their algorithm ids unchecked (Open MPI knows more than mdtune).
    EXPECT_NO_THROW(mpi::parse_rules("1\n11 1\n0 1\n0 9 0 0\n"));
    EXPECT_THROW(mpi::read_rules_file("/nonexistent/rules.conf"), mpi::RulesError);
}

TEST(MpiRulesFile, WriterRefusesWhatOpenMpiWouldDrop) {
    mpi::RulesFile f = sample_rules();
    f.collectives[0].comm_rules[0].rules[0].msg_size = 1;
    EXPECT_THROW(mpi::write_rules(f), mpi::RulesError);
    f = sample_rules();
    std::swap(f.collectives[0].comm_rules[0], f.collectives[0].comm_rules[1]);
    EXPECT_THROW(mpi::write_rules(f), mpi::RulesError);
    f = sample_rules();
    f.collectives[1].collective_id = 2;
    EXPECT_THROW(mpi::write_rules(f), mpi::RulesError);
    f = sample_rules();
    f.collectives[0].comm_rules[0].rules[1].algorithm = 42;
    EXPECT_THROW(mpi::write_rules(f), mpi::RulesError);
    // A newline in a comment must not leak a number out of the comment.
    f = sample_rules();
    f.header = {"line one\n12 34"};
    EXPECT_EQ(mpi::parse_rules(mpi::write_rules(f)), f);
}

// ---- sizes and launch commands ----------------------------------------------

TEST(MpiSweep, ParsesSizes) {
    const auto s = mpi::parse_sizes("8-4M");
    ASSERT_EQ(s.front(), 8u);
    EXPECT_EQ(s.back(), 4u << 20);
    EXPECT_EQ(s[1], 32u);
    EXPECT_EQ(mpi::parse_sizes("8-64:2").size(), 4u);
    EXPECT_EQ(mpi::parse_sizes("64K,8,8"), (std::vector<std::uint64_t>{8, 65536}));
    EXPECT_THROW(mpi::parse_sizes("8,abc"), std::invalid_argument);
    EXPECT_THROW(mpi::parse_sizes("1"), std::invalid_argument);
    EXPECT_THROW(mpi::parse_sizes("64-8"), std::invalid_argument);
    EXPECT_THROW(mpi::parse_sizes("8-64:1"), std::invalid_argument);
    const auto d = mpi::default_measure(false);
    EXPECT_EQ(d.sizes.front(), 8u);
    EXPECT_EQ(d.sizes.back(), 4u << 20);
    EXPECT_LT(mpi::default_measure(true).sizes.size(), d.sizes.size());
}

TEST(MpiSweep, BuildsLauncherCommands) {
    mpi::LaunchContext ctx;
    ctx.local_cores = 2;
    ctx.as_root = true;
    mpi::BenchSettings m;
    m.sizes = {8, 1024};
    const mpi::Job forced{4, models::mpi::Collective::Bcast, mpi::Selection::Forced, {2, 8192, 4}, ""};
    const mpi::Command c = mpi::make_command(ctx, "/bin/mpi_collectives", forced, m);
    const std::string s = c.display();
    EXPECT_NE(s.find("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 4 --oversubscribe"),
              std::string::npos) << s;
    EXPECT_NE(s.find("--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_bcast_algorithm 2"), std::string::npos) << s;
    EXPECT_NE(s.find("--mca coll_tuned_bcast_algorithm_segmentsize 8192"), std::string::npos) << s;
    EXPECT_NE(s.find("--mca coll_tuned_bcast_algorithm_chain_fanout 4"), std::string::npos) << s;
    EXPECT_NE(s.find("/bin/mpi_collectives --collective bcast --sizes 8,1024 --selection forced --algorithm 2"),
              std::string::npos) << s;

    ctx.as_root = false;
    const mpi::Job dflt{2, models::mpi::Collective::Allreduce, mpi::Selection::Default, {}, ""};
    const std::string d = mpi::make_command(ctx, "b", dflt, m).display();
    EXPECT_EQ(d.find("OMPI_ALLOW"), std::string::npos);
    EXPECT_EQ(d.find("--oversubscribe"), std::string::npos);
    EXPECT_NE(d.find("--mca coll_tuned_use_dynamic_rules 0"), std::string::npos);

    ctx.kind = mpi::LauncherKind::Srun;
    ctx.launcher = "srun";
    ctx.ppn = 4;
    const mpi::Job rules{8, models::mpi::Collective::Alltoall, mpi::Selection::Rules, {}, "/tmp/r.conf"};
    const mpi::Command r = mpi::make_command(ctx, "b", rules, m);
    EXPECT_NE(r.display().find("srun -n 8 --ntasks-per-node=4 b --collective alltoall"), std::string::npos) << r.display();
    EXPECT_EQ(r.display().find("--mca"), std::string::npos);
    bool have_file = false;
    for (const auto& [k, v] : r.env) have_file = have_file || (k == "OMPI_MCA_coll_tuned_dynamic_rules_filename" && v == "/tmp/r.conf");
    EXPECT_TRUE(have_file);
}

TEST(MpiSweep, PlansOneLaunchPerVariant) {
    const auto v2 = mpi::sweep_variants(models::mpi::Collective::Alltoall, 2, {0});
    const auto v3 = mpi::sweep_variants(models::mpi::Collective::Alltoall, 3, {0});
    EXPECT_EQ(v2.size(), 6u);  // default + 5 algorithms
    EXPECT_EQ(v3.size(), 5u);  // two_proc only at 2 ranks
    EXPECT_TRUE(v2.front().is_default());
    const auto b = mpi::sweep_variants(models::mpi::Collective::Bcast, 4, {0, 65536});
    EXPECT_EQ(b.size(), 1u + 1u + 8u * 2u);  // basic_linear unsegmented, the others twice
}

TEST(MpiSweep, ParsesBenchmarkOutput) {
    mpi::LaunchOutput out;
    mpi::parse_output_line("not json", out);
    mpi::parse_output_line(R"({"type":"header","mpi_version":"Open MPI 4.1.4","nodes":1,"ppn":4,"ranks":4,"mca_check":"ok"})", out);
    mpi::parse_output_line(R"({"type":"result","collective":"allreduce","selection":"forced","algorithm":3,"ranks":4,"nodes":1,"ppn":4,"bytes":64,"iterations":100,"warmup":10,"lat_min_us":1,"lat_avg_us":2,"lat_max_us":3,"lat_median_us":1.5,"status":"ok","error":""})", out);
    mpi::parse_output_line(R"({"type":"result","collective":"allreduce","selection":"forced","algorithm":3,"bytes":128,"status":"failed","error":"MPI_ERR_ARG"})", out);
    mpi::parse_output_line(R"({"type":"done","seconds":1})", out);
    EXPECT_TRUE(out.have_header && out.done);
    EXPECT_EQ(out.mpi_library, "Open MPI 4.1.4");
    ASSERT_EQ(out.results.size(), 2u);
    EXPECT_EQ(out.results[0].lat_median_us, 1.5);
    EXPECT_EQ(out.results[0].mpi_library, "Open MPI 4.1.4");
    EXPECT_EQ(out.results[1].status, "failed");
    EXPECT_EQ(out.results[1].ppn, 4);
}

// ---- selection model --------------------------------------------------------

TEST(MpiSelection, PredictsTheCrossoverAndValidates) {
    const auto data = synthetic_data(models::mpi::Collective::Allreduce, 0.02);
    const models::mpi::SelectionModel m = models::mpi::SelectionModel::fit(data);
    EXPECT_EQ(m.best(models::mpi::Collective::Allreduce, {1, 4, 64})->variant.algorithm, 1);
    EXPECT_EQ(m.best(models::mpi::Collective::Allreduce, {1, 4, 1u << 20})->variant.algorithm, 2);
    const models::mpi::CvReport cv = models::mpi::cross_validate(data, models::mpi::CvGroup::Layout);
    EXPECT_EQ(cv.folds, 5u);
    EXPECT_GT(cv.overall.points, 40u);
    EXPECT_GE(cv.overall.share_within5(), 0.9);
    EXPECT_LT(cv.overall.geomean_regret, 1.03);
    // Open MPI's default is 15 % off everywhere in this synthetic world.
    EXPECT_EQ(cv.overall.default_within5, 0u);
    EXPECT_NEAR(cv.overall.default_geomean_regret, 1.15, 0.05);
    const models::mpi::CvReport by_size = models::mpi::cross_validate(data, models::mpi::CvGroup::Size);
    EXPECT_EQ(by_size.folds, 10u);  // 8 B .. 2 MiB in factors of 4
    EXPECT_GT(by_size.overall.share_within5(), 0.7);
    EXPECT_NE(cv.to_json().find("\"share_within_5pct\""), std::string::npos);
}

TEST(MpiSelection, NeverPicksAVariantThatFailedOrCannotRun) {
    auto data = synthetic_data(models::mpi::Collective::Allgather, 0.0);
    // two_proc (6) is the fastest wherever it was measured (2 ranks only) ...
    for (std::uint64_t b = 8; b <= (4u << 20); b *= 4) data.push_back({models::mpi::Collective::Allgather, {6, 0, 0}, {1, 2, b}, 0.5, true});
    // ... and algorithm 1 failed at 6 ranks.
    for (auto& o : data)
        if (o.variant.algorithm == 1 && o.site.ppn == 6) o.ok = false;
    const models::mpi::SelectionModel m = models::mpi::SelectionModel::fit(data);
    EXPECT_EQ(m.best(models::mpi::Collective::Allgather, {1, 2, 64})->variant.algorithm, 6);
    EXPECT_NE(m.best(models::mpi::Collective::Allgather, {1, 3, 64})->variant.algorithm, 6);
    EXPECT_NE(m.best(models::mpi::Collective::Allgather, {1, 6, 64})->variant.algorithm, 1);
    EXPECT_EQ(m.best(models::mpi::Collective::Allgather, {1, 8, 64})->variant.algorithm, 1);
    // A prediction that fails where it was measured counts as a miss, not a skip.
    std::vector<models::mpi::Observation> bad = synthetic_data(models::mpi::Collective::Allreduce, 0.0);
    for (auto& o : bad)
        if (o.variant.algorithm == 1 && o.site.ppn == 3) o.ok = false;
    const models::mpi::CvReport cv = models::mpi::cross_validate(bad, models::mpi::CvGroup::Layout);
    EXPECT_GT(cv.overall.failed, 0u);
    EXPECT_TRUE(std::isinf(cv.overall.max_regret));
}

TEST(MpiSelection, OneBurstOfLoadDoesNotBendTheCurve) {
    auto data = synthetic_data(models::mpi::Collective::Allreduce, 0.0);
    for (auto& o : data)
        if (o.variant.algorithm == 1 && o.site.ppn == 4 && o.site.bytes == 2048) o.latency_us *= 100;
    const models::mpi::Site next{1, 4, 8192};
    const auto predicted = [&](int passes) {
        models::mpi::FitOptions opt;
        opt.robust_passes = passes;
        for (const auto& p : models::mpi::SelectionModel::fit(data, opt).rank(models::mpi::Collective::Allreduce, next))
            if (p.variant.algorithm == 1) return p.latency_us;
        return 0.0;
    };
    const double truth = synthetic_us(1, next);
    EXPECT_NEAR(predicted(3) / truth, 1.0, 0.1);
    EXPECT_GT(std::abs(predicted(0) / truth - 1.0), std::abs(predicted(3) / truth - 1.0));
}

TEST(MpiSelection, PrefersTheDefaultInANearTie) {
    auto data = synthetic_data(models::mpi::Collective::Allreduce, 0.0);
    for (auto& o : data)
        if (o.variant.is_default()) o.latency_us /= 1.12;  // now 3 % behind the best
    models::mpi::FitOptions opt;
    opt.prefer_default = 0;
    EXPECT_FALSE(models::mpi::SelectionModel::fit(data, opt).best(models::mpi::Collective::Allreduce, {1, 4, 64})->variant.is_default());
    opt.prefer_default = 0.05;
    EXPECT_TRUE(models::mpi::SelectionModel::fit(data, opt).best(models::mpi::Collective::Allreduce, {1, 4, 64})->variant.is_default());
}

TEST(MpiSelection, ReadsDatabaseRows) {
    db::MpiMeasurement ok;
    ok.collective = "bcast";
    ok.selection = "forced";
    ok.algorithm = 6;
    ok.segsize = 8192;
    ok.nodes = 2;
    ok.ppn = 4;
    ok.bytes = 512;
    ok.lat_median_us = 3.5;
    ok.status = "ok";
    db::MpiMeasurement dflt = ok;
    dflt.selection = "default";
    dflt.algorithm = 0;
    dflt.segsize = 0;
    db::MpiMeasurement bad = ok;
    bad.status = "incorrect";
    db::MpiMeasurement unknown = ok;
    unknown.collective = "gather";
    const auto obs = models::mpi::observations_from({ok, dflt, bad, unknown});
    ASSERT_EQ(obs.size(), 3u);
    EXPECT_EQ(obs[0].site.ranks(), 8);
    EXPECT_EQ(obs[0].variant, (models::mpi::Variant{6, 8192, 0}));
    EXPECT_TRUE(obs[1].variant.is_default());
    EXPECT_FALSE(obs[2].ok);
    EXPECT_EQ(models::mpi::variant_label(models::mpi::Collective::Bcast, obs[0].variant), "binomial/seg 8 KiB");
}

TEST(MpiRulesBuilder, ThresholdsFollowThePredictions) {
    auto data = synthetic_data(models::mpi::Collective::Allreduce, 0.0);
    auto more = synthetic_data(models::mpi::Collective::Alltoall, 0.0);
    data.insert(data.end(), more.begin(), more.end());
    const models::mpi::SelectionModel m = models::mpi::SelectionModel::fit(data);
    mpi::RulesOptions opt;
    opt.header = {"unit test"};
    const mpi::RulesFile f = mpi::build_rules(m, data, opt);
    ASSERT_EQ(f.collectives.size(), 2u);
    EXPECT_EQ(f.collectives[0].collective_id, 2);  // sorted by id: allreduce, alltoall
    EXPECT_EQ(f.collectives[1].collective_id, 3);
    EXPECT_NO_THROW(mpi::validate(f));
    EXPECT_EQ(mpi::parse_rules(mpi::write_rules(f)), f);
    for (const int ranks : {2, 3, 4, 5, 6, 7, 8})
        for (std::uint64_t b = 8; b <= (4u << 20); b *= 2) {
            const auto pred = m.best(models::mpi::Collective::Allreduce, {1, ranks, b});
            const auto dec = mpi::lookup(f, 2, ranks, b);
            ASSERT_TRUE(pred && dec);
            // Thresholds sit on a quarter-octave grid: allow a mismatch only near the crossover.
            const double ratio = synthetic_us(dec->algorithm, {1, ranks, b}) / synthetic_us(pred->variant.algorithm, {1, ranks, b});
            EXPECT_LT(ratio, 1.2) << ranks << " ranks, " << b << " B";
            // alltoall thresholds are in Open MPI's unit (bytes per rank x ranks).
            const auto a_pred = m.best(models::mpi::Collective::Alltoall, {1, ranks, b});
            const auto a_dec = mpi::lookup(f, 3, ranks, models::mpi::rule_message_size(models::mpi::Collective::Alltoall, b, ranks));
            EXPECT_LT(synthetic_us(a_dec->algorithm, {1, ranks, b}) / synthetic_us(a_pred->variant.algorithm, {1, ranks, b}), 1.2);
        }
    EXPECT_EQ(mpi::layout_for(6, {{1, 6, 0}}, 8).ppn, 6);
    const models::mpi::Site guess = mpi::layout_for(12, {{1, 6, 0}}, 8);
    EXPECT_EQ(guess.nodes, 2);
    EXPECT_EQ(guess.ppn, 6);
}
