#pragma once
// Bad input to a library function called on a user's behalf (a value out of its
// range, a name the database does not hold). The message names the input the way
// the user gave it (the flag, the value as typed); the CLI reports it as a usage
// error (exit 2), unlike a runtime failure (exit 1).
#include <stdexcept>

namespace mdtune::inline core {

struct InputError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

}  // namespace mdtune::core
