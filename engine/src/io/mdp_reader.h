#pragma once
// The GROMACS .mdp reader: `key = value ; comment` lines into the settings mdcore
// uses, with grompp's rules (keys case-insensitive, '-' and '_' alike, a key given
// twice an error). What would change the physics and mdcore cannot do is refused
// naming key, value and FILE:LINE (an InputError); keys that change nothing
// mdcore computes are listed in `ignored`, for one warning line.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mdcore/gromacs_input.h"
#include "mdcore/run_config.h"
#include "mdcore/text_file.h"

namespace mdcore {

// A value and the .mdp line it came from.
template <class T>
struct MdpValue {
    T value{};
    int line = 0;
};

// What a .mdp asks of mdcore; unset: the key is absent or empty (GROMACS' default,
// which is mdcore's unless a comment below says otherwise). Ranges are those of
// mdcore run's flags for a .gro/.top system.
struct MdpSettings {
    std::string path;  // as given, for "mdp:FILE:LINE"

    // PhysicalSettings
    std::optional<MdpValue<double>> dt;               // ps
    std::optional<MdpValue<double>> rc;               // rcoulomb (rvdw must be equal), nm
    std::optional<MdpValue<double>> temperature;      // ref-t, K
    std::optional<MdpValue<double>> drift_tolerance;  // verlet-buffer-tolerance, kJ/mol/ps per atom
    std::optional<MdpValue<double>> ewald_rtol;
    std::optional<MdpValue<double>> epsilon_r;
    std::optional<MdpValue<VdwModifier>> vdw_modifier;
    std::optional<MdpValue<double>> rvdw_switch;      // nm
    std::optional<MdpValue<CoulombType>> coulomb_type;
    std::optional<MdpValue<double>> epsilon_rf;       // 0: infinity
    std::optional<MdpValue<DispCorr>> dispcorr;
    std::optional<MdpValue<int>> lincs_order, lincs_iter;
    std::optional<MdpValue<double>> lincs_warnangle;  // degrees

    // RunControl
    std::optional<MdpValue<long>> steps;                  // nsteps
    std::optional<MdpValue<Thermostat>> thermostat;       // tcoupl
    std::optional<MdpValue<double>> tau_t;                // only with tcoupl = V-rescale
    std::optional<MdpValue<int>> nstcalcenergy;
    std::optional<MdpValue<unsigned long long>> seed;     // ld-seed; -1 (random) leaves it unset

    // Tunables: applied where no flag sets them.
    std::optional<MdpValue<double>> pme_spacing;          // fourierspacing, nm
    std::optional<MdpValue<int>> pme_order;
    std::optional<MdpValue<std::array<int, 3>>> pme_grid; // fourier-nx/ny/nz, all three > 0

    // Recorded for the report, not applied: mdcore picks nstlist (GROMACS' is a
    // minimum mdrun may raise), couples every step and has no periodic COM removal.
    std::optional<MdpValue<int>> nstlist, nsttcouple, nstcomm;
    std::optional<MdpValue<std::string>> comm_mode;       // "Linear" or "None", as written
    std::optional<MdpValue<bool>> continuation;
    std::optional<int> ld_seed_random_line;               // ld-seed = -1

    // TopologyOptions
    std::optional<MdpValue<ConstraintMode>> constraints;
    std::vector<std::pair<std::string, std::string>> defines;  // define = -DNAME[=VALUE] ...
    int define_line = 0;
    std::vector<std::string> include_dirs;                     // include = -I/dir ...
    int include_line = 0;

    // Keys present that change nothing mdcore computes, as written, in file order.
    std::vector<std::string> ignored;

    // "mdp:FILE:LINE"
    std::string source(int line) const { return "mdp:" + path + ":" + std::to_string(line); }
};

// Limits of the bounded reader (in its messages).
inline constexpr std::size_t kMdpMaxLineBytes = 64 * 1024;
inline constexpr std::size_t kMdpMaxFileBytes = kMaxMdpFileBytes;

// Reads and maps a .mdp file; throws InputError (FILE:LINE: key = value: why) for
// malformed or refused input, and for a path that is not a regular file or breaks
// the limits above.
MdpSettings read_mdp(const std::string& path);
// The same from text in memory; `name` stands for the file in messages and sources.
MdpSettings parse_mdp_text(std::string_view text, const std::string& name);

// "mdp: ignoring keys that do not change the physics: nstlog, nstenergy" ("" when none).
std::string mdp_ignored_keys_warning(const MdpSettings& mdp);

}  // namespace mdcore
