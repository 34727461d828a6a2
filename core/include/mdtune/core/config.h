#pragma once
// One point of a search space: values for some parameters; the rest take mdcore's
// defaults. Immutable once built; canonical text is the identity used in keys.
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "mdtune/core/params.h"

namespace mdtune::inline core {

class Config {
public:
    Config() = default;
    void set(Param p, ParamValue v) { values_[p] = std::move(v); }
    const std::map<Param, ParamValue>& values() const { return values_; }
    const ParamValue* get(Param p) const;
    // The value of p as T when set and of that type (a long reads as a double too).
    template <class T>
    std::optional<T> value(Param p) const {
        const ParamValue* v = get(p);
        if (!v) return std::nullopt;
        if constexpr (std::is_same_v<T, double>) {
            if (const long* i = std::get_if<long>(v)) return static_cast<double>(*i);
        }
        if (const T* x = std::get_if<T>(v)) return *x;
        return std::nullopt;
    }
    // "cluster=4x8;nstlist=20;threads=2" in registry order; "" for the default config.
    std::string canonical() const;
    // mdcore flags, e.g. {"--cluster", "4x8", "--nstlist", "20"}.
    std::vector<std::string> mdcore_args() const;
    // Parses canonical() text back (for the database); throws std::invalid_argument.
    static Config from_canonical(const std::string& text);
    // The engine's RunConfig: every value set through the tunable table, the rest
    // left to mdcore's defaults. Throws mdcore::TunableError naming a bad value.
    mdcore::RunConfig run_config() const;
    bool operator==(const Config& o) const { return values_ == o.values_; }
    bool operator<(const Config& o) const { return canonical() < o.canonical(); }

private:
    std::map<Param, ParamValue> values_;
};

}  // namespace mdtune::core
