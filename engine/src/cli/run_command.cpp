// `mdcore run`: options, the system they describe, the run and its report.
#include "cli/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <string_view>

#include "domdec/mpi_world.h"
#include "gpu/gpu_device.h"
#include "io/gromacs_io.h"
#include "mdcore/generators.h"
#include "mdcore/output_file.h"
#include "mdcore/units.h"

namespace mdcore::run_cli {
namespace {

// Limits in messages, as a person writes them (1e+06, 0.01; never -0.000000).
std::string shown(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}

// Test-only: MDCORE_TEST_FAULT=crash:nstlist=N[,hang:nstlist=M] aborts (or sleeps
// forever) when the run's --nstlist is N (M). Compiled only into the tests'
// mdcore_faulty (tests/CMakeLists.txt), never into the mdcore users run.
void inject_test_fault([[maybe_unused]] const RunConfig& config) {
#ifdef MDT_TEST_FAULTS
    const char* env = std::getenv("MDCORE_TEST_FAULT");
    if (!env) return;
    std::string faults = env;
    for (std::size_t start = 0; start < faults.size();) {
        const std::size_t end = std::min(faults.find(',', start), faults.size());
        int nstlist = 0;
        char kind[16] = {};
        if (std::sscanf(faults.substr(start, end - start).c_str(), "%15[a-z]:nstlist=%d", kind, &nstlist) == 2 &&
            config.nstlist == nstlist) {
            if (std::string(kind) == "crash") std::abort();
            if (std::string(kind) == "hang")
                for (;;) pause();
        }
        start = end + 1;
    }
#endif
}

// A box that is not neutral: PME adds a uniform background charge that cancels
// it, which is harmless for a stray fraction of an e from rounded partial charges
// and an artefact for a strongly charged system (GROMACS warns too). "" below
// that fraction.
std::string net_charge_warning(const System& sys, const std::string& top) {
    double q = 0;
    for (double c : sys.charge) q += c;
    if (std::abs(q) < 0.01) return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.3f e", q);
    return "warning: " + top + ": the system's net charge is " + buf +
           "; PME neutralises it with a uniform background charge, an artefact for a charged system "
           "(add counter-ions to neutralise it)";
}

// An output file must be creatable before the run spends its time: an existing
// writable file, or a new name in an existing writable folder.
void check_writable(const std::string& flag, const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path p(path);
    if (path.empty()) throw UsageError("--" + flag + ": the file name is empty");
    if (fs::is_directory(p, ec)) throw UsageError("--" + flag + ": '" + path + "' is a directory");
    if (fs::exists(p, ec)) {
        if (::access(path.c_str(), W_OK) != 0) throw UsageError("--" + flag + ": cannot write '" + path + "' (no permission)");
        return;
    }
    const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    if (!fs::is_directory(dir, ec))
        throw UsageError("--" + flag + ": cannot write '" + path + "': folder '" + dir.string() + "' does not exist");
    if (::access(dir.c_str(), W_OK) != 0)
        throw UsageError("--" + flag + ": cannot write '" + path + "': folder '" + dir.string() + "' is not writable");
}

// Writes an output file; a failure names the flag as well as the file.
template <typename Write>
void with_flag(const char* flag, Write&& write) {
    try {
        write();
    } catch (const std::runtime_error& e) {
        throw std::runtime_error(std::string("--") + flag + ": " + e.what());
    }
}

// The run's flags that are not tunables (those come from the tunable table).
struct FlagSpec {
    const char* name;
    const char* placeholder;
    const char* help;
    const char* group;
};
constexpr FlagSpec kRunFlags[] = {
    {"system", "lj|argon|lammps-lj|water|water-ions", "generated system (default lammps-lj)", "System"},
    {"natoms", "N", "LJ systems: atoms", "System"},
    {"box", "L", "LJ systems: cubic box edge, nm (excludes --natoms)", "System"},
    {"density", "G_PER_CM3", "mass density, g/cm^3", "System"},
    {"nwater", "N", "water systems: molecules", "System"},
    {"nacl", "MOLAR", "water-ions: NaCl concentration, mol/L (0.15)", "System"},
    {"gro", "FILE", "GROMACS coordinates (with --top)", "System"},
    {"top", "FILE", "GROMACS topology (with --gro)", "System"},
    {"mdp", "FILE", "GROMACS run parameters (with --gro/--top): the .mdp's settings where no flag gives them", "System"},
    {"temperature", "K", "initial / reference temperature", "System"},
    {"dt", "PS", "time step", "System"},
    {"rc", "NM", "cut-off", "System"},
    {"seed", "S", "velocities, water box origin and thermostat noise", "System"},
    {"drift-tolerance", "X", "energy drift target, kJ/mol/ps per atom (sets the Verlet buffer)", "System"},
    {"ewald-rtol", "X", "Ewald real-space tolerance at rc (1e-5)", "System"},
    {"vdw-modifier", "potential-shift|force-switch|potential-switch", "how LJ reaches zero at rc (GROMACS vdw-modifier; potential-shift)", "System"},
    {"rvdw-switch", "NM", "where force- or potential-switching starts (0)", "System"},
    {"dispcorr", "no|EnerPres|Ener|AllEnerPres|AllEner", "long-range dispersion correction (GROMACS DispCorr; no)", "System"},
    {"coulombtype", "pme|reaction-field", "Coulomb of a charged system (pme)", "System"},
    {"epsilon-rf", "X", "reaction-field dielectric beyond rc, 0 for infinity (1)", "System"},
    {"steps", "N", "MD steps (0: energies and forces of the start only)", "Run control"},
    {"warmup", "N", "steps excluded from timings", "Run control"},
    {"thermostat", "none|v-rescale", "temperature coupling", "Run control"},
    {"tau-t", "PS", "v-rescale coupling time", "Run control"},
    {"nstcalcenergy", "N", "steps between energy samples (default: 50, fewer for runs under 500 measured steps)", "Run control"},
    {"pin", "auto|on|off", "bind each thread to a CPU (default off; auto: when the threads use every CPU this process may run on)", "Run control"},
    {"pin-offset", "N", "with --pin: the first CPU (among those this process may use) for thread 0 (0)", "Run control"},
    {"dlb", "auto|no|yes", "dynamic load balancing of the DD cell boundaries at searches (default auto: on once the ranks' force times differ by more than 2 % over 100 steps)", "Run control"},
    {"thread-balance", "on|off", "split the nonbonded work by the threads' measured speeds (default on; off: an even split, bit-identical repeated runs)", "Run control"},
    {"json", "FILE|-", "write the report as JSON to FILE, or to stdout instead of the text", "Output"},
    {"out-gro", "FILE", "write the final state as .gro", "Output"},
    {"dump-forces", "FILE", "write the step-0 forces", "Output"},
};

}  // namespace

void RunCommand::add(const std::string& flag, const std::string& placeholder, const std::string& help, const char* group) {
    sub_->add_option("--" + flag, text_[flag], help)
        ->type_name(placeholder)
        ->group(group)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // reject_extras() refuses repeats
}

RunCommand::RunCommand(CLI::App& app) {
    sub_ = app.add_subcommand("run", "run MD on a generated system or a GROMACS box and print the RunReport");
    sub_->allow_extras();  // reject_extras() names the first unknown flag in one line
    sub_->set_help_flag("-h,--help", "print the run's flags");
    for (const FlagSpec& f : kRunFlags)
        if (std::string_view(f.group) != "Output") add(f.name, f.placeholder, f.help, f.group);
    sub_->add_option("--include", include_dirs_, "folder searched for the topology's #include files (repeatable; before the .mdp's include)")
        ->type_name("DIR")
        ->group("System")
        ->allow_extra_args(false);  // one folder per --include
    for (const TunableInfo& t : tunables())
        add(std::string(t.flag.substr(2)), std::string(t.placeholder),
            std::string(t.help) + " (default: " + std::string(t.default_doc) + ")", "Tunables");
    for (const FlagSpec& f : kRunFlags)
        if (std::string_view(f.group) == "Output") add(f.name, f.placeholder, f.help, f.group);
}

std::optional<std::string> RunCommand::text(const std::string& name) const {
    if (!has(name)) return std::nullopt;
    return text_.at(name);
}

std::optional<long> RunCommand::integer(const std::string& name, long min, long max) const {
    const auto t = text(name);
    if (!t) return std::nullopt;
    long v = 0;
    const auto [p, ec] = std::from_chars(t->data(), t->data() + t->size(), v);
    if (t->empty() || ec != std::errc{} || p != t->data() + t->size())
        throw UsageError("--" + name + ": '" + *t + "' is not an integer");
    if (v < min || v > max)
        throw UsageError("--" + name + ": " + *t + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return v;
}

std::optional<double> RunCommand::real(const std::string& name, double min, double max, bool min_inclusive) const {
    const auto t = text(name);
    if (!t) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(t->c_str(), &end);
    if (t->empty() || end != t->c_str() + t->size() || !std::isfinite(v))
        throw UsageError("--" + name + ": '" + *t + "' is not a number");
    if ((min_inclusive ? v < min : !(v > min)) || v > max)
        throw UsageError("--" + name + ": " + *t + " must be " + (min_inclusive ? "at least " : "above ") + shown(min) +
                         " and at most " + shown(max));
    return v;
}

void RunCommand::reject_extras() const {
    for (const auto& [flag, value] : text_)
        if (sub_->count("--" + flag) > 1) throw UsageError("--" + flag + " given twice");
    for (const std::string& extra : sub_->remaining()) {
        if (extra.rfind("--", 0) == 0) throw UsageError("unknown flag " + extra.substr(0, extra.find('=')));
        throw UsageError("unexpected argument '" + extra + "'");
    }
}

void RunCommand::read_mdp_file() {
    if (!has("gro") && !has("top")) {
        for (const char* flag : {"mdp", "include"})
            if (has(flag)) throw UsageError(std::string("--") + flag + " applies to a --gro/--top system");
        return;
    }
    const auto path = text("mdp");
    if (!path) return;
    try {
        mdp_ = read_mdp(*path);
    } catch (const InputError& e) {
        throw UsageError(e.what());
    }
    if (world_rank() != 0) return;
    if (const std::string warning = mdp_ignored_keys_warning(*mdp_); !warning.empty()) std::cerr << warning << "\n";
    const bool constrained = mdp_->constraints && mdp_->constraints->value != ConstraintMode::None;
    if (mdp_->continuation && !mdp_->continuation->value && constrained)
        std::cerr << "mdp: continuation = no: mdcore starts from the .gro coordinates as they are (GROMACS would "
                     "constrain them first)\n";
}

void RunCommand::noted(const std::string& setting, const std::string& flag, const MdpApplied& applied) const {
    const auto it = applied.find(setting);
    sources_[setting] = !flag.empty() && has(flag) ? "flag --" + flag
                        : it != applied.end()    ? mdp_->source(it->second)
                                                 : "default";
}

void RunCommand::note(const std::string& setting, const std::string& flag) const {
    sources_[setting] = has(flag) ? "flag --" + flag : "default";
}

RunConfig RunCommand::run_config() const {
    RunConfig config;
    for (const TunableInfo& t : tunables()) {
        const std::string flag(t.flag.substr(2));
        note(std::string(t.name), flag);
        if (const auto value = text(flag)) {
            try {
                set_tunable(config, t.id, parse_tunable(t.id, *value));
            } catch (const TunableError& e) {
                throw UsageError(e.what());
            }
        }
    }
    if (!mdp_) return config;
    // PME settings change the accuracy, so the .mdp's apply (unless a flag gives them);
    // each is checked as its flag would be, named by its line.
    MdpPmeSettings pme;
    try {
        pme = mdp_pme_settings(*mdp_);
    } catch (const InputError& e) {
        throw UsageError(e.what());
    }
    const auto flagged = [&](Tunable t) { return has(std::string(tunable_info(t).flag.substr(2))); };
    for (Tunable t : pme.apply(config, flagged)) {
        const int line = t == Tunable::PmeSpacing ? mdp_->pme_spacing->line
                         : t == Tunable::PmeOrder ? mdp_->pme_order->line
                                                  : mdp_->pme_grid->line;
        sources_[std::string(tunable_info(t).name)] = mdp_->source(line);
    }
    // A grid from fourier-nx/ny/nz would override a --pme-spacing: the flag wins.
    if (has("pme-spacing") && !has("pme-grid")) sources_["pme_grid"] = "flag --pme-spacing";
    // GROMACS' nstlist is a minimum that mdrun raises; mdcore chooses its own likewise.
    if (mdp_->nstlist && !has("nstlist"))
        sources_["nstlist"] = "default (" + mdp_->source(mdp_->nstlist->line) + " nstlist = " +
                              std::to_string(mdp_->nstlist->value) +
                              " not applied: GROMACS takes it as a minimum mdrun may raise; mdcore picks nstlist, "
                              "--nstlist sets it)";
    return config;
}

RunControl RunCommand::run_control() const {
    RunControl control;
    MdpApplied applied;
    if (mdp_) apply_mdp_control(control, *mdp_, &applied);
    noted("steps", "steps", applied);
    if (const auto v = integer("steps", 0, 1'000'000'000)) control.steps = *v;
    note("warmup", "warmup");
    if (const auto v = integer("warmup", 0, 1'000'000'000)) control.warmup = *v;
    noted("nstcalcenergy", "nstcalcenergy", applied);
    if (const auto v = integer("nstcalcenergy", 1, 1'000'000)) {
        control.nstcalcenergy = static_cast<int>(*v);
    } else {
        // At least 10 energy samples after the warm-up for the drift fit: a short run
        // (a tuner trial) otherwise has two or three, too few to tell drift from noise.
        // The .mdp's interval takes the default's place as the upper bound.
        const int most = control.nstcalcenergy;
        const long measured = std::max(0L, control.steps - control.warmup);
        control.nstcalcenergy = static_cast<int>(std::clamp(measured / 10, 1L, long{most}));
        if (applied.count("nstcalcenergy") && control.nstcalcenergy != most && measured > 0)
            sources_["nstcalcenergy"] += " (" + std::to_string(most) + ", lowered to " +
                                         std::to_string(control.nstcalcenergy) + " for 10 energy samples in this short run)";
    }
    noted("tau_t", "tau-t", applied);
    if (const auto v = real("tau-t", 0.0, 1e6)) control.tau_t = *v;
    noted("thermostat", "thermostat", applied);
    if (const auto t = text("thermostat")) {
        if (*t == "none") control.thermostat = Thermostat::None;
        else if (*t == "v-rescale") control.thermostat = Thermostat::VRescale;
        else throw UsageError("--thermostat: unknown thermostat '" + *t + "' (none, v-rescale)");
    }
    noted("seed", "seed", applied);
    if (mdp_ && mdp_->ld_seed_random_line && !has("seed"))
        sources_["seed"] = "default (" + mdp_->source(*mdp_->ld_seed_random_line) +
                           " ld-seed = -1: GROMACS draws a random seed, mdcore keeps its fixed one)";
    if (const auto v = integer("seed", 0, std::numeric_limits<long>::max())) control.seed = *v;
    if (const auto t = text("pin")) {
        const auto mode = parse_pin_mode(*t);
        if (!mode) throw UsageError("--pin: unknown mode '" + *t + "' (auto, on, off)");
        control.pin = *mode;
    }
    if (const auto v = integer("pin-offset", 0, 1'000'000)) control.pin_offset = static_cast<int>(*v);
    if (const auto t = text("dlb")) {
        const auto mode = parse_dlb_mode(*t);
        if (!mode) throw UsageError("--dlb: unknown value '" + *t + "' (auto, no, yes)");
        control.dlb = *mode;
    }
    if (const auto t = text("thread-balance")) {
        if (*t == "on") control.thread_balance = true;
        else if (*t == "off") control.thread_balance = false;
        else throw UsageError("--thread-balance: unknown value '" + *t + "' (on, off)");
    }
    return control;
}

System RunCommand::build_lj_system(SystemKind kind) const {
    LjFluidSpec spec = lj_spec_of(kind);
    if (const auto seed = integer("seed", 0, std::numeric_limits<long>::max())) spec.seed = *seed;
    if (const auto t = real("temperature", 0.0, 1e5, true)) spec.temperature = *t;
    if (const auto dt = real("dt", 0.0, 1.0)) spec.dt = *dt;
    if (const auto rc = real("rc", 0.0, 1e3)) spec.rc = *rc;
    if (const auto d = real("density", 0.0, 1e3)) {
        const double number_density = *d / units::kAmuPerNm3ToGPerCm3 / spec.mass;
        spec.reduced_density = number_density * spec.sigma * spec.sigma * spec.sigma;
    }
    if (has("natoms") && has("box")) throw UsageError("--natoms and --box exclude each other");
    if (const auto n = integer("natoms", 1, 100'000'000)) spec.natoms = *n;
    if (const auto L = real("box", 0.0, 1e4)) {
        spec.natoms.reset();
        spec.box_length = *L;
    }
    return make_lj_fluid(spec, std::string(to_string(kind)).c_str());
}

System RunCommand::build_water_system(SystemKind kind) const {
    WaterSpec spec = water_spec_of(kind);
    if (const auto n = integer("nwater", 1, 10'000'000)) spec.nwater = *n;
    if (const auto c = real("nacl", 0.0, 10.0, true)) {
        if (kind != SystemKind::WaterIons) throw UsageError("--nacl needs --system water-ions");
        spec.nacl_molar = *c;
    }
    if (const auto seed = integer("seed", 0, std::numeric_limits<long>::max())) spec.seed = *seed;
    if (const auto t = real("temperature", 0.0, 1e5)) spec.temperature = *t;
    if (const auto dt = real("dt", 0.0, 0.01)) spec.dt = *dt;
    if (const auto rc = real("rc", 0.0, 1e3)) spec.rc = *rc;
    if (const auto d = real("density", 0.0, 10.0)) spec.density = *d;
    if (const auto t = text("threads")) spec.threads = static_cast<int>(std::get<long>(parse_tunable(Tunable::Threads, *t)));
    return make_water_system(spec);
}

System RunCommand::build_file_system() const {
    // The topology reader's options: --include folders first, then the .mdp's.
    const MdpSettings* mdp = mdp_ ? &*mdp_ : nullptr;
    sources_["include_dirs"] = include_dirs_.empty() ? "" : "flag --include";
    sources_["defines"] = "default";
    sources_["constraints"] = mdp && mdp->constraints ? mdp->source(mdp->constraints->line) : "default";
    if (mdp) {
        if (mdp->include_line > 0)
            sources_["include_dirs"] += (include_dirs_.empty() ? "" : ", ") + mdp->source(mdp->include_line);
        if (mdp->define_line > 0) sources_["defines"] = mdp->source(mdp->define_line);
    }
    if (sources_["include_dirs"].empty()) sources_["include_dirs"] = "default";
    System sys = read_gromacs_system(*text("gro"), *text("top"), mdp_topology_options(mdp, include_dirs_));
    if (world_rank() == 0)
        if (const std::string warning = net_charge_warning(sys, *text("top")); !warning.empty())
            std::cerr << warning << "\n";
    // mdcore run's settings for a file system, then the .mdp's, then the flags'.
    MdpApplied applied;
    apply_mdp_physics(sys, mdp, &applied);
    for (const auto& [setting, flag] : {std::pair<const char*, const char*>{"temperature", "temperature"},
                                        {"dt", "dt"},
                                        {"rc", "rc"},
                                        {"drift_tolerance", "drift-tolerance"},
                                        {"ewald_rtol", "ewald-rtol"},
                                        {"epsilon_r", ""},
                                        {"lincs_order", ""},
                                        {"lincs_iter", ""},
                                        {"lincs_warnangle", ""},
                                        {"vdw_modifier", "vdw-modifier"},
                                        {"rvdw_switch", "rvdw-switch"},
                                        {"coulomb_type", "coulombtype"},
                                        {"epsilon_rf", "epsilon-rf"},
                                        {"dispcorr", "dispcorr"}})
        noted(setting, flag, applied);
    if (const auto t = real("temperature", 0.0, 1e5)) sys.temperature = *t;
    if (const auto dt = real("dt", 0.0, 0.01)) sys.dt = *dt;
    if (const auto rc = real("rc", 0.0, 1e3)) sys.rc = *rc;
    if (!mdp) return sys;
    // Recorded for the report (apply_mdp_physics applied comm-mode None).
    if (mdp->comm_mode) sources_["comm_mode"] = mdp->source(mdp->comm_mode->line);
    const MdpSettings& m = *mdp;
    if (m.nstcomm)
        sources_["nstcomm"] = "default (" + m.source(m.nstcomm->line) + " nstcomm = " +
                              std::to_string(m.nstcomm->value) +
                              " recorded: mdcore removes no centre-of-mass motion during a run; its dynamics keep the momentum)";
    if (m.nsttcouple)
        sources_["nsttcouple"] = "default (" + m.source(m.nsttcouple->line) + " nsttcouple = " +
                                 std::to_string(m.nsttcouple->value) + " recorded: mdcore's V-rescale couples every step)";
    const std::string start = "no: mdcore starts from the .gro as it is; GROMACS would constrain it first";
    if (!m.continuation) sources_["continuation"] = "default (" + start + ")";
    else if (m.continuation->value) sources_["continuation"] = m.source(m.continuation->line);
    else sources_["continuation"] = m.source(m.continuation->line) + " (" + start + ")";
    return sys;
}

System RunCommand::build_system() const {
    if (has("gro") != has("top")) throw UsageError("--gro and --top must be given together");
    const bool from_files = has("gro");
    if (from_files && has("system")) throw UsageError("--system and --gro/--top exclude each other");
    std::optional<SystemKind> kind = SystemKind::LammpsLj;
    if (const auto name = text("system")) {
        kind = parse_system_kind(*name);
        if (!kind) throw UsageError("--system: unknown system '" + *name + "' (" + system_kind_names() + ")");
    }
    const bool water = !from_files && is_water(*kind);
    const bool lj = !from_files && !water;
    for (const char* flag : {"natoms", "box"})
        if (has(flag) && !lj) throw UsageError(std::string("--") + flag + " applies to LJ systems only");
    for (const char* flag : {"nwater", "nacl"})
        if (has(flag) && !water) throw UsageError(std::string("--") + flag + " applies to water systems only");
    System sys = from_files ? build_file_system() : lj ? build_lj_system(*kind) : build_water_system(*kind);
    if (!from_files) {
        for (const char* setting : {"dt", "rc", "temperature"}) note(setting, setting);
        note("drift_tolerance", "drift-tolerance");
        note("ewald_rtol", "ewald-rtol");
    }
    if (const auto tol = real("drift-tolerance", 0.0, 1e6)) sys.drift_tolerance = *tol;
    if (const auto rtol = real("ewald-rtol", 0.0, 0.1)) sys.ewald_rtol = *rtol;
    if (const auto m = text("vdw-modifier")) {
        const auto v = parse_vdw_modifier(*m);
        if (!v) throw UsageError("--vdw-modifier: unknown modifier '" + *m + "' (potential-shift, force-switch, potential-switch)");
        sys.vdw_modifier = *v;
    }
    if (const auto r = real("rvdw-switch", 0.0, 1e3, true)) sys.rvdw_switch = *r;
    if (const auto c = text("coulombtype")) {
        const auto t = parse_coulomb_type(*c);
        if (!t) throw UsageError("--coulombtype: unknown type '" + *c + "' (pme, reaction-field)");
        sys.coulomb_type = *t;
    }
    if (const auto e = real("epsilon-rf", 0.0, 1e6, true)) sys.epsilon_rf = *e;
    if (const auto d = text("dispcorr")) {
        const auto v = parse_dispcorr(*d);
        if (!v) throw UsageError("--dispcorr: unknown value '" + *d + "' (no, EnerPres, Ener, AllEnerPres, AllEner)");
        sys.dispcorr = *v;
    }
    return sys;
}

void RunCommand::check_output_paths() const {
    if (const auto json = text("json"); json && *json != "-") check_writable("json", *json);
    for (const char* flag : {"out-gro", "dump-forces"})
        if (const auto path = text(flag)) check_writable(flag, *path);
}

void RunCommand::write_report(const RunReport& report) const {
    // The report is the run's result: one that did not arrive whole is a failed run (exit 1).
    const auto json_target = text("json");
    std::cout << (json_target && *json_target == "-" ? run_report_to_json(report) + "\n" : run_report_to_text(report));
    if (const std::string error = flush_stdout(); !error.empty()) throw std::runtime_error("the report: " + error);
    if (json_target && *json_target != "-") {
        with_flag("json", [&] { write_text_file(*json_target, run_report_to_json(report) + "\n"); });
    }
}

int RunCommand::execute() {
    RunConfig config;
    RunControl control;
    System sys;
    // Under mpirun every rank checks the input; a problem only some ranks find (their
    // CPUs for --pin, a file missing on their node) must stop every rank, or the others
    // would wait in a collective for ranks that left. The ranks agree after reading the
    // system (resolve_config counts the node's ranks, a collective) and after the checks.
    const auto checked_by_all = [](const std::function<void()>& checks) {
        std::optional<std::string> problem;
        try {
            checks();
        } catch (const UsageError& e) {
            problem = e.what();
        } catch (const std::invalid_argument& e) {
            problem = e.what();
        } catch (const InputError& e) {
            problem = e.what();
        }
        if (const int first = first_failed_rank(problem.has_value()); first < world_size())
            throw AgreedUsageError(problem.value_or(""), first, world_rank() == first);
    };
    checked_by_all([&] {
        reject_extras();
        read_mdp_file();
        config = run_config();
        control = run_control();
        inject_test_fault(config);
        sys = build_system();
    });
    checked_by_all([&] {
        // Reject bad input before running.
        const EffectiveConfig eff = resolve_config(sys, config, control);
        plan_thread_pinning(control, eff.threads);
        if (config.nb == Offload::Gpu) {
            // A GPU mode without a usable GPU: one line, exit 2 (the CPU path needs none).
            auto gpu = find_gpu(config.gpu_id);
            if (const std::string* why = std::get_if<std::string>(&gpu)) throw UsageError("--nb gpu: " + *why);
        }
        check_output_paths();
    });
    if (const auto path = text("dump-forces")) {
        // Step-0 forces of the start configuration, in input order (all ranks compute, rank 0 writes).
        const ForceResult forces = compute_forces(sys, config);
        if (world_rank() == 0) with_flag("dump-forces", [&] { write_forces(*path, forces.forces); });
    }
    // Under mpirun every rank runs; rank 0 writes the report and the files.
    const bool writer = world_rank() == 0;
    try {
        RunReport report = run(sys, config, control);
        report.setting_sources = sources_;
        if (!writer) return 0;
        if (const auto path = text("out-gro"))
            with_flag("out-gro", [&] { write_gro(*path, sys, "mdcore final state"); });
        write_report(report);
        return 0;
    } catch (const RunFailed& failure) {
        // The report of a failed run still goes out (status "failed", failed_step), then exit 1.
        if (!writer) return 1;
        RunReport report = failure.report();
        report.setting_sources = sources_;
        try {
            write_report(report);
        } catch (const std::runtime_error& e) {
            std::cerr << "mdcore: error: " << e.what() << "\n";
        }
        std::cerr << "mdcore: error: " << failure.what() << "\n";
        return 1;
    }
}

}  // namespace mdcore::run_cli
