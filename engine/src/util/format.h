#pragma once
// Numbers in messages: shortest "%g" form (0.85, 1e+300, nan).
#include <cstdio>
#include <string>

namespace mdcore {

// printf into a string as long as the text needs (a fixed buffer would cut it).
template <typename... Args>
std::string format_text(const char* format, Args... args) {
    const int n = std::snprintf(nullptr, 0, format, args...);
    if (n <= 0) return {};
    std::string s(static_cast<std::size_t>(n), '\0');
    std::snprintf(s.data(), s.size() + 1, format, args...);
    return s;
}

inline std::string format_g(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace mdcore
