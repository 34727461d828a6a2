// Tests of the trial database across files and processes: merging shards,
// concurrent writers and CSV/JSON export.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../common/temp_dir_test.h"
#include "file_bytes.h"
#include "store_fixtures.h"

namespace fs = std::filesystem;
using namespace mdtune;
using namespace storetest;

using mdtest::read_bytes;
using mdtest::write_bytes;

using StoreTest = mdtest::TempDirTest;

// A user's box keeps where its .gro, .top and .mdp were read through a merge; a
// shard's paths fill only what the target did not know.
TEST_F(StoreTest, MergeKeepsTheFilesOfAUsersBox) {
    const std::string a = path("a.db"), b = path("b.db");
    db::StoredTrial t = make_trial(1);
    const auto box = parse_file_system_id("gro:natoms=2644:files=0123456789abcdef");
    ASSERT_TRUE(box);
    t.system = *box;
    t.system.gro = "/data/conf.gro";
    t.system.top = "/data/topol.top";
    t.system.mdp = "/data/md.mdp";
    { db::Store(b).insert_trial(t); }
    db::Store s(a);
    EXPECT_EQ(s.merge_from(b), 1);
    const auto back = s.trials();
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].system.canonical(), t.system.canonical());
    EXPECT_EQ(back[0].system.gro, "/data/conf.gro");
    EXPECT_EQ(back[0].system.mdp, "/data/md.mdp");
    // Without an .mdp the column stays NULL (read as "").
    db::StoredTrial plain = make_trial(2);
    plain.system = *parse_file_system_id("gro:natoms=2644:files=fedcba9876543210");
    plain.system.gro = "/data/conf.gro";
    plain.system.top = "/data/topol.top";
    s.insert_trial(plain);
    RawDb raw(a, SQLITE_OPEN_READONLY);
    EXPECT_EQ(raw.count("SELECT count(*) FROM systems WHERE mdp IS NULL AND id = '" + plain.system.canonical() + "'"), 1);
}

TEST_F(StoreTest, MergeIsAUnionAndIdempotent) {
    const std::string a = path("a.db"), b = path("b.db");
    long a_sweep = 0;
    {
        db::Store s(a);
        s.put_hardware("hw-a", R"({"host":"a"})");
        a_sweep = s.create_sweep("sweep-a", "a", "exhaustive");
        for (long n = 1; n <= 3; ++n) s.insert_trial(make_trial(n, TrialStatus::Ok, "hw-a", a_sweep));
    }
    {
        db::Store s(b);
        s.put_hardware("hw-a", R"({"host":"changed"})");
        s.put_hardware("hw-b", R"({"host":"b"})");
        s.put_build("build-1", "{}");
        s.create_sweep("empty", "", "random");  // shifts b's sweep ids against a's
        const long sw = s.create_sweep("sweep-b", "b", "random");
        s.finish_sweep(sw, "interrupted");
        for (long n = 2; n <= 5; ++n) s.insert_trial(make_trial(n, TrialStatus::Ok, "hw-a", sw));
        s.insert_trial(make_trial(6, TrialStatus::Timeout, "hw-b", 0));
    }
    db::Store s(a);
    EXPECT_EQ(s.merge_from(b), 3);  // 4, 5 and 6; 2 and 3 were already here
    EXPECT_EQ(s.trials().size(), 6u);
    EXPECT_EQ(s.merge_from(b), 0);
    EXPECT_EQ(s.merge_from(a), 0);  // merging a file into itself adds nothing either
    EXPECT_EQ(s.trials().size(), 6u);

    const auto sweeps = s.sweeps();
    ASSERT_EQ(sweeps.size(), 3u);
    EXPECT_EQ(sweeps[0].id, a_sweep);
    long b_sweep = 0;
    for (const auto& row : sweeps)
        if (row.name == "sweep-b") {
            b_sweep = row.id;
            EXPECT_EQ(row.status, "interrupted");
            EXPECT_FALSE(row.finished_at.empty());
        }
    ASSERT_NE(b_sweep, 0);
    ASSERT_NE(b_sweep, 2);  // b's own id for it: must have been remapped (a has 1, "empty" became 2)
    std::vector<long> in_b;
    for (const auto& t : s.trials({.sweep_id = b_sweep})) in_b.push_back(std::get<long>(*t.config.get(Param::Nstlist)));
    EXPECT_EQ(in_b, (std::vector<long>{4, 5}));
    EXPECT_EQ(s.trials({.sweep_id = a_sweep}).size(), 3u);
    const auto unswept = s.find_trial(make_trial(6, TrialStatus::Timeout, "hw-b").key());
    ASSERT_TRUE(unswept);
    EXPECT_EQ(unswept->sweep_id, 0);
    expect_same(*unswept, make_trial(6, TrialStatus::Timeout, "hw-b"));
    EXPECT_EQ(s.hardware_json("hw-a").value_or(""), R"({"host":"a"})");  // existing rows are kept
    EXPECT_EQ(s.hardware_json("hw-b").value_or(""), R"({"host":"b"})");
}

TEST_F(StoreTest, MergeAgainBringsTheSweepsLaterOutcome) {
    const std::string a = path("a.db"), shard = path("shard.db");
    db::Store s(a);
    db::Store w(shard);
    const long sw = w.create_sweep("nightly", "", "random");
    w.insert_trial(make_trial(1, TrialStatus::Ok, "hw-a", sw));
    EXPECT_EQ(s.merge_from(shard), 1);
    ASSERT_EQ(s.sweeps().size(), 1u);
    EXPECT_EQ(s.sweeps()[0].status, "running");
    w.insert_trial(make_trial(2, TrialStatus::Failed, "hw-a", sw));
    w.finish_sweep(sw, "done");
    EXPECT_EQ(s.merge_from(shard), 1);
    const auto sweeps = s.sweeps();
    ASSERT_EQ(sweeps.size(), 1u);
    EXPECT_EQ(sweeps[0].status, "done");
    EXPECT_EQ(sweeps[0].finished_at, w.sweeps()[0].finished_at);
    EXPECT_EQ(s.trials({.sweep_id = sweeps[0].id}).size(), 2u);
}

TEST_F(StoreTest, MergeOfBadInputChangesNothing) {
    const std::string a = path("a.db");
    { db::Store s(a); s.insert_trial(make_trial(1)); }
    const std::string text = path("notes.txt");
    write_bytes(text, "not a database at all, just some words in a text file that is long enough\n");
    const std::string newer = path("newer.db");
    { db::Store s(newer); s.insert_trial(make_trial(2)); }
    { RawDb raw(newer); raw.exec("PRAGMA user_version = 99"); }
    const std::string empty = path("empty.db");
    write_bytes(empty, "");
    const std::string corrupt = path("corrupt.db");
    {
        db::Store s(corrupt);
        for (long i = 1; i <= 20; ++i) s.put_hardware("hw-" + std::to_string(i), "{}");
    }
    std::string bytes = read_bytes(corrupt);
    for (std::size_t i = 4096; i < 8192 && i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 13);
    write_bytes(corrupt, bytes);

    const std::string before = read_bytes(a);
    {
        db::Store s(a);
        for (const std::string& bad : {text, newer, empty, corrupt, path("missing.db")}) {
            try {
                s.merge_from(bad);
                ADD_FAILURE() << "merged " << bad;
            } catch (const db::DbError& e) {
                EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
            }
        }
        EXPECT_EQ(s.trials().size(), 1u);
    }
    EXPECT_EQ(read_bytes(a), before);
    EXPECT_FALSE(fs::exists(path("missing.db")));
    EXPECT_EQ(file_user_version(newer), 99);
}

TEST_F(StoreTest, ConcurrentWritersLoseNothing) {
    // Two processes open the same new file at once and each commit 200 trials;
    // busy_timeout + BEGIN IMMEDIATE must serialise them without losing a row.
    const std::string p = path("shared.db");
    constexpr int kWriters = 2, kEach = 200;
    std::vector<pid_t> children;
    for (int w = 0; w < kWriters; ++w) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int rc = 0;
            try {
                db::Store s(p);
                for (int i = 0; i < kEach; ++i)
                    if (!s.insert_trial(make_trial(i, TrialStatus::Ok, "hw-" + std::to_string(w)))) rc = 2;
            } catch (const std::exception& e) {
                std::fprintf(stderr, "writer %d: %s\n", w, e.what());
                rc = 1;
            }
            ::_exit(rc);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer status " << status;
    }
    db::Store s(p);
    EXPECT_EQ(s.trials().size(), static_cast<std::size_t>(kWriters * kEach));
    for (int w = 0; w < kWriters; ++w)
        EXPECT_EQ(s.trials({.hardware_id = "hw-" + std::to_string(w)}).size(), static_cast<std::size_t>(kEach));
}

TEST_F(StoreTest, ExportCsvQuotesPerRfc4180) {
    db::Store s(path("a.db"));
    db::StoredTrial t = make_trial(10);
    t.hardware_id = "node,1 \"big\"\nrack 2";
    s.insert_trial(t);
    s.insert_trial(make_trial(20));
    const std::string csv = db::export_trials_csv(s.trials());
    const std::string header =
        "id,sweep_id,hardware_id,system_kind,natoms,seed,config,build_id,steps,warmup,repeats,status,"
        "ms_median,ms_min,ms_max,ns_per_day,drift,load_avg,created_at\r\n";
    ASSERT_EQ(csv.substr(0, header.size()), header);
    EXPECT_NE(csv.find(",\"node,1 \"\"big\"\"\nrack 2\",water,3000,7,cluster=4x8;nstlist=10;rlist=1.05,build-1,"),
              std::string::npos)
        << csv;
    EXPECT_NE(csv.find(",hw-a,water,3000,7,cluster=4x8;nstlist=20;rlist=1.05,build-1,500,50,3,ok,1.45,1.2,1.5,"),
              std::string::npos)
        << csv;
    // Two records plus the header, each ended by CRLF; the quoted newline is a bare LF.
    std::size_t crlf = 0;
    for (std::size_t i = csv.find("\r\n"); i != std::string::npos; i = csv.find("\r\n", i + 2)) ++crlf;
    EXPECT_EQ(crlf, 3u);
    EXPECT_EQ(db::export_trials_csv({}), header);
}

TEST_F(StoreTest, ExportJsonParsesBack) {
    db::Store s(path("a.db"));
    db::StoredTrial t = make_trial(10, TrialStatus::Invalid);
    t.hardware_id = "quote \" and \\ backslash";
    s.insert_trial(t);
    db::StoredTrial plain = make_trial(20);
    plain.result.report.reset();
    s.insert_trial(plain);
    const auto rows = nlohmann::json::parse(db::export_trials_json(s.trials()));
    ASSERT_TRUE(rows.is_array());
    ASSERT_EQ(rows.size(), 2u);
    const auto& r = rows[0];
    EXPECT_EQ(r.at("hardware_id"), t.hardware_id);
    EXPECT_EQ(r.at("status"), "invalid");
    EXPECT_EQ(r.at("system_kind"), "water");
    EXPECT_EQ(r.at("natoms"), 3000);
    EXPECT_EQ(r.at("seed"), 7);
    EXPECT_EQ(r.at("config"), "cluster=4x8;nstlist=10;rlist=1.05");
    EXPECT_EQ(r.at("steps"), 500);
    EXPECT_DOUBLE_EQ(r.at("ms_median").get<double>(), t.result.ms_median);
    EXPECT_DOUBLE_EQ(r.at("drift").get<double>(), t.result.drift);
    EXPECT_EQ(r.at("timings").at("pme"), 0.0004);
    EXPECT_EQ(r.at("pairlist").at("list_pairs"), 12345);
    EXPECT_EQ(r.at("pairlist").at("nstlist"), 10);
    EXPECT_TRUE(rows[1].at("pairlist").is_null());
    EXPECT_EQ(nlohmann::json::parse(db::export_trials_json({})).size(), 0u);
}

// db export streams trial by trial from SQLite; its text is what dumping the whole
// array at once (as export did before it streamed) writes, byte for byte.
TEST_F(StoreTest, ExportStreamedFromTheStoreIsTheWholeArrayDumpByteForByte) {
    db::Store s(path("a.db"));
    const auto streamed = [&s](db::ExportLayout layout) {
        std::ostringstream out;
        db::write_export(out, layout, [&s](const std::function<void(const db::StoredTrial&)>& each) {
            s.for_each_trial({}, each);
        });
        return out.str();
    };
    EXPECT_EQ(streamed(db::ExportLayout::TrialsJson), "[]\n");
    db::StoredTrial quoted = make_trial(10, TrialStatus::Invalid);
    quoted.hardware_id = "quote \" and \\ backslash,\nnewline";
    quoted.result.samples = {RepeatSample{.round = 0, .ms_per_step = 1.5, .ref_ms_per_step = 1.25}};
    s.insert_trial(quoted);
    db::StoredTrial plain = make_trial(20);
    plain.result.report.reset();
    s.insert_trial(plain);
    s.insert_trial(make_trial(30, TrialStatus::Failed));
    const std::string json = streamed(db::ExportLayout::TrialsJson);
    EXPECT_EQ(json, nlohmann::json::parse(json).dump(2) + "\n");
    EXPECT_EQ(nlohmann::json::parse(json).size(), 3u);
    EXPECT_EQ(json, db::export_trials_json(s.trials()));
    EXPECT_EQ(streamed(db::ExportLayout::TrialsCsv), db::export_trials_csv(s.trials()));
    EXPECT_EQ(streamed(db::ExportLayout::SamplesCsv), db::export_samples_csv(s.trials()));
    // The store hands the trials over one at a time, in id order.
    std::vector<long> ids;
    s.for_each_trial({}, [&ids](const db::StoredTrial& t) { ids.push_back(t.id); });
    EXPECT_EQ(ids, (std::vector<long>{1, 2, 3}));
}

// Every repeat measured in rounds leaves the database: as CSV rows (trial id first)
// and as each JSON trial's "samples"; a repeat without a reference has empty/null ratio.
TEST_F(StoreTest, ExportCarriesTheRepeatSamples) {
    db::Store s(path("a.db"));
    db::StoredTrial t = make_trial(10);
    const RepeatSample first{.round = 0, .position = 1, .ms_per_step = 1.5, .ref_ms_per_step = 1.25, .wall_s = 2.0,
                             .measured_s = 1.5, .cpu_s = 3.0, .threads = 2, .load_avg = 0.5};
    RepeatSample second = first;
    second.round = 1;
    second.ref_ms_per_step = 0;  // no reference in that round
    second.noisy = true;
    t.result.samples = {first, second};
    s.insert_trial(t);
    s.insert_trial(make_trial(20));  // no samples: no rows
    const std::string csv = db::export_samples_csv(s.trials());
    const std::string header =
        "trial_id,hardware_id,system_kind,natoms,seed,config,build_id,round,position,ms_per_step,ref_ms_per_step,"
        "ratio,wall_s,measured_s,cpu_s,threads,cpu_share,load_avg,noisy\r\n";
    ASSERT_EQ(csv.substr(0, header.size()), header) << csv;
    EXPECT_NE(csv.find(",0,1,1.5,1.25,1.2,2,1.5,3,2,"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",1,1,1.5,,,2,1.5,3,2,"), std::string::npos) << csv;
    std::size_t rows = 0;
    for (std::size_t i = csv.find("\r\n"); i != std::string::npos; i = csv.find("\r\n", i + 2)) ++rows;
    EXPECT_EQ(rows, 3u);  // header + two repeats
    const auto trials = nlohmann::json::parse(db::export_trials_json(s.trials()));
    ASSERT_EQ(trials.size(), 2u);
    const auto& samples = trials[0].at("samples");
    ASSERT_EQ(samples.size(), 2u);
    EXPECT_DOUBLE_EQ(samples[0].at("ratio").get<double>(), 1.2);
    EXPECT_DOUBLE_EQ(samples[0].at("cpu_share").get<double>(), first.cpu_share());
    EXPECT_TRUE(samples[1].at("ref_ms_per_step").is_null());
    EXPECT_EQ(samples[1].at("noisy"), 1);
    EXPECT_TRUE(trials[1].at("samples").empty());
}
