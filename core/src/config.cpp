#include "mdtune/core/config.h"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace mdtune::inline core {

const ParamValue* Config::get(Param p) const {
    const auto it = values_.find(p);
    return it == values_.end() ? nullptr : &it->second;
}

std::string Config::canonical() const {
    std::string out;
    for (const auto& [p, v] : values_) {  // std::map orders by the enum = registry order
        if (!out.empty()) out += ';';
        out += std::string(param_info(p).name) + "=" + to_string(v);
    }
    return out;
}

std::vector<std::string> Config::mdcore_args() const {
    std::vector<std::string> args;
    for (const auto& [p, v] : values_) {
        args.emplace_back(param_info(p).flag);
        args.push_back(to_string(v));
    }
    return args;
}

Config Config::from_canonical(const std::string& text) {
    Config c;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ';')) {
        if (item.empty()) continue;
        const auto eq = item.find('=');
        if (eq == std::string::npos) throw std::invalid_argument("config item '" + item + "' has no '='");
        const auto p = param_by_name(item.substr(0, eq));
        if (!p) throw std::invalid_argument("unknown parameter '" + item.substr(0, eq) + "'");
        // Kinds only, no ranges: the database keeps what older versions accepted.
        const std::string value = item.substr(eq + 1);
        char* end = nullptr;
        switch (param_info(*p).kind) {
            case mdcore::TunableKind::Integer: {
                const long v = std::strtol(value.c_str(), &end, 10);
                if (value.empty() || *end) throw std::invalid_argument("'" + value + "' is not an integer");
                c.set(*p, v);
                break;
            }
            case mdcore::TunableKind::Real: {
                const double v = std::strtod(value.c_str(), &end);
                if (value.empty() || *end) throw std::invalid_argument("'" + value + "' is not a number");
                c.set(*p, v);
                break;
            }
            case mdcore::TunableKind::Choice:
            case mdcore::TunableKind::Grid: c.set(*p, value); break;
        }
    }
    return c;
}

mdcore::RunConfig Config::run_config() const {
    mdcore::RunConfig rc;
    for (const auto& [p, v] : values_) mdcore::set_tunable(rc, p, typed_value(p, v));
    return rc;
}

}  // namespace mdtune::core
