#pragma once
// The tunable parameters the tuner knows, as a typed registry: each has a name
// (used in TOML spaces and the database), a value kind, and the mdcore flag it maps to.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace mdtune {

enum class Param { Cluster, Nstlist, Nstprune, Rlist, PmeScale, PmeSpacing, PmeOrder, Threads, Simd };
enum class ValueKind { Integer, Real, Text };

struct ParamInfo {
    Param id;
    std::string_view name;        // e.g. "nstlist"
    ValueKind kind;
    std::string_view mdcore_flag;  // e.g. "--nstlist"
};

std::span<const ParamInfo> all_params();
const ParamInfo& param_info(Param p);
std::optional<Param> param_by_name(std::string_view name);

// A value of a parameter. Integers are also accepted where reals are expected.
using ParamValue = std::variant<long, double, std::string>;
std::string to_string(const ParamValue& v);  // canonical text: integers plain, reals %.6g

}  // namespace mdtune
