// Every input the fuzz driver once caught the .top reader accepting (or crashing on)
// stays refused, with the reader's typed error naming the file.
#include <gtest/gtest.h>

#include <filesystem>

#include "io/gromacs_io.h"

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

}  // namespace
