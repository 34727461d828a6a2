#pragma once
// Text helpers shared by the .gro and .top readers: positions for messages of the
// form FILE:LINE: ..., whitespace handling and whole-token number parsing.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mdcore::input {

// A position in an input file, for error messages of the form FILE:LINE: ...
struct Where {
    std::string file;
    int line = 0;
    // Appended to every message, e.g. " (included from a.top:3, b.itp:7)", so that
    // errors found after preprocessing still name the include chain.
    std::string context = {};
};

// Throws InputError "FILE:LINE: message" followed by where.context.
[[noreturn]] void fail(const Where& where, const std::string& message);

std::string_view trim(std::string_view s);
std::vector<std::string> split_ws(std::string_view s);
std::string lower(std::string_view s);

// Whole-token conversions: trailing garbage ("1.0x") is an error, not a prefix match.
std::optional<long> to_long(std::string_view s);
std::optional<double> to_double(std::string_view s);  // finite values only

int parse_int(const Where& where, std::string_view token, const std::string& what);
double parse_double(const Where& where, std::string_view token, const std::string& what);

}  // namespace mdcore::input
