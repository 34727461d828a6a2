// Space values beyond what mdcore accepts are refused with the real limit, the
// file and the line ("repeats = 100000" once said "must be 1 or more", which hid the real limit).
#include <gtest/gtest.h>

#include "../common/address_space_limit.h"
#include "../common/error_message.h"
#include "mdcore/text_file.h"
#include "mdtune/tuner/space.h"

namespace mdtune {
namespace {

std::string error_of(const std::string& toml) {
    return mdtest::message_of<tuner::SpaceError>([&] { tuner::parse_space(toml, "limits.toml"); });
}

const std::string kLj = "[system]\nkind = \"lj\"\nnatoms = 256\n";

#define EXPECT_ERROR(toml, fragment) EXPECT_TRUE(mdtest::names_problem(error_of(toml), fragment, "limits.toml: "))

TEST(SpaceLimits, MeasureSettingsNameTheirRealLimit) {
    EXPECT_ERROR(kLj + "[measure]\nrepeats = 100000\n", "[measure] repeats: 100000 is above the limit of 1000 (line 5)");
    EXPECT_ERROR(kLj + "[measure]\nsteps = 4000000000\n", "steps: 4000000000 is above the limit of 1000000000");
    EXPECT_ERROR(kLj + "[measure]\nsteps = 10\nwarmup = 1000000001\n", "warmup: 1000000001 is above the limit of 1000000000");
    EXPECT_ERROR(kLj + "[measure]\ntimeout_s = inf\n", "timeout_s: inf must be a finite number of seconds");
    EXPECT_ERROR(kLj + "[measure]\ntimeout_s = nan\n", "timeout_s: nan must be positive");
    EXPECT_EQ(error_of(kLj + "[measure]\nrepeats = 1000\n"), "");
}

TEST(SpaceLimits, SystemSizesStopWhereMdcoreStops) {
    EXPECT_ERROR("[system]\nkind = \"lj\"\nnatoms = 9223372036854775807\n",
                 "natoms: 9223372036854775807 is above the limit of 100000000");
    EXPECT_ERROR("[system]\nkind = \"water\"\nnatoms = 30000003\n", "natoms: 30000003 is above the limit of 30000000");
}

TEST(SpaceLimits, ParametersStopAtMdcoresFlagRanges) {
    EXPECT_ERROR(kLj + "[space]\nnstlist = [10, 2147483647]\n", "nstlist: 2147483647 is above the limit of 100000");
    EXPECT_ERROR(kLj + "[space]\nnstprune = 100001\n", "nstprune: 100001 is above the limit of 100000");
    EXPECT_ERROR(kLj + "[space]\nrlist = inf\n", "rlist: inf is above the limit of 1000");
    EXPECT_ERROR(kLj + "[space]\npme_scale = nan\n", "pme_scale: nan is not a number");
    EXPECT_ERROR(kLj + "[space]\npme_spacing = 1e300\n", "pme_spacing: 1e+300 is above the limit of 10");
    EXPECT_EQ(error_of(kLj + "[space]\nnstlist = 100000\nthreads = 4096\n"), "");
    // Threads are bounded by the machine when the sweep starts (an infeasible config), not here.
    EXPECT_EQ(error_of(kLj + "[space]\nthreads = 5000\n"), "");
}

// The space file is read with the bounds of every user input: a regular file, at
// most 256 MiB, lines at most 1 MiB, and messages that quote it short and printable.
TEST(SpaceLimits, SpaceFileIsBounded) {
    {
        mdtest::AddressSpaceLimit limit(256 << 20);  // the unbounded read ran out of memory here
        EXPECT_TRUE(mdtest::names_problem(mdtest::message_of<tuner::SpaceError>([] { tuner::load_space("/dev/zero"); }),
                                          "not a regular file", "/dev/zero: cannot read the space file"));
    }
    EXPECT_EQ(error_of(kLj + "# " + std::string(mdcore::kMaxInputLineBytes, 'x') + "\n"),
              "limits.toml:4: line is longer than the limit of 1 MiB");
    const std::string message = error_of(kLj + "x = \"\x01\xff\x1b[2J\"\n");
    ASSERT_FALSE(message.empty());
    for (const char c : message)
        EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f) << message;
}

}  // namespace
}  // namespace mdtune
