// `mdtune sweep` with [engine] name = "gromacs" driving Debian's gmx on a small
// water box: four configs measured and stored, a rerun reusing them, a layout
// GROMACS refuses recorded with its reason, and bad engine input refused before
// anything is written. Skipped, with the reason, where gmx is missing or its
// mdrun cannot start (Debian's build refuses CPUs that hide the rdtscp flag).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../common/run_command.h"
#include "../common/temp_dir_test.h"

namespace mdtune {
namespace {

namespace fs = std::filesystem;

const std::string kBox = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm-md/";

// Why GROMACS cannot run here ("" when it can): probed once per test binary.
const std::string& gromacs_unavailable() {
    static const std::string reason = [] {
        if (mdtest::run_command("command -v gmx").exit_code != 0)
            return std::string("gmx is not installed (scripts/bootstrap.sh installs Debian's gromacs)");
        const fs::path dir = fs::temp_directory_path() / ("mdtune_gmx_probe_" + std::to_string(getpid()));
        fs::create_directories(dir);
        const std::string in = "cd " + dir.string() + " && ";
        const auto grompp = mdtest::run_command(in + "gmx -quiet grompp -f " + kBox + "md.mdp -c " + kBox +
                                                "conf.gro -p " + kBox + "topol.top -o probe.tpr");
        const auto mdrun = mdtest::run_command(in + "gmx -quiet mdrun -s probe.tpr -nsteps 0 -ntmpi 1 -ntomp 1 -noconfout");
        fs::remove_all(dir);
        if (grompp.exit_code != 0) return "gmx grompp fails on the test box:\n" + grompp.output;
        if (mdrun.exit_code != 0)
            return "gmx mdrun cannot start here (a CPU without rdtscp needs GROMACS built with "
                   "-DGMX_USE_RDTSCP=OFF; see docs/user/engines.md):\n" + mdrun.output.substr(0, 2000);
        return std::string();
    }();
    return reason;
}

class GromacsSweep : public mdtest::TempDirTest {
protected:
    void SetUp() override {
        mdtest::TempDirTest::SetUp();
        if (!gromacs_unavailable().empty()) GTEST_SKIP() << gromacs_unavailable();
    }
    std::string db() const { return path("trials.db"); }
    std::string sweep(const std::string& space, const std::string& extra = "") const {
        return "MDTUNE_CACHE_DIR=" + path("cache") + " OMP_NUM_THREADS=2 " + std::string(MDTUNE_BINARY) + " sweep " +
               space + " --db " + db() + extra;
    }
    static std::string space(const std::string& engine, const std::string& dims) {
        return "[engine]\nname = \"gromacs\"\n" + engine + "[system]\ngro = \"" + kBox + "conf.gro\"\ntop = \"" + kBox +
               "topol.top\"\nmdp = \"" + kBox + "md.mdp\"\n[space]\n" + dims +
               "[measure]\nsteps = 300\nwarmup = 100\nrepeats = 1\ntimeout_s = 120\n[launch]\noversubscribe = true\n";
    }
    // Rows of a one-column query.
    std::vector<std::string> column(const std::string& sql) const {
        std::vector<std::string> out;
        sqlite3* handle = nullptr;
        if (sqlite3_open_v2(db().c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return out;
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(handle, sql.c_str(), -1, &st, nullptr) == SQLITE_OK)
            while (sqlite3_step(st) == SQLITE_ROW) {
                const auto* text = sqlite3_column_text(st, 0);
                out.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
            }
        sqlite3_finalize(st);
        sqlite3_close(handle);
        return out;
    }
};

TEST_F(GromacsSweep, FourConfigsMeasuredStoredAndReused) {
    const std::string file = write("space.toml", space("", "ranks = [1, 2]\nthreads = [1]\nnstlist = [20, 40]\n"));
    const auto first = mdtest::run_command(sweep(file));
    ASSERT_EQ(first.exit_code, 0) << first.output;
    EXPECT_NE(first.output.find("5 measured, 0 reused"), std::string::npos) << first.output;
    EXPECT_NE(first.output.find("run it    gmx grompp -f " + kBox + "md.mdp"), std::string::npos) << first.output;
    EXPECT_NE(first.output.find(" && gmx mdrun -s topol.tpr"), std::string::npos) << first.output;
    const auto statuses = column("SELECT status FROM trials ORDER BY id");
    ASSERT_EQ(statuses.size(), 5u);
    for (const std::string& s : statuses) EXPECT_EQ(s, "ok") << first.output;
    // The report GROMACS' log became: its settings and speed, keyed by the gmx build.
    const auto builds = column("SELECT json FROM builds");
    ASSERT_EQ(builds.size(), 1u);
    EXPECT_NE(builds[0].find("\"engine\":{\"name\":\"gromacs\""), std::string::npos) << builds[0];
    EXPECT_NE(builds[0].find("\"mpi_library\":\"thread_mpi\""), std::string::npos) << builds[0];
    // The second sweep finds every trial under the same key.
    const auto second = mdtest::run_command(sweep(file));
    ASSERT_EQ(second.exit_code, 0) << second.output;
    EXPECT_NE(second.output.find("0 measured, 5 reused"), std::string::npos) << second.output;
    // grompp ran once per distinct input: one prepared .tpr for the four configs.
    std::size_t tprs = 0;
    for (const auto& entry : fs::directory_iterator(path("cache") + "/gromacs")) tprs += entry.path().extension() == ".tpr";
    EXPECT_EQ(tprs, 1u);
}

TEST_F(GromacsSweep, LayoutGromacsRefusesIsRecordedWithItsReason) {
    const std::string file = write("space.toml", space("", "ranks = [3]\nnpme = [2]\nthreads = [1]\n"));
    const auto r = mdtest::run_command(sweep(file));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto tails = column("SELECT stderr_tail FROM trials WHERE status = 'failed'");
    ASSERT_EQ(tails.size(), 1u) << r.output;
    EXPECT_EQ(tails[0].rfind("infeasible: the PME rank count does not fit the ranks: Cannot have 2 separate PME ranks", 0), 0u)
        << tails[0];
    EXPECT_NE(tails[0].find("domdec_setup.cpp"), std::string::npos) << tails[0];
}

TEST_F(GromacsSweep, GromppErrorsCarryGromacsFileAndLineAndMaxwarnLetsThemThrough) {
    // The box with a net charge of +41.6 e (oxygen -0.8 instead of -0.8476): grompp
    // warns, and a warning is fatal unless [engine] grompp_maxwarn allows it.
    std::ifstream in(kBox + "topol.top");
    std::stringstream top;
    top << in.rdbuf();
    std::string charged = top.str();
    charged.replace(charged.find("-0.8476"), 7, "-0.8000");
    write("topol.top", charged);
    auto charged_space = [&](const std::string& engine) {
        std::string text = space(engine, "nstlist = [40]\n");
        text.replace(text.find(kBox + "topol.top"), (kBox + "topol.top").size(), path("topol.top"));
        return write("space.toml", text);
    };
    const auto refused = mdtest::run_command(sweep(charged_space("")));
    ASSERT_EQ(refused.exit_code, 0) << refused.output;
    const auto tails = column("SELECT stderr_tail FROM trials WHERE status = 'failed'");
    ASSERT_EQ(tails.size(), 2u) << refused.output;  // the default and nstlist 40
    EXPECT_EQ(tails[0].rfind("gmx grompp: Too many warnings (1).", 0), 0u) << tails[0];
    EXPECT_NE(tails[0].find("grompp.cpp (line "), std::string::npos) << tails[0];

    fs::remove(db());
    const auto allowed = mdtest::run_command(sweep(charged_space("grompp_maxwarn = 1\n")));
    ASSERT_EQ(allowed.exit_code, 0) << allowed.output;
    EXPECT_EQ(column("SELECT status FROM trials WHERE status = 'ok'").size(), 2u) << allowed.output;
}

TEST_F(GromacsSweep, BadEngineInputIsRefusedBeforeAnythingIsWritten) {
    struct Case {
        std::string engine, dims, message;
    };
    const Case cases[] = {
        {"program = \"/nonexistent/gmx\"\n", "", "[engine] program: '/nonexistent/gmx' is not an executable file"},
        {"program = \"/bin/true\"\n", "", "does not say \"GROMACS version:\": not a GROMACS program"},
        {"", "cluster = [\"4x8\"]\n", "engine gromacs has no such tunable"},
    };
    for (const Case& c : cases) {
        const std::string file = write("space.toml", space(c.engine, c.dims));
        const auto r = mdtest::run_command(sweep(file));
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
        EXPECT_FALSE(fs::exists(db())) << c.message;
    }
    const std::string file = write("space.toml", space("", ""));
    const auto r = mdtest::run_command(sweep(file, " --mdcore /bin/true"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--mdcore applies to engine mdcore"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mdtune
