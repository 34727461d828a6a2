#pragma once
// One point of a search space: values for some parameters; the rest take mdcore's
// defaults. Immutable once built; canonical text is the identity used in keys.
#include <map>
#include <string>
#include <vector>

#include "mdtune/params.h"

namespace mdtune {

class Config {
public:
    Config() = default;
    void set(Param p, ParamValue v) { values_[p] = std::move(v); }
    const std::map<Param, ParamValue>& values() const { return values_; }
    const ParamValue* get(Param p) const;
    // "cluster=4x8;nstlist=20;threads=2" in registry order; "" for the default config.
    std::string canonical() const;
    // mdcore flags, e.g. {"--cluster", "4x8", "--nstlist", "20"}.
    std::vector<std::string> mdcore_args() const;
    // Parses canonical() text back (for the database); throws std::invalid_argument.
    static Config from_canonical(const std::string& text);
    bool operator==(const Config& o) const { return values_ == o.values_; }
    bool operator<(const Config& o) const { return canonical() < o.canonical(); }

private:
    std::map<Param, ParamValue> values_;
};

}  // namespace mdtune
