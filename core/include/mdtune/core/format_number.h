#pragma once
// One number as printf writes it: `format` holds a single double conversion ("%.4g",
// "%.3f ms/step"). The one place messages, tables and plots above the engine turn a
// double into text, instead of a local snprintf buffer in each.
#include <string>

namespace mdtune::inline core {

std::string format_number(const char* format, double v);

}  // namespace mdtune::core
