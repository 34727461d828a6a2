#include <array>
#include <stdexcept>

#include "mdcore/generators.h"
#include "mdcore/system_summary.h"

namespace mdcore {
namespace {

constexpr std::array<SystemKind, 5> kKinds{SystemKind::Lj, SystemKind::Argon, SystemKind::LammpsLj, SystemKind::Water,
                                           SystemKind::WaterIons};

}  // namespace

std::string_view to_string(SystemKind kind) {
    switch (kind) {
        case SystemKind::Lj: return "lj";
        case SystemKind::Argon: return "argon";
        case SystemKind::LammpsLj: return "lammps-lj";
        case SystemKind::Water: return "water";
        case SystemKind::WaterIons: return "water-ions";
    }
    return "?";
}

std::optional<SystemKind> parse_system_kind(std::string_view text) {
    for (SystemKind k : kKinds)
        if (text == to_string(k)) return k;
    return std::nullopt;
}

std::string system_kind_names() {
    std::string out;
    for (SystemKind k : kKinds) out += (out.empty() ? "" : ", ") + std::string(to_string(k));
    return out;
}

LjFluidSpec lj_spec_of(SystemKind kind) {
    switch (kind) {
        case SystemKind::Lj: return lj_spec();
        case SystemKind::Argon: return argon_spec();
        case SystemKind::LammpsLj: return lammps_lj_spec();
        default: throw std::invalid_argument(std::string(to_string(kind)) + " is not an LJ system");
    }
}

WaterSpec water_spec_of(SystemKind kind) {
    if (!is_water(kind)) throw std::invalid_argument(std::string(to_string(kind)) + " is not a water system");
    WaterSpec spec;
    spec.nacl_molar = kind == SystemKind::WaterIons ? 0.15 : 0.0;
    return spec;
}

namespace {

// The spec of a named kind at a size, handed to the water or the LJ maker: the
// generator and the summary (mdcore/system_summary.h) read the same spec.
template <class WaterMaker, class LjMaker>
auto from_named_spec(SystemKind kind, long natoms, std::uint64_t seed, int threads, WaterMaker water, LjMaker lj) {
    if (is_water(kind)) {
        WaterSpec spec = water_spec_of(kind);
        spec.nwater = natoms / 3;
        spec.seed = seed;
        spec.threads = threads;
        return water(spec);
    }
    LjFluidSpec spec = lj_spec_of(kind);
    spec.natoms = natoms;
    spec.seed = seed;
    return lj(spec, std::string(to_string(kind)).c_str());
}

}  // namespace

System make_named_system(SystemKind kind, long natoms, std::uint64_t seed, int threads) {
    return from_named_spec(
        kind, natoms, seed, threads, [](const WaterSpec& s) { return make_water_system(s); },
        [](const LjFluidSpec& s, const char* name) { return make_lj_fluid(s, name); });
}

SystemSummary named_system_summary(SystemKind kind, long natoms, std::uint64_t seed) {
    return from_named_spec(
        kind, natoms, seed, 0, [](const WaterSpec& s) { return water_summary(s); },
        [](const LjFluidSpec& s, const char* name) { return lj_fluid_summary(s, name); });
}

System make_named_system(const std::string& kind, long natoms, std::uint64_t seed, int threads) {
    const auto k = parse_system_kind(kind);
    if (!k) throw std::invalid_argument("unknown system kind '" + kind + "' (" + system_kind_names() + ")");
    return make_named_system(*k, natoms, seed, threads);
}

}  // namespace mdcore
