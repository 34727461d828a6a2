#include "io/text_input.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "io/gromacs_io.h"
#include "mdcore/text_file.h"

namespace mdcore::input {

void fail(const Where& where, const std::string& message) {
    throw InputError(where.file + ":" + std::to_string(where.line) + ": " + message + where.context);
}

std::string_view trim(std::string_view s) {
    const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

std::vector<std::string> split_ws(std::string_view s) {
    std::vector<std::string> tokens;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        const std::size_t start = i;
        while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i > start) tokens.emplace_back(s.substr(start, i - start));
    }
    return tokens;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::optional<long> to_long(std::string_view s) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    long value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return value;
}

std::optional<double> to_double(std::string_view s) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    double value = 0.0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty() || !std::isfinite(value)) return std::nullopt;
    return value;
}

int parse_int(const Where& where, std::string_view token, const std::string& what) {
    const auto v = to_long(token);
    if (!v || *v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max())
        fail(where, quote_excerpt(token).append(" is not a valid integer ").append(what));
    return static_cast<int>(*v);
}

double parse_double(const Where& where, std::string_view token, const std::string& what) {
    const auto v = to_double(token);
    if (!v) fail(where, quote_excerpt(token) + " is not a valid number for " + what);
    return *v;
}

}  // namespace mdcore::input
