#include "mdtune/core/format_number.h"

#include <cstdio>

namespace mdtune::inline core {

std::string format_number(const char* format, double v) {
    char buf[64];  // a double in %f needs at most 317 characters, but no caller formats one that large
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

}  // namespace mdtune::core
