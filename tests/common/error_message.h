#pragma once
// Refused-input checks: message_of<ParseError>([&] { parse(text, "f.toml"); }), EXPECT_TRUE(names_problem(msg, "x", "f.toml: ")).
#include <gtest/gtest.h>

#include <string>

namespace mdtest {

// The message of the Error that `action` throws; "" when it returns normally. Other exceptions propagate.
template <class Error, class Action>
std::string message_of(Action&& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

// Whether `message` contains `fragment` and starts with `prefix` (the file it names); says the message when not.
inline ::testing::AssertionResult names_problem(const std::string& message, const std::string& fragment,
                                                const std::string& prefix) {
    if (message.find(fragment) == std::string::npos)
        return ::testing::AssertionFailure() << "message: '" << message << "' lacks '" << fragment << "'";
    if (message.rfind(prefix, 0) != 0)
        return ::testing::AssertionFailure() << "message: '" << message << "' does not start with '" << prefix << "'";
    return ::testing::AssertionSuccess();
}

}  // namespace mdtest
