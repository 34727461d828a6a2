#pragma once
// What a .mdp sets on a run, in one place: mdcore run --mdp and
// read_gromacs_run_input (the tuner's view of a user's box) both map it here.
#include <map>
#include <string>
#include <vector>

#include "io/mdp_reader.h"
#include "mdcore/gromacs_input.h"
#include "mdcore/run_config.h"
#include "mdcore/system.h"

namespace mdcore {

// The settings a .mdp gave, by the report's name ("dt", "constraints"), with their lines.
using MdpApplied = std::map<std::string, int>;

// The .top reader's options: `include_dirs` first, then the .mdp's include, its
// defines and its constraints (mdp null: none of those).
TopologyOptions mdp_topology_options(const MdpSettings* mdp, std::vector<std::string> include_dirs);

// mdcore run's physical settings for a .gro/.top system, then the .mdp's (mdp null:
// only the former); comm-mode = None gives back the centre of mass's 3 degrees of freedom.
void apply_mdp_physics(System& system, const MdpSettings* mdp, MdpApplied* applied = nullptr);

// nsteps, tcoupl, tau-t, nstcalcenergy (mdcore run may lower it for a short run) and ld-seed.
void apply_mdp_control(RunControl& control, const MdpSettings& mdp, MdpApplied* applied = nullptr);

// The .mdp's PME settings, each checked as its flag would be; InputError
// "FILE:LINE: key: why" for a value mdcore would refuse.
MdpPmeSettings mdp_pme_settings(const MdpSettings& mdp);

}  // namespace mdcore
