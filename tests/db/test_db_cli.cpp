// The store's refusals as users meet them: `mdtune sweep`, `bench ingest`,
// `db merge`, `show` and `db export` on another program's database exit with 2 and
// leave it byte-identical; `show` and `db export` read a WAL database in a folder
// the user cannot write.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "../common/run_command.h"
#include "file_bytes.h"
#include "mdtune/db/store.h"

namespace fs = std::filesystem;

using mdtest::read_bytes;

namespace {

const std::string kMdtune = MDT_MDTUNE_EXE;

class DbCli : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("mdtune_dbcli_" + std::to_string(::getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        fs::permissions(dir_, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec |
                                  fs::perms::group_read | fs::perms::group_exec);
    }
    void TearDown() override {
        fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
        fs::remove_all(dir_);
    }
    std::string file(const std::string& name) const { return (dir_ / name).string(); }
    fs::path dir_;
};

TEST_F(DbCli, ForeignDatabaseExitsWithTwoAndIsLeftAlone) {
    const std::string places = file("places.sqlite");
    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(places.c_str(), &db), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE places(id INTEGER, url TEXT)", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    }
    const std::string before = read_bytes(places);
    const std::string space = file("s.toml");
    std::ofstream(space) << "[system]\nkind = \"lj\"\nnatoms = [256]\n[measure]\nsteps = 20\nwarmup = 5\nrepeats = 1\n";
    const std::string json = file("b.json");
    std::ofstream(json) << R"({"context": {}, "benchmarks": [{"name": "BM_A", "iterations": 10, "real_time": 1,)"
                        << R"( "cpu_time": 1, "time_unit": "us"}]})";
    const std::string ours = file("ours.db");
    ASSERT_EQ(mdtest::run_command(kMdtune + " bench ingest " + json + " --db " + ours).exit_code, 0);
    for (const std::string& args : {"sweep " + space + " --db " + places, "bench ingest " + json + " --db " + places,
                                    "db merge " + places + " " + ours, "db merge " + ours + " " + places,
                                    "show --db " + places, "db export --db " + places}) {
        const mdtest::CommandResult r = mdtest::run_command(kMdtune + " " + args);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
        EXPECT_NE(r.output.find("not an mdtune database"), std::string::npos) << args << "\n" << r.output;
        EXPECT_NE(r.output.find("(places)"), std::string::npos) << args << "\n" << r.output;
    }
    EXPECT_EQ(read_bytes(places), before);
    EXPECT_FALSE(fs::exists(places + "-wal"));
}

TEST_F(DbCli, ShowAndExportReadAWalDatabaseInAReadOnlyFolder) {
    const std::string db = file("trials.db");
    {
        mdtune::db::Store s(db);
        mdtune::db::StoredTrial t;
        t.sweep_id = s.create_sweep("ro", "", "exhaustive");
        t.hardware_id = "hw";
        t.system = mdtune::SystemDescriptor{"lj", 256, 1};
        t.build_id = "b";
        t.result.status = mdtune::TrialStatus::Ok;
        s.insert_trial(t);
        s.finish_sweep(t.sweep_id, "done");
    }
    fs::permissions(db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(dir_, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
    const std::string before = read_bytes(db);
    // As root the permission bits would not apply: run the commands as nobody.
    const std::string as_user = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
    for (const std::string& args : {"show --db " + db, "db export --db " + db + " --format json"}) {
        const mdtest::CommandResult r = mdtest::run_command(as_user + kMdtune + " " + args);
        EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
        EXPECT_NE(r.output.find("lj"), std::string::npos) << args << "\n" << r.output;
    }
    EXPECT_EQ(read_bytes(db), before);
    EXPECT_FALSE(fs::exists(db + "-wal"));
    EXPECT_FALSE(fs::exists(db + "-shm"));
}

}  // namespace
