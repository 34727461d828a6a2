#include "mdtune/core/params.h"

#include <cstdio>

namespace mdtune::inline core {

std::span<const ParamInfo> all_params() { return mdcore::tunables(); }

const ParamInfo& param_info(Param p) { return mdcore::tunable_info(p); }

std::optional<Param> param_by_name(std::string_view name) { return mdcore::tunable_by_name(name); }

std::string to_string(const ParamValue& v) {
    if (const long* i = std::get_if<long>(&v)) return std::to_string(*i);
    if (const double* d = std::get_if<double>(&v)) return mdcore::format_tunable(*d);
    return std::get<std::string>(v);
}

mdcore::TunableValue typed_value(Param p, const ParamValue& v) {
    const ParamInfo& info = param_info(p);
    if (const std::string* text = std::get_if<std::string>(&v)) return mdcore::parse_tunable(p, *text, info.name);
    mdcore::TunableValue typed = std::holds_alternative<long>(v) ? mdcore::TunableValue{std::get<long>(v)}
                                                                 : mdcore::TunableValue{std::get<double>(v)};
    if (info.kind == mdcore::TunableKind::Real)
        if (const long* i = std::get_if<long>(&typed)) typed = static_cast<double>(*i);
    mdcore::check_tunable(p, typed, info.name);
    return typed;
}

ParamValue param_value(const mdcore::TunableValue& v) {
    if (const long* i = std::get_if<long>(&v)) return *i;
    if (const double* d = std::get_if<double>(&v)) return *d;
    return mdcore::format_tunable(v);
}

}  // namespace mdtune::core
