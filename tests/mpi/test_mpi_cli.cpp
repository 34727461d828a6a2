// `mdtune mpi` as users run it, on a database filled with synthetic
// measurements (no MPI needed): rules files that parse back, the show table,
// and clear errors with exit code 2 for bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <utility>

#include "mdtune/mpi/rules_file.h"
#include "mdtune/db/mpi_store.h"
#include "../common/run_command.h"
#include "../common/temp_dir_test.h"
#include "synthetic_mpi_db.h"

namespace {

namespace fs = std::filesystem;
using namespace mdtune;

using Result = mdtest::CommandResult;

Result run(const std::string& args) { return mdtest::run_command(std::string(MDTUNE_BINARY) + " " + args); }

class MpiCli : public mdtest::SyntheticMpiDbTest {};

TEST_F(MpiCli, RulesFromTheDatabaseParseBackAndShowExplains) {
    const std::string db = synthetic_db(), out = path("rules.conf");
    const Result r = run("mpi rules --out " + out + " --db " + db + " --hardware hw-test --collectives allreduce,alltoall");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("held-out regret"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("wrote " + out + ": 2 collectives"), std::string::npos) << r.output;
    const mpi::RulesFile f = mpi::read_rules_file(out);
    ASSERT_EQ(f.collectives.size(), 2u);
    EXPECT_EQ(mpi::lookup(f, 2, 4, 16)->algorithm, 3);
    EXPECT_EQ(mpi::lookup(f, 2, 4, 4 << 20)->algorithm, 4);
    EXPECT_EQ(mpi::lookup(f, 3, 4, 4 * (4 << 20))->algorithm, 4);  // alltoall: bytes per rank x ranks
    {
        db::Store store(db);
        EXPECT_TRUE(db::MpiStore(store).latest_model("hw-test", "allreduce"));
    }

    const Result s = run("mpi show --db " + db + " --hardware hw-test --collectives allreduce --np 4 --rules " + out);
    ASSERT_EQ(s.exit_code, 0) << s.output;
    EXPECT_NE(s.output.find("4 ranks (1 node x 4)"), std::string::npos) << s.output;
    EXPECT_NE(s.output.find("recursive_doubling"), std::string::npos) << s.output;
    EXPECT_NE(s.output.find("measured best 1.100x"), std::string::npos) << s.output;
    EXPECT_EQ(s.output.find("6 ranks"), std::string::npos) << s.output;
}

TEST_F(MpiCli, BadInputIsAUsageError) {
    // One line naming the problem and the help to read, exit 2.
    const std::pair<std::string, std::string> one_line[] = {
        {"mpi", "mpi needs a subcommand (see `mdtune mpi --help`)"},
        {"mpi frobnicate", "unknown mpi subcommand 'frobnicate' (see `mdtune mpi --help`)"},
        {"mpi rules --db " + path("x.db"), "mpi rules needs --out FILE (see `mdtune mpi rules --help`)"},
        {"mpi sweep --np 2 zero --db " + path("s.db"), "--np: 'zero' is not an integer (see `mdtune mpi sweep --help`)"},
        {"mpi sweep --ppn 0 --db " + path("s.db"), "--ppn: 0 is out of range [1, 100000] (see `mdtune mpi sweep --help`)"},
        {"mpi rules --out " + path("r.conf") + " --db " + path("missing.db"),
         "--db: no database at '" + path("missing.db") + "'; run `mdtune mpi sweep` first (see `mdtune mpi rules --help`)"},
        {"mpi rules --out " + path("no/such/r.conf") + " --db " + path("x.db"),
         "--out: folder " + path("no/such") + " does not exist (see `mdtune mpi rules --help`)"},
    };
    for (const auto& [args, message] : one_line) {
        const Result r = run(args);
        EXPECT_EQ(r.exit_code, 2) << args;
        EXPECT_EQ(r.output, "mdtune: error: " + message + "\n") << args;
    }
    EXPECT_FALSE(fs::exists(path("missing.db")));
    { db::Store created(path("empty.db")); }
    const Result empty = run("mpi rules --out " + path("r.conf") + " --db " + path("empty.db") + " --hardware hw-x");
    EXPECT_EQ(empty.exit_code, 2);
    EXPECT_NE(empty.output.find("no MPI measurements for hardware hw-x"), std::string::npos) << empty.output;
    EXPECT_FALSE(fs::exists(path("r.conf")));
    const Result coll = run("mpi sweep --collectives allreduce,scan --db " + path("s.db"));
    EXPECT_EQ(coll.exit_code, 2);
    EXPECT_NE(coll.output.find("unknown collective 'scan'"), std::string::npos) << coll.output;
    const Result sizes = run("mpi sweep --sizes 8-4X --db " + path("s.db"));
    EXPECT_EQ(sizes.exit_code, 2);
    EXPECT_NE(sizes.output.find("--sizes"), std::string::npos) << sizes.output;

    // A malformed rules file is refused before anything is launched.
    std::ofstream(path("bad.conf")) << "1\n2 1\n4 1\n8 3 0 0\n";
    const Result bad = run("mpi evaluate --rules " + path("bad.conf") + " --db " + path("e.db"));
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.output.find("bad.conf:4: collective 2 (allreduce), communicator size 4: the first message rule"),
              std::string::npos)
        << bad.output;
    // A device is no rules file: refused at once, not read until memory runs out.
    for (const std::string command :
         {"mpi evaluate --rules /dev/zero --db " + path("e.db"), "mpi show --rules /dev/zero --db " + path("e.db")}) {
        const Result dev = run(command);
        EXPECT_EQ(dev.exit_code, 2) << command;
        EXPECT_NE(dev.output.find("/dev/zero"), std::string::npos) << dev.output;
        EXPECT_NE(dev.output.find("it is not a regular file"), std::string::npos) << dev.output;
    }
}

TEST_F(MpiCli, RankCountsBeyondTheMachineAreRefusedUnlessInsisted) {
    // Tens of thousands of ranks on a few cores: refused before anything starts.
    const Result r = run("mpi sweep --np 99999 --db " + path("s.db"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--np 99999: more than "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("ranks per core) can start; --no-rank-cap runs them anyway"), std::string::npos)
        << r.output;
    const Result e = run("mpi evaluate --rules /nonexistent.conf --np 99999 --db " + path("e.db"));
    EXPECT_EQ(e.exit_code, 2) << e.output;
    EXPECT_FALSE(fs::exists(path("s.db")));
    EXPECT_FALSE(fs::exists(path("e.db")));
}

}  // namespace
