// mdtune's command line as a user meets it (CLI11): --help on every command, a
// usage error as one line naming the flag and the value as typed plus the help to
// read (exit 2), and output paths checked before anything runs or is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "../common/run_command.h"
#include "../common/temp_dir_test.h"

namespace {

namespace fs = std::filesystem;

const std::string kMdtune = MDTUNE_BINARY;

// Only what the command writes to stderr.
mdtest::CommandResult run_stderr(const std::string& args) {
    return mdtest::run_command("(" + kMdtune + " " + args + " 2>&1 >/dev/null)");
}

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

class CliManners : public mdtest::TempDirTest {
protected:
    void SetUp() override {
        TempDirTest::SetUp();
        std::ofstream(dir_ / "s.toml") << "[system]\nkind = \"lj\"\nnatoms = [256]\n[space]\nnstlist = [10]\n";
    }
};

TEST_F(CliManners, EveryCommandAnswersHelp) {
    for (const std::string cmd : {"", "sweep", "submit", "status", "show", "db", "db merge", "db export", "hw", "fit",
                                  "predict", "tune", "compare", "bench", "bench run", "bench ingest", "bench compare",
                                  "bench history", "bench list", "mpi", "mpi sweep", "mpi rules", "mpi show",
                                  "mpi evaluate"}) {
        const auto r = mdtest::run_command(kMdtune + " " + cmd + " --help");
        EXPECT_EQ(r.exit_code, 0) << cmd << "\n" << r.output;
        EXPECT_NE(r.output.find("Usage: mdtune" + (cmd.empty() ? "" : " " + cmd)), std::string::npos)
            << cmd << "\n" << r.output;
    }
}

TEST_F(CliManners, AUsageErrorIsOneLineNamingTheFlagAndTheHelp) {
    struct Case {
        std::string args, message;
    };
    const std::vector<Case> cases{
        {"", "mdtune: error: a command is required (see `mdtune --help`)"},
        {"frobnicate", "mdtune: error: unknown command 'frobnicate' (see `mdtune --help`)"},
        {"show --top-k 0x10", "mdtune: error: --top-k: '0x10' is not an integer (see `mdtune show --help`)"},
        {"show --top-k 0", "mdtune: error: --top-k: 0 is out of range [1, 1000000] (see `mdtune show --help`)"},
        {"show --db", "mdtune: error: --db needs a value (see `mdtune show --help`)"},
        {"show --db a --db b", "mdtune: error: --db given twice (see `mdtune show --help`)"},
        {"show --bogus", "mdtune: error: unknown flag --bogus (see `mdtune show --help`)"},
        {"hw --json=x", "mdtune: error: --json takes no value (see `mdtune hw --help`)"},
        // --top is the topology everywhere, as in mdcore run; the count of configs is --top-k.
        {"predict --top 5", "mdtune: error: --top needs --gro (see `mdtune predict --help`)"},
        {"tune --top-k 0", "mdtune: error: --top-k: 0 is out of range [1, 1000] (see `mdtune tune --help`)"},
        {"predict --system water --natoms 3001",
         "mdtune: error: --natoms: 3001 is not a multiple of 3 (water counts atoms as 3 x nwater) (see `mdtune "
         "predict --help`)"},
        {"predict --system water", "mdtune: error: --natoms is required (see `mdtune predict --help`)"},
        // Numbers as typed: never printed back as 0.700000 or -0.000000.
        {"bench compare --baseline x --alpha 0.7",
         "mdtune: error: --alpha: 0.7 must be above 0 and at most 0.5 (see `mdtune bench compare --help`)"},
        {"bench frobnicate", "mdtune: error: unknown bench subcommand 'frobnicate' (see `mdtune bench --help`)"},
        {"db export --format xml", "mdtune: error: --format: 'xml' (csv, json) (see `mdtune db export --help`)"},
        {"submit --ranks 4", "mdtune: error: --ranks requires --mpi (see `mdtune submit --help`)"},
        {"sweep " + path("s.toml") + " --strategy best",
         "mdtune: error: --strategy: 'best' (exhaustive, random, halving) (see `mdtune sweep --help`)"},
    };
    for (const Case& c : cases) {
        const auto r = run_stderr(c.args);
        EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
        EXPECT_EQ(r.output, c.message + "\n") << c.args;
        EXPECT_EQ(lines(r.output), 1u) << c.args << "\n" << r.output;
    }
}

TEST_F(CliManners, OutputPathsAreCheckedBeforeAnythingRuns) {
    const std::string missing = path("no-such-folder");
    auto r = run_stderr("sweep " + path("s.toml") + " --db " + missing + "/t.db");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(r.output, "mdtune: error: --db: folder " + missing + " does not exist (see `mdtune sweep --help`)\n");
    r = run_stderr("sweep " + path("s.toml") + " --db " + dir_.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--db: " + dir_.string() + " is a folder, not a file"), std::string::npos) << r.output;
    // The plot's folder is checked before the database is even opened.
    r = run_stderr("compare --hardware this --db " + path("absent.db") + " --plot " + missing + "/p.svg");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--plot: folder " + missing + " does not exist"), std::string::npos) << r.output;
    r = run_stderr("db merge " + missing + "/out.db " + path("in.db"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("OUT.db: folder " + missing + " does not exist"), std::string::npos) << r.output;
    std::ofstream(path("a-file")) << "x";
    r = run_stderr("bench run --out " + path("a-file") + " --db " + path("b.db"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--out: " + path("a-file") + " is a file, not a folder"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(missing));
    EXPECT_FALSE(fs::exists(path("absent.db")));
    EXPECT_FALSE(fs::exists(path("b.db")));
}

// What mdtune prints must arrive: on a full standard output the command fails (exit 1)
// and says so on stderr.
TEST_F(CliManners, AFullStandardOutputFailsTheCommand) {
    for (const std::string args : {"--help", "hw", "hw --json", "show --help"}) {
        const auto r = mdtest::run_command("(" + kMdtune + " " + args + " >/dev/full)");
        EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
        EXPECT_NE(r.output.find("mdtune: error: standard output: cannot write: No space left"), std::string::npos)
            << args << "\n" << r.output;
    }
}

// Misuse found by a careless user: one line naming the flag or file, exit 2, and no
// file created or changed.
TEST_F(CliManners, MisusedDatabasesAreOneLineAndCreateNothing) {
    auto r = run_stderr("show --db " + path("typo.db"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(r.output, "mdtune: database error: " + path("typo.db") + ": no such database file\n");
    EXPECT_FALSE(fs::exists(path("typo.db")));
    std::ofstream(path("empty.db")).flush();
    r = run_stderr("show --db " + path("empty.db"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(r.output, "mdtune: database error: " + path("empty.db") +
                            ": an empty database (no mdtune tables yet): nothing to read\n");
    EXPECT_EQ(fs::file_size(path("empty.db")), 0u);
    r = run_stderr("db merge " + path("out.db") + " " + path("nope.db"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(path("nope.db") + ": no such database file"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(path("out.db")));
}

TEST_F(CliManners, MisusedListsAndValuesAreUsageErrors) {
    struct Case {
        std::string args, message;
    };
    const std::vector<Case> cases{
        {"compare --hardware H,H --db " + path("absent.db"), "--hardware: 'H' is given twice"},
        {"compare --hardware A,B --watts A=1e-300 --db " + path("absent.db"),
         "--watts: '1e-300' is outside 1e-06 to 1e+12"},
        {"compare --hardware A,B --price A=1,A=2 --db " + path("absent.db"), "--price: 'A' is given twice"},
        {"sweep " + path("s.toml") + " --slice '' --db " + path("t.db"), "--slice: '' is not i/M (e.g. 0/4)"},
    };
    for (const Case& c : cases) {
        const auto r = run_stderr(c.args);
        EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
        EXPECT_NE(r.output.find("mdtune: error: " + c.message), std::string::npos) << c.args << "\n" << r.output;
        EXPECT_EQ(lines(r.output), 1u) << r.output;
    }
    EXPECT_FALSE(fs::exists(path("absent.db")));
    EXPECT_FALSE(fs::exists(path("t.db")));
}

}  // namespace
