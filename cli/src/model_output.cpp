#include "model_output.h"

#include "cli_options.h"
#include "mdtune/models/gromacs_settings.h"
#include "mdtune/core/system_files.h"
#include "mdtune/models/model_lookup.h"
#include "mdtune/tuner/space.h"

namespace mdtune::cli {

std::string pct(double v) { return format_number("%.1f %%", 100.0 * v); }
std::string config_text(const std::string& c) { return c.empty() ? "(defaults)" : c; }
std::string config_text(const Config& c) { return config_text(c.canonical()); }

void print_gromacs(const models::SystemFeatures& sys, const mdcore::EffectiveConfig& eff, const char* indent) {
    const models::GromacsSettings g = models::gromacs_settings(sys, eff);
    std::string mdp;
    for (const auto& [k, v] : g.mdp) mdp += (mdp.empty() ? "" : "; ") + k + " = " + v;
    std::printf("%sGROMACS  %s\n%s         %s\n", indent, mdp.c_str(), indent, g.mdrun.c_str());
    for (const auto& n : g.notes) std::printf("%s         (%s)\n", indent, n.c_str());
}

SystemDescriptor SystemFlags::checked() const {
    if (!topol.empty()) {
        if (!top.empty()) throw InputError("--topol is the former name of --top: give one of them");
        std::fprintf(stderr, "mdtune: note: --topol is now --top (the topology, as in mdcore run)\n");
    }
    const std::string& topology = top.empty() ? topol : top;
    if (!gro.empty() || !topology.empty()) {
        if (gro.empty() || topology.empty()) throw InputError(gro.empty() ? "--top needs --gro" : "--gro needs --top");
        if (!kind.empty() || natoms_option->count())
            throw InputError("--gro/--top replace --system/--natoms: give one or the other");
        return describe_system_files(gro, topology, mdp);
    }
    if (!mdp.empty()) throw InputError("--mdp needs --gro and --top");
    if (kind.empty()) throw InputError("--system is required (or --gro and --top)");
    if (!natoms_option->count()) throw InputError("--natoms is required");
    return models::checked_system(kind, natoms, typed(natoms_option));
}

void add_system_flags(CLI::App& cmd, SystemFlags& flags) {
    add_value(cmd, "--system", flags.kind, "System kind: lj, argon, lammps-lj, water, water-ions (or --gro/--top)");
    flags.natoms_option = add_value(cmd, "--natoms", flags.natoms, "Atoms (water kinds: a multiple of 3)")
                              ->check(integer_in(1, 100'000'000));
    // --top is the topology, as in mdcore run (the count of configs is --top-k);
    // --topol, its former name here, still works and says so.
    add_value(cmd, "--gro", flags.gro, "Your system's .gro (with --top, instead of --system/--natoms)");
    add_value(cmd, "--top", flags.top, "Your system's .top (mdcore's supported subset)");
    add_value(cmd, "--topol", flags.topol, "Former name of --top")->group("");
    add_value(cmd, "--mdp", flags.mdp,
              "Your system's .mdp (with --gro/--top): its settings, as mdcore run --mdp takes them");
    add_value(cmd, "--space", flags.space,
              "SPACE.toml: rank only the configs of its [space] (its [system] is not used)");
}

models::CandidateGrid SystemFlags::candidates() const {
    models::CandidateGrid grid;
    if (space.empty()) return grid;
    tuner::SearchSpace s;
    try {
        s = tuner::load_space(space);
    } catch (const tuner::SpaceError& e) {
        throw InputError(std::string("--space: ") + e.what());
    }
    constexpr std::uint64_t kMaxCandidates = 100'000;
    if (s.config_count() > kMaxCandidates)
        throw InputError("--space: " + space + " has " + std::to_string(s.config_count()) +
                         " configs, more than the " + std::to_string(kMaxCandidates) + " a prediction ranks");
    grid.only = s.configs();
    return grid;
}

void add_model_flag(CLI::App& cmd, std::string& value, bool allow_auto) {
    const std::vector<std::string> kinds =
        allow_auto ? std::vector<std::string>{"auto", "ridge", "cost", "knn"} : std::vector<std::string>{"ridge", "cost", "knn"};
    add_value(cmd, "--model", value,
              allow_auto ? "auto (chosen by cross-validated regret), ridge, cost or knn"
                         : "Use the latest model of this kind: ridge, cost or knn")
        ->check(word_in(kinds));
}

std::optional<models::ModelKind> model_kind(const std::string& value) {
    if (value.empty() || value == "auto") return std::nullopt;
    return models::parse_model_kind(value);
}

}  // namespace mdtune::cli
