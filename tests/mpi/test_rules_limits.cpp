// Rules-file numbers beyond their field's range name the file, the line and the
// real limit, so a user can fix the file without reading the parser.
#include <gtest/gtest.h>

#include "../common/address_space_limit.h"
#include "../common/error_message.h"
#include "mdcore/text_file.h"
#include "mdtune/mpi/rules_file.h"

namespace mdtune::mpi {
namespace {

std::string error_of(const std::string& text) {
    return mdtest::message_of<mpi::RulesError>([&] { mpi::parse_rules(text, "limits.rules"); });
}

TEST(RulesLimits, TooLargeNumbersNameTheLimit) {
    EXPECT_EQ(error_of("1\n2 1\n2 1\n0 3 0 9999999999999999999\n"),
              "limits.rules:4: '9999999999999999999' is too large (at most 18 digits)");
    EXPECT_EQ(error_of("1\n2 1\n2147483648 1\n"),
              "limits.rules:3: communicator size 2147483648 is too large (at most 2147483647)");
    EXPECT_EQ(error_of("1\n2 1\n2 1\n0 3 2147483648 0\n"),
              "limits.rules:4: fan-in/out 2147483648 is too large (at most 2147483647)");
    EXPECT_EQ(error_of("1\n2 1\n2 1\n0 3 0 999999999999999999\n"), "");
}

// A rules file is read with the bounds of every user input: a regular file, at most
// 256 MiB, lines at most 1 MiB; a bad token is quoted short and printable.
TEST(RulesLimits, RulesFileIsBounded) {
    {
        mdtest::AddressSpaceLimit limit(256 << 20);  // the unbounded read ran out of memory here
        EXPECT_TRUE(
            mdtest::names_problem(mdtest::message_of<mpi::RulesError>([] { mpi::read_rules_file("/dev/zero"); }),
                                  "not a regular file", "/dev/zero: cannot read the rules file"));
    }
    EXPECT_EQ(error_of("1\n# " + std::string(mdcore::kMaxInputLineBytes, 'x') + "\n2 1\n"),
              "limits.rules:2: line is longer than the limit of 1 MiB");
    const std::string message = error_of("1\n2 1\n\x01\xff" + std::string(5000, 'y') + "\n");
    EXPECT_TRUE(mdtest::names_problem(message, "found '??" + std::string(78, 'y') + "...' (only decimal numbers",
                                      "limits.rules:3: "));
    EXPECT_LT(message.size(), 300u);
}

}  // namespace
}  // namespace mdtune::mpi
