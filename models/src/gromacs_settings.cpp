// mdcore flags and the GROMACS settings that match them.
#include "mdtune/models/gromacs_settings.h"

#include <algorithm>
#include <cstdio>

namespace mdtune::models {
namespace {

std::string fmt(double v, const char* f = "%.4g") {
    char buf[32];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

}  // namespace

GromacsSettings gromacs_settings(const SystemFeatures& sys, const mdcore::EffectiveConfig& eff) {
    GromacsSettings g;
    g.mdp.emplace_back("cutoff-scheme", "Verlet");
    g.mdp.emplace_back("nstlist", std::to_string(eff.nstlist));
    // Same definition and default (kJ/mol/ps per atom): GROMACS then derives rlist as mdcore does.
    g.mdp.emplace_back("verlet-buffer-tolerance", fmt(eff.drift_tolerance));
    g.mdp.emplace_back("rvdw", fmt(eff.rc));
    if (eff.vdw_modifier != mdcore::VdwModifier::PotentialShift) {
        g.mdp.emplace_back("vdw-modifier",
                           eff.vdw_modifier == mdcore::VdwModifier::ForceSwitch ? "Force-switch" : "Potential-switch");
        g.mdp.emplace_back("rvdw-switch", fmt(eff.rvdw_switch));
    }
    if (sys.charged_fraction > 0 && eff.coulomb_type == mdcore::CoulombType::ReactionField) {
        g.mdp.emplace_back("coulombtype", "Reaction-Field");
        g.mdp.emplace_back("rcoulomb", fmt(eff.rc));
        g.mdp.emplace_back("epsilon-rf", fmt(eff.epsilon_rf));
    }
    if (eff.pme) {
        g.mdp.emplace_back("coulombtype", "PME");
        g.mdp.emplace_back("rcoulomb", fmt(eff.rc));
        g.mdp.emplace_back("fourierspacing", fmt(eff.pme_spacing));
        g.mdp.emplace_back("pme-order", std::to_string(eff.pme_order));
        g.mdp.emplace_back("ewald-rtol", fmt(eff.ewald_rtol));
    }
    // Ranks as thread-MPI ranks of one node (gmx_mpi under mpirun takes the same -npme/-dd).
    g.mdrun = "gmx mdrun -ntmpi " + std::to_string(std::max(1, eff.ranks)) + " -ntomp " + std::to_string(eff.threads);
    if (eff.ranks > 1)
        g.mdrun += " -npme " + std::to_string(eff.npme) + " -dd " + std::to_string(eff.dd[0]) + " " +
                   std::to_string(eff.dd[1]) + " " + std::to_string(eff.dd[2]);
    g.mdrun += " -nstlist " + std::to_string(eff.nstlist);
    if (eff.nb == mdcore::Offload::Gpu) {
        // The offload modes map one to one (GROMACS 2020 paper, Fig. 2 B-E).
        g.mdrun += " -nb gpu -pme " + std::string(mdcore::to_string(eff.pme_offload)) + " -update " +
                   std::string(mdcore::to_string(eff.update)) + " -gpu_id " + std::to_string(eff.gpu_id);
    } else {
        g.mdrun += " -nb cpu";
    }
    if (eff.pme) {
        // The balance is chosen here; mdrun's own PME tuning would move it again.
        g.mdrun += " -notunepme";
        if (eff.pme_scale != 1.0)
            g.notes.push_back("PME balance x" + fmt(eff.pme_scale) + ": rcoulomb and fourierspacing scaled together (beta follows rcoulomb); mdcore scales the LJ cut-off with it, hence rvdw = rcoulomb");
    }
    g.notes.push_back("cluster shape " + std::string(mdcore::to_string(eff.cluster)) +
                      " has no GROMACS setting: mdrun picks its kernel layout from the SIMD level");
    if (eff.nstprune < eff.nstlist)
        g.notes.push_back("dynamic pruning every " + std::to_string(eff.nstprune) +
                          " steps: GROMACS chooses its pruning interval itself");
    if (sys.constraints > 0 && sys.distance_constraints == 0)
        g.notes.push_back("rigid water: constraints = h-bonds with SETTLE, as mdcore");
    if (sys.distance_constraints > 0)
        g.notes.push_back(std::to_string(sys.distance_constraints) +
                          " LINCS constraints, as mdcore: constraint-algorithm = lincs with the same constraints, "
                          "lincs-order and lincs-iter");
    return g;
}

std::string mdcore_command(const SystemDescriptor& system, const Config& config) {
    const int ranks = ranks_of(config);
    std::string cmd = ranks > 1 ? "mpirun -np " + std::to_string(ranks) + " mdcore run" : "mdcore run";
    for (const auto& a : system.mdcore_args()) cmd += " " + a;
    for (const auto& a : config.mdcore_args()) cmd += " " + a;
    return cmd;
}

}  // namespace mdtune::models
