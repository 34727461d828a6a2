#include "io/mdp_reader.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "io/text_input.h"
#include "mdcore/text_file.h"

namespace mdcore {
namespace {

using input::fail;
using input::trim;
using input::Where;

struct Entry {
    std::string key;    // as written
    std::string value;  // trimmed, comment removed
    int line = 0;
};

// grompp compares keys case-insensitively with '-' and '_' alike; old names map
// to the ones GROMACS renamed them to (both spellings count as one key).
std::string canonical_key(std::string_view key) {
    std::string k = input::lower(key);
    std::replace(k.begin(), k.end(), '_', '-');
    static const std::map<std::string, std::string> renamed = {
        {"vdwtype", "vdw-type"},
        {"unconstrained-start", "continuation"},
        {"nstxtcout", "nstxout-compressed"},
        {"xtc-grps", "compressed-x-grps"},
        {"xtc-precision", "compressed-x-precision"},
        {"verlet-buffer-drift", "verlet-buffer-tolerance"},
    };
    if (const auto it = renamed.find(k); it != renamed.end()) return it->second;
    return k;
}

// grompp's enum comparison: case-insensitive, '-' and '_' skipped ("V-rescale" = "vrescale").
std::string word(std::string_view value) {
    std::string w;
    for (char c : input::lower(value))
        if (c != '-' && c != '_') w += c;
    return w;
}

// A value in a message: long ones cut and unprintable bytes as '?', so the message
// stays one readable line.
std::string shown(std::string_view value) { return printable_excerpt(value, 60); }

// Keys mdcore reads, checks, or records (everything but the ignored ones).
const std::set<std::string>& handled_keys() {
    static const std::set<std::string> keys = {
        "integrator", "dt", "nsteps", "tinit", "init-step", "cutoff-scheme", "pbc", "periodic-molecules",
        "coulombtype", "coulomb-modifier", "rcoulomb", "vdw-type", "vdw-modifier", "rvdw", "rvdw-switch", "epsilon-rf",
        "dispcorr",
        "fourierspacing", "fourier-nx", "fourier-ny", "fourier-nz", "pme-order", "ewald-rtol", "ewald-geometry",
        "epsilon-surface", "epsilon-r", "verlet-buffer-tolerance", "nstlist", "tcoupl", "tc-grps", "tau-t", "ref-t",
        "nsttcouple", "ld-seed", "pcoupl", "comm-mode", "nstcomm", "comm-grps", "constraints", "constraint-algorithm",
        "lincs-order", "lincs-iter", "lincs-warnangle", "continuation", "gen-vel", "define", "include",
        "nstcalcenergy", "mass-repartition-factor", "cos-acceleration", "deform", "annealing", "electric-field-x",
        "electric-field-y", "electric-field-z", "e-x", "e-xt", "e-y", "e-yt", "e-z", "e-zt",
    };
    return keys;
}

// Switches of physics mdcore does not have: accepted only when off.
struct Switch {
    const char* key;
    std::vector<std::string> off;  // word() of the accepted values
    const char* why;
};
const std::vector<Switch>& switches() {
    static const std::vector<Switch> list = {
        {"free-energy", {"no"}, "free-energy calculations are not supported"},
        {"pull", {"no"}, "the pull code is not supported"},
        {"awh", {"no"}, "AWH is not supported"},
        {"rotation", {"no"}, "enforced rotation is not supported"},
        {"nwall", {"0"}, "walls are not supported"},
        {"simulated-tempering", {"no"}, "simulated tempering is not supported"},
        {"swapcoords", {"no"}, "position swapping (computational electrophysiology) is not supported"},
        {"mts", {"no"}, "multiple time-stepping is not supported"},
        {"qmmm", {"no"}, "QM/MM is not supported"},
        {"qmmm-cp2k-active", {"false", "no"}, "QM/MM is not supported"},
        {"density-guided-simulation-active", {"false", "no"}, "density-guided simulation is not supported"},
        {"disre", {"no"}, "distance restraints are not supported"},
        {"orire", {"no"}, "orientation restraints are not supported"},
        {"implicit-solvent", {"no"}, "implicit solvent is not supported"},
        {"adress", {"no"}, "AdResS is not supported"},
        {"morse", {"no"}, "Morse bonds are not supported"},
        {"freezegrps", {}, "frozen atoms are not supported"},
        {"acc-grps", {}, "acceleration groups are not supported"},
        {"energygrp-excl", {}, "energy-group exclusions are not supported"},
        {"energygrp-table", {}, "user tables are not supported"},
    };
    return list;
}
const Switch* find_switch(const std::string& key) {
    for (const Switch& s : switches())
        if (key == s.key) return &s;
    return nullptr;
}

// Keys that change nothing mdcore computes: output, analysis, minimiser and test-particle
// settings, obsolete keys grompp itself ignores, and the parameters of features
// that are off (each feature's switch above, or a setting mapped in Mapper).
bool ignored_key(const std::string& key) {
    static const std::set<std::string> exact = {
        // output and bookkeeping
        "nstxout", "nstvout", "nstfout", "nstlog", "nstenergy", "nstxout-compressed", "compressed-x-precision",
        "compressed-x-grps", "energygrps", "simulation-part", "title", "cpp", "nstcheckpoint",
        "print-nose-hoover-chain-variables", "imd-group", "user1-grps", "user2-grps", "userint1", "userint2",
        "userint3", "userint4", "userreal1", "userreal2", "userreal3", "userreal4",
        // obsolete: grompp ignores them
        "ns-type", "nstcalclr", "optimize-fft", "andersen-seed", "domain-decomposition", "dihre", "dihre-fc",
        // other integrators (mdcore refuses any but md)
        "bd-fric", "emtol", "emstep", "niter", "fcstep", "nstcgsteep", "nbfgscorr", "rtpi",
        // pair list: mdcore sizes the buffer from verlet-buffer-tolerance, as mdrun does
        "rlist", "verlet-buffer-pressure-tolerance", "table-extension",
        // used only by interaction types that are refused
        "rcoulomb-switch", "ewald-rtol-lj", "lj-pme-comb-rule", "shake-tol",
        "nh-chain-length",
        // velocity generation (gen-vel = yes is refused)
        "gen-temp", "gen-seed",
        // pressure coupling (pcoupl = no only)
        "pcoupltype", "nstpcouple", "tau-p", "compressibility", "ref-p", "refcoord-scaling",
        // features whose switch is off
        "freezedim", "accelerate", "annealing-npoints", "annealing-time", "annealing-temp", "couple-moltype",
        "couple-lambda0", "couple-lambda1", "couple-intramol", "init-lambda", "init-lambda-state", "delta-lambda",
        "nstdhdl", "fep-lambdas", "mass-lambdas", "coul-lambdas", "vdw-lambdas", "bonded-lambdas",
        "restraint-lambdas", "temperature-lambdas", "calc-lambda-neighbors", "init-lambda-weights",
        "separate-dhdl-file", "nstexpanded", "mc-temperature", "symmetrized-transition-matrix",
        "nst-transition-matrix", "mininum-var-min", "init-wl-delta", "sim-temp-low", "sim-temp-high",
        "simulated-tempering-scaling", "solvent-group", "coupl-steps", "iontypes", "threshold", "nstdisreout",
        "nstorireout", "rgbradii", "nstgbradii", "qmmm-grps", "qmmethod", "qmmmscheme", "qmbasis", "qmcharge",
        "qmmult", "casorbitals", "caselectrons", "sh", "mmchargescalefactor", "bopt", "bts", "saon", "saoff",
        "sasteps",
    };
    static const std::vector<std::string> prefixes = {
        "pull-", "awh", "rot-", "wall-", "swap-", "split-group", "massw-split", "iontype", "bulk-offset", "cyl0-",
        "cyl1-", "mts-", "qmmm-cp2k-", "density-guided-simulation-", "sc-", "lmc-", "wl-", "weight-equil-",
        "dh-hist-", "dhdl-", "disre-", "orire-", "gb-", "sa-", "adress-",
    };
    if (exact.count(key)) return true;
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&](const std::string& p) { return key.compare(0, p.size(), p) == 0; });
}

bool handled(const std::string& key) { return handled_keys().count(key) || find_switch(key); }

class Mapper {
public:
    explicit Mapper(MdpSettings& out) : out_(out) {}

    void add(const std::string& key, Entry e) {
        if (const auto it = entries_.find(key); it != entries_.end())
            fail(at(e), shown(e.key) + " is given twice: line " + std::to_string(it->second.line) + " (" +
                            shown(it->second.key) + ") and line " + std::to_string(e.line));
        if (!handled(key) && !ignored_key(key))
            fail(at(e), shown(e.key) + " = " + shown(e.value) +
                            ": unknown .mdp key; refused, as mdcore cannot tell whether it changes the physics");
        if (!handled(key) && !e.value.empty()) out_.ignored.push_back(e.key);
        entries_.emplace(key, std::move(e));
    }

    void map() {
        // Each key's own checks in file order, so the first bad line is the one named.
        std::vector<std::pair<std::string, const Entry*>> in_order;
        for (const auto& [key, e] : entries_) in_order.emplace_back(key, &e);
        std::sort(in_order.begin(), in_order.end(), [](const auto& a, const auto& b) { return a.second->line < b.second->line; });
        for (const auto& [key, e] : in_order)
            if (!e->value.empty() && handled(key)) map_one(key, *e);
        map_cutoffs();
        map_pme_grid();
        map_temperature_coupling();
    }

private:
    Where at(const Entry& e) const { return Where{out_.path, e.line}; }
    [[noreturn]] void refuse(const Entry& e, const std::string& why) const {
        fail(at(e), shown(e.key) + " = " + shown(e.value) + ": " + why);
    }
    const Entry* get(const std::string& key) const {
        const auto it = entries_.find(key);
        return it == entries_.end() || it->second.value.empty() ? nullptr : &it->second;
    }

    double real(const Entry& e) const {
        const auto v = input::to_double(e.value);
        if (!v) refuse(e, "not a number");
        return *v;
    }
    // Within (min, max]: the ranges of mdcore run's flags.
    double real(const Entry& e, double min, double max) const {
        const double v = real(e);
        if (!(v > min) || v > max) refuse(e, "must be above " + format(min) + " and at most " + format(max));
        return v;
    }
    long integer(const Entry& e, long min, long max) const {
        const auto v = input::to_long(e.value);
        if (!v) refuse(e, "not an integer");
        if (*v < min || *v > max)
            refuse(e, "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
        return *v;
    }
    bool yes_no(const Entry& e) const {
        const std::string w = word(e.value);
        if (w == "yes") return true;
        if (w == "no") return false;
        refuse(e, "not yes or no");
    }
    static std::string format(double v) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.15g", v);
        return buf;
    }
    template <class T>
    static MdpValue<T> at_line(T value, const Entry& e) {
        return MdpValue<T>{std::move(value), e.line};
    }
    // All tokens numbers equal to zero (electric fields, deform: "off").
    bool all_zero(const Entry& e) const {
        for (const std::string& t : input::split_ws(e.value)) {
            const auto v = input::to_double(t);
            if (!v) refuse(e, "'" + shown(t) + "' is not a number");
            if (*v != 0) return false;
        }
        return true;
    }

    void map_one(const std::string& key, const Entry& e) {
        const std::string w = word(e.value);
        if (const Switch* s = find_switch(key)) {
            if (std::find(s->off.begin(), s->off.end(), w) == s->off.end()) refuse(e, s->why);
        } else if (key == "integrator") {
            if (w != "md") refuse(e, "mdcore integrates with leap-frog only (integrator = md)");
        } else if (key == "dt") {
            out_.dt = at_line(real(e, 0.0, 0.01), e);
        } else if (key == "nsteps") {
            if (input::to_long(e.value) == -1) refuse(e, "a run without end is not supported; give the number of steps");
            out_.steps = at_line(integer(e, 0, 1'000'000'000), e);
        } else if (key == "tinit" || key == "cos-acceleration" || key == "epsilon-surface") {
            if (real(e) != 0)
                refuse(e, key == "tinit"              ? "mdcore runs start at time 0"
                          : key == "cos-acceleration" ? "non-equilibrium (cosine) acceleration is not supported"
                                                      : "the Ewald surface dipole term is not supported");
        } else if (key == "init-step") {
            if (integer(e, std::numeric_limits<long>::min(), std::numeric_limits<long>::max()) != 0)
                refuse(e, "mdcore runs start at step 0");
        } else if (key == "mass-repartition-factor") {
            if (real(e) != 1) refuse(e, "mass repartitioning is not supported");
        } else if (key == "deform" || key.rfind("electric-field-", 0) == 0 || key.rfind("e-", 0) == 0) {
            if (!all_zero(e))
                refuse(e, key == "deform" ? "box deformation is not supported" : "electric fields are not supported");
        } else if (key == "annealing") {
            for (const std::string& t : input::split_ws(e.value))
                if (word(t) != "no") refuse(e, "simulated annealing is not supported");
        } else if (key == "cutoff-scheme") {
            if (w != "verlet") refuse(e, "mdcore uses Verlet pair lists only (cutoff-scheme = Verlet)");
        } else if (key == "pbc") {
            if (w != "xyz") refuse(e, "only full periodicity is supported (pbc = xyz)");
        } else if (key == "periodic-molecules") {
            if (yes_no(e)) refuse(e, "molecules bonded across the periodic boundary are not supported");
        } else if (key == "coulombtype") {
            if (w == "pme") out_.coulomb_type = at_line(CoulombType::Pme, e);
            else if (w == "reactionfield") out_.coulomb_type = at_line(CoulombType::ReactionField, e);
            else refuse(e, "mdcore computes Coulomb by PME or reaction field (coulombtype = PME or Reaction-Field)");
        } else if (key == "epsilon-rf") {
            const double eps = real(e, 0.0, 1e30);
            if (eps != 0 && eps < 1) refuse(e, "epsilon-rf must be 0 (infinity) or at least 1");
            out_.epsilon_rf = at_line(eps, e);
        } else if (key == "rvdw-switch") {
            out_.rvdw_switch = at_line(real(e, 0.0, 100.0), e);
        } else if (key == "coulomb-modifier" || key == "vdw-modifier") {
            const bool vdw = key == "vdw-modifier";
            if (w == "potentialshift" || w == "potentialshiftverlet") {
                if (vdw) out_.vdw_modifier = at_line(VdwModifier::PotentialShift, e);
                return;
            }
            if (w == "none") refuse(e, "unshifted potentials are not supported yet (mdcore shifts them at the cut-off: Potential-shift)");
            if (vdw && w == "forceswitch") return void(out_.vdw_modifier = at_line(VdwModifier::ForceSwitch, e));
            if (vdw && w == "potentialswitch") return void(out_.vdw_modifier = at_line(VdwModifier::PotentialSwitch, e));
            if (w == "forceswitch" || w == "potentialswitch")
                refuse(e, "switched Coulomb is not supported (use Potential-shift; PME and reaction field need no switch)");
            refuse(e, vdw ? "not a modifier mdcore has (Potential-shift, Force-switch, Potential-switch)"
                          : "not a modifier mdcore has (Potential-shift)");
        } else if (key == "vdw-type") {
            if (w == "pme") refuse(e, "LJ-PME is not supported");
            if (w != "cutoff") refuse(e, "mdcore computes LJ with a cut-off only (vdw-type = Cut-off)");
        } else if (key == "dispcorr") {
            bool known = false;
            for (DispCorr d : {DispCorr::No, DispCorr::EnerPres, DispCorr::Ener, DispCorr::AllEnerPres, DispCorr::AllEner})
                if (w == word(to_string(d))) {
                    out_.dispcorr = at_line(d, e);
                    known = true;
                }
            if (!known) refuse(e, "not a DispCorr value (no, EnerPres, Ener, AllEnerPres, AllEner)");
        } else if (key == "fourierspacing") {
            pme_spacing_ = &e;
        } else if (key == "fourier-nx" || key == "fourier-ny" || key == "fourier-nz") {
            integer(e, 0, 100'000);  // checked together in map_pme_grid
        } else if (key == "pme-order") {
            const long order = integer(e, std::numeric_limits<long>::min(), std::numeric_limits<long>::max());
            if (order < 4 || order > 6) refuse(e, "mdcore's PME has orders 4, 5 and 6");
            out_.pme_order = at_line(static_cast<int>(order), e);
        } else if (key == "ewald-rtol") {
            out_.ewald_rtol = at_line(real(e, 0.0, 0.1), e);
        } else if (key == "ewald-geometry") {
            if (w != "3d") refuse(e, "only the 3D Ewald sum is supported (ewald-geometry = 3d)");
        } else if (key == "epsilon-r") {
            if (real(e) == 0) refuse(e, "an infinite dielectric constant is not supported");
            out_.epsilon_r = at_line(real(e, 0.0, 1e6), e);
        } else if (key == "verlet-buffer-tolerance") {
            if (real(e) < 0)
                refuse(e, "mdcore sizes the pair-list buffer from this tolerance; a fixed rlist (-1) is not supported "
                          "(mdcore run --rlist sets one)");
            // GROMACS' unit is mdcore's: kJ/mol/ps per atom.
            out_.drift_tolerance = at_line(real(e, 0.0, 1e6), e);
        } else if (key == "nstlist") {
            out_.nstlist = at_line(static_cast<int>(integer(e, 1, 100'000)), e);
        } else if (key == "tcoupl") {
            if (w == "no") out_.thermostat = at_line(Thermostat::None, e);
            else if (w == "vrescale") out_.thermostat = at_line(Thermostat::VRescale, e);
            else if (w == "berendsen" || w == "yes" || w == "nosehoover" || w == "andersen" || w == "andersenmassive")
                refuse(e, "only V-rescale temperature coupling is supported (tcoupl = V-rescale or no)");
            else refuse(e, "not a thermostat (no, V-rescale, ...)");
        } else if (key == "tc-grps" || key == "tau-t" || key == "ref-t") {
            // together in map_temperature_coupling
        } else if (key == "nsttcouple") {
            out_.nsttcouple = at_line(static_cast<int>(integer(e, -1, 1'000'000)), e);
        } else if (key == "ld-seed") {
            const long seed = integer(e, -1, std::numeric_limits<long>::max());
            if (seed == -1) out_.ld_seed_random_line = e.line;
            else out_.seed = at_line(static_cast<unsigned long long>(seed), e);
        } else if (key == "pcoupl") {
            if (w != "no") refuse(e, "pressure coupling is not supported yet (only pcoupl = no)");
        } else if (key == "comm-mode") {
            if (w != "linear" && w != "none")
                refuse(e, "only linear centre-of-mass motion removal (or none) is supported (comm-mode = Linear)");
            out_.comm_mode = at_line(std::string(w == "none" ? "None" : "Linear"), e);
        } else if (key == "nstcomm") {
            out_.nstcomm = at_line(static_cast<int>(integer(e, -1'000'000, 1'000'000)), e);
        } else if (key == "comm-grps") {
            if (input::split_ws(e.value).size() > 1) refuse(e, "several centre-of-mass groups are not supported yet");
        } else if (key == "constraints") {
            if (w == "none") out_.constraints = at_line(ConstraintMode::None, e);
            else if (w == "hbonds") out_.constraints = at_line(ConstraintMode::HBonds, e);
            else if (w == "allbonds") out_.constraints = at_line(ConstraintMode::AllBonds, e);
            else if (w == "hangles" || w == "allangles") refuse(e, "angle constraints are not supported (none, h-bonds, all-bonds)");
            else refuse(e, "not a constraints value (none, h-bonds, all-bonds)");
        } else if (key == "constraint-algorithm") {
            if (w == "shake") refuse(e, "SHAKE is not supported (constraint-algorithm = LINCS)");
            if (w != "lincs") refuse(e, "not a constraint algorithm (LINCS)");
        } else if (key == "lincs-order") {
            out_.lincs_order = at_line(static_cast<int>(integer(e, 1, 64)), e);
        } else if (key == "lincs-iter") {
            out_.lincs_iter = at_line(static_cast<int>(integer(e, 1, 64)), e);
        } else if (key == "lincs-warnangle") {
            out_.lincs_warnangle = at_line(real(e, 0.0, 90.0), e);
        } else if (key == "continuation") {
            out_.continuation = at_line(yes_no(e), e);
        } else if (key == "gen-vel") {
            if (yes_no(e))
                refuse(e, "mdcore does not generate velocities for a .gro/.top system yet; give them in the .gro "
                          "(gen-vel = no)");
        } else if (key == "define") {
            map_defines(e);
        } else if (key == "include") {
            map_includes(e);
        } else if (key == "nstcalcenergy") {
            out_.nstcalcenergy = at_line(static_cast<int>(integer(e, 1, 1'000'000)), e);
        }
    }

    void map_defines(const Entry& e) {
        for (const std::string& t : input::split_ws(e.value)) {
            const std::size_t eq = t.find('=');
            const std::string name = t.rfind("-D", 0) == 0 ? t.substr(2, eq == std::string::npos ? eq : eq - 2) : "";
            const bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                                    std::all_of(name.begin(), name.end(), [](char c) {
                                        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                                    });
            if (!identifier) refuse(e, "'" + shown(t) + "' is not -DNAME or -DNAME=VALUE");
            out_.defines.emplace_back(name, eq == std::string::npos ? "" : t.substr(eq + 1));
        }
        out_.define_line = e.line;
    }

    void map_includes(const Entry& e) {
        for (const std::string& t : input::split_ws(e.value)) {
            if (t.rfind("-I", 0) != 0 || t.size() == 2) refuse(e, "'" + shown(t) + "' is not -IDIR");
            out_.include_dirs.push_back(t.substr(2));
        }
        out_.include_line = e.line;
    }

    // mdcore has one cut-off: rvdw must equal rcoulomb (each 1 nm when absent, as in GROMACS).
    void map_cutoffs() {
        const Entry* rcoulomb = get("rcoulomb");
        const Entry* rvdw = get("rvdw");
        if (!rcoulomb && !rvdw) return;
        const double coul = rcoulomb ? real(*rcoulomb, 0.0, 1e3) : 1.0;
        const double vdw = rvdw ? real(*rvdw, 0.0, 1e3) : 1.0;
        if (coul != vdw) {
            const auto said = [](const Entry* e, double v) {
                return e ? e->value + " (line " + std::to_string(e->line) + ")" : format(v) + " (GROMACS' default)";
            };
            fail(at(rvdw ? *rvdw : *rcoulomb), "rvdw = " + said(rvdw, vdw) + " differs from rcoulomb = " +
                                                   said(rcoulomb, coul) +
                                                   ": mdcore has one cut-off for LJ and Coulomb; give them equal");
        }
        out_.rc = at_line(coul, rcoulomb ? *rcoulomb : *rvdw);
    }

    // fourier-nx/ny/nz override fourierspacing (all three, as mdcore's grid is one size).
    void map_pme_grid() {
        const Entry* n[3] = {get("fourier-nx"), get("fourier-ny"), get("fourier-nz")};
        std::array<int, 3> grid{0, 0, 0};
        int given = 0;
        const Entry* last = nullptr;
        for (int d = 0; d < 3; ++d)
            if (n[d] && (grid[d] = static_cast<int>(integer(*n[d], 0, 100'000))) > 0) {
                ++given;
                if (!last || n[d]->line > last->line) last = n[d];
            }
        if (given == 3) out_.pme_grid = at_line(grid, *last);
        else if (given > 0)
            refuse(*last, "fourier-nx, fourier-ny and fourier-nz must be given together (or fourierspacing alone)");
        if (!pme_spacing_) return;
        if (given == 3) real(*pme_spacing_);  // unused with a whole grid, as in GROMACS
        else out_.pme_spacing = at_line(real(*pme_spacing_, 0.0, 10.0), *pme_spacing_);
    }

    // One coupling group (all atoms); tau-t and ref-t give one value per group.
    void map_temperature_coupling() {
        const Entry* groups = get("tc-grps");
        const Entry* tau = get("tau-t");
        const Entry* ref = get("ref-t");
        const std::size_t ngroups = groups ? input::split_ws(groups->value).size() : 0;
        if (ngroups > 1) refuse(*groups, "several temperature-coupling groups are not supported yet (one group: System)");
        for (const Entry* e : {tau, ref})
            if (e && input::split_ws(e->value).size() != ngroups)
                refuse(*e, "one value per tc-grps group is needed (" + std::to_string(ngroups) + " group" +
                               (ngroups == 1 ? "" : "s") + ")");
        const bool vrescale = out_.thermostat && out_.thermostat->value == Thermostat::VRescale;
        if (vrescale && (!tau || !ref))
            fail(at(*get("tcoupl")), "tcoupl = V-rescale needs tc-grps, tau-t and ref-t");
        if (ref) out_.temperature = at_line(real(*ref, 0.0, 1e5), *ref);
        // tau-t = -1 (an uncoupled group in GROMACS) is refused with V-rescale: tcoupl = no says it.
        if (tau && vrescale) out_.tau_t = at_line(real(*tau, 0.0, 1e6), *tau);
        else if (tau) real(*tau);
    }

    MdpSettings& out_;
    std::map<std::string, Entry> entries_;  // by canonical key
    const Entry* pme_spacing_ = nullptr;
};

}  // namespace

MdpSettings parse_mdp_text(std::string_view text, const std::string& name) {
    MdpSettings out;
    out.path = name;
    if (text.size() > kMdpMaxFileBytes)
        throw InputError(name + ": " + std::to_string(text.size()) + " bytes is above mdcore's limit for a .mdp file (" +
                         std::to_string(kMdpMaxFileBytes >> 20) + " MiB)");
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte-order mark, as some editors write
    Mapper mapper(out);
    int line_number = 0;
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++line_number;
        const Where where{name, line_number};
        if (line.size() > kMdpMaxLineBytes)
            fail(where, "line of " + std::to_string(line.size()) + " bytes is above mdcore's limit for a .mdp line (" +
                            std::to_string(kMdpMaxLineBytes) + " bytes)");
        if (line.find('\0') != std::string_view::npos) fail(where, "a NUL byte: not a text file");
        line = trim(line.substr(0, line.find(';')));
        if (line.empty()) continue;
        const std::size_t eq = line.find('=');
        if (eq == std::string_view::npos) fail(where, "'" + shown(line) + "' is not 'key = value'");
        const std::string key(trim(line.substr(0, eq)));
        if (key.empty()) fail(where, "no key before '='");
        mapper.add(canonical_key(key), Entry{key, std::string(trim(line.substr(eq + 1))), line_number});
    }
    mapper.map();
    return out;
}

MdpSettings read_mdp(const std::string& path) {
    std::string text;
    const std::string why = read_text_file(path, kMdpMaxFileBytes, text);
    if (!why.empty()) throw InputError(path + ": cannot read the .mdp file: it " + why);
    return parse_mdp_text(text, path);
}

std::string mdp_ignored_keys_warning(const MdpSettings& mdp) {
    if (mdp.ignored.empty()) return "";
    std::string line = "mdp: ignoring keys that do not change the physics:";
    for (std::size_t i = 0; i < mdp.ignored.size(); ++i) line += (i ? ", " : " ") + mdp.ignored[i];
    return line;
}

}  // namespace mdcore
