// Summaries of built systems (mdcore/system_summary.h); generated kinds are
// summarised next to their generators (water.cpp, lj_fluid.cpp, named_system.cpp).
#include "mdcore/system_summary.h"

#include <map>
#include <tuple>

#include "domdec/update_groups.h"
#include "mdcore/units.h"

namespace mdcore {

double SystemSummary::charged_atoms() const {
    double n = 0;
    for (const AtomClass& c : classes) n += c.charge != 0.0 ? c.count : 0.0;
    return n;
}

double SystemSummary::mass_density_g_cm3() const {
    double total = 0;
    for (const AtomClass& c : classes) total += c.mass * c.count;
    return box.volume() > 0 ? total / box.volume() * units::kAmuPerNm3ToGPerCm3 : 0.0;
}

SystemSummary summarize(const System& system) {
    SystemSummary s;
    s.kind = system.kind;
    s.natoms = static_cast<long>(system.natoms());
    s.box = system.box;
    // SETTLE: each H is constrained to the O, the O to an H (GROMACS' verletbuf).
    std::vector<double> con_mass(system.natoms(), 0.0), con_len(system.natoms(), 0.0);
    for (const Settle& m : system.settles) {
        con_mass[m.o] = system.mass[m.h1];
        con_mass[m.h1] = con_mass[m.h2] = system.mass[m.o];
        con_len[m.o] = con_len[m.h1] = con_len[m.h2] = m.d_oh;
    }
    // LINCS constraints: each atom with its heaviest constrained partner.
    for (const DistanceConstraint& c : system.bonded.constraints)
        for (int k = 0; k < 2; ++k) {
            const int a = c.atoms[k], b = c.atoms[1 - k];
            if (system.mass[b] > con_mass[a]) {
                con_mass[a] = system.mass[b];
                con_len[a] = c.length;
            }
        }
    std::map<std::tuple<double, int, double, double, double>, double> counts;
    for (std::size_t a = 0; a < system.natoms(); ++a)
        counts[{system.mass[a], system.type[a], system.charge[a], con_mass[a], con_len[a]}] += 1.0;
    for (const auto& [key, count] : counts)
        s.classes.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), count, std::get<3>(key),
                             std::get<4>(key)});
    s.lj = system.lj;
    s.settles = static_cast<long>(system.settles.size());
    const BondedInteractions& b = system.bonded;
    s.distance_constraints = static_cast<long>(b.constraints.size());
    s.bonded_interactions = static_cast<long>(b.bonds.size() + b.g96_bonds.size() + b.angles.size() + b.g96_angles.size() +
                                              b.urey_bradley.size() + b.proper_dihedrals.size() +
                                              b.periodic_impropers.size() + b.impropers.size() + b.rb_dihedrals.size() +
                                              b.pairs.size() + b.cmap.size() + b.position_restraints.size());
    s.topology = !system.exclusions.empty() || !system.atom_name.empty();
    s.update_group_radius = system.settles.empty() ? 0.0 : make_update_groups(system).max_radius;
    static_cast<PhysicalSettings&>(s) = system;  // all of them: a new one is not forgotten here
    return s;
}

}  // namespace mdcore
