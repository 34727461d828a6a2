#pragma once
// Numbers in messages: shortest "%g" form (0.85, 1e+300, nan).
#include <cstdio>
#include <string>

namespace mdcore {

inline std::string format_g(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace mdcore
