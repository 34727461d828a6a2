#include "mdtune/params.h"

#include <array>
#include <cstdio>
#include <stdexcept>

namespace mdtune {
namespace {

constexpr std::array<ParamInfo, 9> kParams{{
    {Param::Cluster, "cluster", ValueKind::Text, "--cluster"},
    {Param::Nstlist, "nstlist", ValueKind::Integer, "--nstlist"},
    {Param::Nstprune, "nstprune", ValueKind::Integer, "--nstprune"},
    {Param::Rlist, "rlist", ValueKind::Real, "--rlist"},
    {Param::PmeScale, "pme_scale", ValueKind::Real, "--pme-scale"},
    {Param::PmeSpacing, "pme_spacing", ValueKind::Real, "--pme-spacing"},
    {Param::PmeOrder, "pme_order", ValueKind::Integer, "--pme-order"},
    {Param::Threads, "threads", ValueKind::Integer, "--threads"},
    {Param::Simd, "simd", ValueKind::Text, "--simd"},
}};

}  // namespace

std::span<const ParamInfo> all_params() { return kParams; }

const ParamInfo& param_info(Param p) {
    for (const ParamInfo& info : kParams)
        if (info.id == p) return info;
    throw std::logic_error("parameter missing from the registry");
}

std::optional<Param> param_by_name(std::string_view name) {
    for (const ParamInfo& info : kParams)
        if (info.name == name) return info.id;
    return std::nullopt;
}

std::string to_string(const ParamValue& v) {
    if (const long* i = std::get_if<long>(&v)) return std::to_string(*i);
    if (const double* d = std::get_if<double>(&v)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6g", *d);
        return buf;
    }
    return std::get<std::string>(v);
}

}  // namespace mdtune
