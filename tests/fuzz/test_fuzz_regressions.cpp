// Every input the fuzz driver once caught a reader accepting (or crashing on) stays
// refused: the .top reader's typed error naming the file; no report from an md.log.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/gromacs_io.h"
#include "mdtune/gromacs/log_report.h"
#include "mdtune/gromacs/md_log.h"

namespace {

namespace fs = std::filesystem;

TEST(FuzzRegressions, SavedTopFindingsAreRefusedNamingTheFile) {
    const fs::path gro = fs::path(MDT_FUZZ_CORPUS) / "gro" / "two_water.gro";
    int files = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(MDT_FUZZ_REGRESSIONS) / "top")) {
        ++files;
        const std::string top = entry.path().string();
        try {
            (void)mdcore::read_gromacs_system(gro.string(), top);
            ADD_FAILURE() << top << " was accepted";
        } catch (const mdcore::InputError& e) {
            EXPECT_NE(std::string(e.what()).find(entry.path().filename().string()), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(files, 7);  // every saved finding was read
}

// md.log files with a negative speed or time: no report comes from them.
TEST(FuzzRegressions, SavedMdLogFindingsGiveNoReport) {
    int files = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(MDT_FUZZ_REGRESSIONS) / "mdlog")) {
        ++files;
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        const mdtune::gromacs::MdLog log = mdtune::gromacs::parse_md_log(text.str());
        EXPECT_GE(log.ns_per_day, 0) << entry.path();
        EXPECT_GE(log.timed_steps(), 0) << entry.path();
        EXPECT_THROW(mdtune::gromacs::report_from_md_log(log, 400, 100), mdtune::gromacs::LogReportError) << entry.path();
    }
    EXPECT_EQ(files, 1);
}

}  // namespace
