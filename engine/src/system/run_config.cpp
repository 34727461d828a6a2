#include "mdcore/run_config.h"

#include <algorithm>
#include <array>

namespace mdcore {

std::string_view to_string(ClusterShape s) {
    switch (s) {
        case ClusterShape::k4x4: return "4x4";
        case ClusterShape::k4x8: return "4x8";
        case ClusterShape::k8x4: return "8x4";
        case ClusterShape::k1x1: return "1x1";
    }
    return "?";
}

std::optional<ClusterShape> parse_cluster_shape(std::string_view text) {
    for (ClusterShape s : {ClusterShape::k4x4, ClusterShape::k4x8, ClusterShape::k8x4, ClusterShape::k1x1})
        if (text == to_string(s)) return s;
    return std::nullopt;
}

std::string_view to_string(SimdLevel s) {
    switch (s) {
        case SimdLevel::Auto: return "auto";
        case SimdLevel::None: return "none";
        case SimdLevel::Avx2: return "avx2";
        case SimdLevel::Avx512: return "avx512";
    }
    return "?";
}

std::optional<SimdLevel> parse_simd_level(std::string_view text) {
    for (SimdLevel s : {SimdLevel::Auto, SimdLevel::None, SimdLevel::Avx2, SimdLevel::Avx512})
        if (text == to_string(s)) return s;
    return std::nullopt;
}

std::span<const std::string_view> simd_cpu_flags(SimdLevel level) {
    static constexpr std::array<std::string_view, 2> kAvx2{"avx2", "fma"};
    static constexpr std::array<std::string_view, 3> kAvx512{"avx512f", "avx512vl", "avx512dq"};
    switch (level) {
        case SimdLevel::Avx2: return kAvx2;
        case SimdLevel::Avx512: return kAvx512;
        default: return {};
    }
}

bool simd_supported(SimdLevel level, std::span<const std::string> cpu_flags) {
    if (level == SimdLevel::Auto) return false;
    const auto required = simd_cpu_flags(level);
    return std::all_of(required.begin(), required.end(), [&](std::string_view flag) {
        return std::find(cpu_flags.begin(), cpu_flags.end(), flag) != cpu_flags.end();
    });
}

std::string_view to_string(Offload o) { return o == Offload::Gpu ? "gpu" : "cpu"; }

std::optional<Offload> parse_offload(std::string_view text) {
    if (text == "cpu") return Offload::Cpu;
    if (text == "gpu") return Offload::Gpu;
    return std::nullopt;
}

std::string_view to_string(VdwModifier m) {
    switch (m) {
        case VdwModifier::PotentialShift: return "potential-shift";
        case VdwModifier::ForceSwitch: return "force-switch";
        case VdwModifier::PotentialSwitch: return "potential-switch";
    }
    return "?";
}

std::optional<VdwModifier> parse_vdw_modifier(std::string_view text) {
    for (VdwModifier m : {VdwModifier::PotentialShift, VdwModifier::ForceSwitch, VdwModifier::PotentialSwitch})
        if (text == to_string(m)) return m;
    return std::nullopt;
}

std::string_view to_string(CoulombType c) { return c == CoulombType::ReactionField ? "reaction-field" : "pme"; }

std::optional<CoulombType> parse_coulomb_type(std::string_view text) {
    for (CoulombType c : {CoulombType::Pme, CoulombType::ReactionField})
        if (text == to_string(c)) return c;
    return std::nullopt;
}

std::string_view to_string(DispCorr d) {
    switch (d) {
        case DispCorr::No: return "no";
        case DispCorr::EnerPres: return "EnerPres";
        case DispCorr::Ener: return "Ener";
        case DispCorr::AllEnerPres: return "AllEnerPres";
        case DispCorr::AllEner: return "AllEner";
    }
    return "?";
}

std::optional<DispCorr> parse_dispcorr(std::string_view text) {
    for (DispCorr d : {DispCorr::No, DispCorr::EnerPres, DispCorr::Ener, DispCorr::AllEnerPres, DispCorr::AllEner})
        if (text == to_string(d)) return d;
    return std::nullopt;
}

std::string_view to_string(Thermostat t) {
    switch (t) {
        case Thermostat::None: return "none";
        case Thermostat::VRescale: return "v-rescale";
    }
    return "?";
}

std::string_view to_string(PinMode m) {
    switch (m) {
        case PinMode::Auto: return "auto";
        case PinMode::On: return "on";
        case PinMode::Off: return "off";
    }
    return "?";
}

std::optional<PinMode> parse_pin_mode(std::string_view text) {
    for (PinMode m : {PinMode::Auto, PinMode::On, PinMode::Off})
        if (text == to_string(m)) return m;
    return std::nullopt;
}

std::string_view to_string(DlbMode m) {
    switch (m) {
        case DlbMode::Auto: return "auto";
        case DlbMode::No: return "no";
        case DlbMode::Yes: return "yes";
    }
    return "?";
}

std::optional<DlbMode> parse_dlb_mode(std::string_view text) {
    for (DlbMode m : {DlbMode::Auto, DlbMode::No, DlbMode::Yes})
        if (text == to_string(m)) return m;
    return std::nullopt;
}

}  // namespace mdcore
