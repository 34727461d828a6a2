// A .mdp's settings on a System, a RunControl and a RunConfig.
#include "io/mdp_apply.h"

#include "mdcore/tunables.h"

namespace mdcore {
namespace {

// Sets `target` from the .mdp's field when present, noting the setting's line.
template <class T, class U>
void take(const std::optional<MdpValue<T>>& field, U& target, const char* setting, MdpApplied* applied) {
    if (!field) return;
    target = field->value;
    if (applied) (*applied)[setting] = field->line;
}

}  // namespace

TopologyOptions mdp_topology_options(const MdpSettings* mdp, std::vector<std::string> include_dirs) {
    TopologyOptions options;
    options.include_dirs = std::move(include_dirs);
    if (!mdp) return options;
    options.include_dirs.insert(options.include_dirs.end(), mdp->include_dirs.begin(), mdp->include_dirs.end());
    options.defines = mdp->defines;
    if (mdp->constraints) options.constraints = mdp->constraints->value;
    return options;
}

void apply_mdp_physics(System& sys, const MdpSettings* mdp, MdpApplied* applied) {
    // mdcore run's settings for a file system (the .mdp's defaults are GROMACS' own).
    sys.rc = 1.0;
    sys.dt = 0.002;
    sys.temperature = 300.0;
    if (!mdp) return;
    take(mdp->temperature, sys.temperature, "temperature", applied);
    take(mdp->dt, sys.dt, "dt", applied);
    take(mdp->rc, sys.rc, "rc", applied);
    take(mdp->drift_tolerance, sys.drift_tolerance, "drift_tolerance", applied);
    take(mdp->ewald_rtol, sys.ewald_rtol, "ewald_rtol", applied);
    take(mdp->epsilon_r, sys.epsilon_r, "epsilon_r", applied);
    take(mdp->vdw_modifier, sys.vdw_modifier, "vdw_modifier", applied);
    take(mdp->rvdw_switch, sys.rvdw_switch, "rvdw_switch", applied);
    take(mdp->coulomb_type, sys.coulomb_type, "coulomb_type", applied);
    take(mdp->epsilon_rf, sys.epsilon_rf, "epsilon_rf", applied);
    take(mdp->dispcorr, sys.dispcorr, "dispcorr", applied);
    take(mdp->lincs_order, sys.lincs_order, "lincs_order", applied);
    take(mdp->lincs_iter, sys.lincs_iter, "lincs_iter", applied);
    take(mdp->lincs_warnangle, sys.lincs_warnangle, "lincs_warnangle", applied);
    // GROMACS counts the 3 centre-of-mass degrees of freedom when it does not remove that motion.
    if (mdp->comm_mode && mdp->comm_mode->value == "None" && sys.removed_dof >= 3) sys.removed_dof -= 3;
}

void apply_mdp_control(RunControl& control, const MdpSettings& mdp, MdpApplied* applied) {
    take(mdp.steps, control.steps, "steps", applied);
    take(mdp.thermostat, control.thermostat, "thermostat", applied);
    take(mdp.tau_t, control.tau_t, "tau_t", applied);
    take(mdp.nstcalcenergy, control.nstcalcenergy, "nstcalcenergy", applied);
    take(mdp.seed, control.seed, "seed", applied);
}

MdpPmeSettings mdp_pme_settings(const MdpSettings& mdp) {
    const auto check = [&](Tunable id, const char* key, int line, const TunableValue& value) {
        try {
            check_tunable(id, value, mdp.path + ":" + std::to_string(line) + ": " + key);
        } catch (const TunableError& e) {
            throw InputError(e.what());
        }
    };
    MdpPmeSettings pme;
    if (mdp.pme_spacing) {
        check(Tunable::PmeSpacing, "fourierspacing", mdp.pme_spacing->line, mdp.pme_spacing->value);
        pme.spacing = mdp.pme_spacing->value;
    }
    if (mdp.pme_order) {
        check(Tunable::PmeOrder, "pme-order", mdp.pme_order->line, long{mdp.pme_order->value});
        pme.order = mdp.pme_order->value;
    }
    if (mdp.pme_grid) {
        check(Tunable::PmeGrid, "fourier-nx/ny/nz", mdp.pme_grid->line, mdp.pme_grid->value);
        pme.grid = mdp.pme_grid->value;
    }
    return pme;
}

std::vector<Tunable> MdpPmeSettings::apply(RunConfig& config, const std::function<bool(Tunable)>& given) const {
    std::vector<Tunable> set;
    const auto put = [&](Tunable id, const TunableValue& value) {
        set_tunable(config, id, value);
        set.push_back(id);
    };
    if (spacing && !given(Tunable::PmeSpacing)) put(Tunable::PmeSpacing, *spacing);
    if (order && !given(Tunable::PmeOrder)) put(Tunable::PmeOrder, long{*order});
    if (grid && !given(Tunable::PmeGrid) && !given(Tunable::PmeSpacing)) put(Tunable::PmeGrid, *grid);
    return set;
}

GromacsRunInput read_gromacs_run_input(const std::string& gro_path, const std::string& top_path,
                                       const std::string& mdp_path, const std::vector<std::string>& include_dirs) {
    std::optional<MdpSettings> mdp;
    if (!mdp_path.empty()) mdp = read_mdp(mdp_path);
    const MdpSettings* m = mdp ? &*mdp : nullptr;
    GromacsRunInput in;
    if (m) in.pme = mdp_pme_settings(*m);  // refused before the (slower) topology is read
    in.system = read_gromacs_system(gro_path, top_path, mdp_topology_options(m, include_dirs));
    apply_mdp_physics(in.system, m);
    if (m) apply_mdp_control(in.control, *m);
    return in;
}

}  // namespace mdcore
