#pragma once
// The tunable parameters the tuner knows are mdcore's tunables (mdcore/tunables.h):
// names (TOML spaces, the database), flags, kinds and ranges come from that one
// table. Here: the values as spaces and the database spell them.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "mdcore/tunables.h"

namespace mdtune::inline core {

using Param = mdcore::Tunable;
using ParamInfo = mdcore::TunableInfo;

std::span<const ParamInfo> all_params();
const ParamInfo& param_info(Param p);
std::optional<Param> param_by_name(std::string_view name);

// A value of a parameter: integers, reals, and text for choices and grids
// ("4x8", "avx2", "52x52x52"). Integers are also accepted where reals are expected.
using ParamValue = std::variant<long, double, std::string>;
std::string to_string(const ParamValue& v);  // canonical text: integers plain, reals %.6g

// The engine's typed value, checked by the table's rules; throws
// mdcore::TunableError "<name>: <problem>".
mdcore::TunableValue typed_value(Param p, const ParamValue& v);
// The ParamValue a typed value is stored as.
ParamValue param_value(const mdcore::TunableValue& v);

}  // namespace mdtune::core
