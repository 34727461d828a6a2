// Rules-file numbers beyond their field's range name the file, the line and the
// real limit, so a user can fix the file without reading the parser.
#include <gtest/gtest.h>

#include "../common/error_message.h"
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

}  // namespace
}  // namespace mdtune::mpi
