#include "mdcore/cli_args.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace mdcore::cli {

ArgMap::ArgMap(const std::vector<std::string>& args, const std::map<std::string, bool>& allowed) {
    for (std::size_t k = 0; k < args.size(); ++k) {
        const std::string& a = args[k];
        if (a.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + a + "'");
        std::string name = a.substr(2), value;
        const auto eq = name.find('=');
        const bool inline_value = eq != std::string::npos;
        if (inline_value) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        const auto it = allowed.find(name);
        if (it == allowed.end()) throw UsageError("unknown flag --" + name);
        if (values_.count(name)) throw UsageError("--" + name + " given twice");
        if (it->second && !inline_value) {
            if (k + 1 >= args.size()) throw UsageError("--" + name + " needs a value");
            value = args[++k];
        } else if (!it->second && inline_value) {
            throw UsageError("--" + name + " takes no value");
        }
        values_[name] = value;
    }
}

std::optional<std::string> ArgMap::text(const std::string& flag) const {
    const auto it = values_.find(flag);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::optional<long> ArgMap::integer(const std::string& flag, long min, long max) const {
    const auto t = text(flag);
    if (!t) return std::nullopt;
    long v = 0;
    const auto [p, ec] = std::from_chars(t->data(), t->data() + t->size(), v);
    if (ec != std::errc{} || p != t->data() + t->size())
        throw UsageError("--" + flag + ": '" + *t + "' is not an integer");
    if (v < min || v > max)
        throw UsageError("--" + flag + ": " + *t + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return v;
}

std::optional<double> ArgMap::real(const std::string& flag, double min_exclusive, double max) const {
    const auto t = text(flag);
    if (!t) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(t->c_str(), &end);
    if (t->empty() || end != t->c_str() + t->size() || !std::isfinite(v))
        throw UsageError("--" + flag + ": '" + *t + "' is not a number");
    if (!(v > min_exclusive) || v > max)
        throw UsageError("--" + flag + ": " + *t + " must be above " + std::to_string(min_exclusive) + " and at most " +
                         std::to_string(max));
    return v;
}

}  // namespace mdcore::cli
