// Combines a parsed .top with a .gro into a System.
#include <algorithm>
#include <cmath>
#include <optional>

#include "io/gromacs_io.h"
#include "io/molecule_bonded.h"
#include "io/topology.h"
#include "mdcore/text_file.h"
#include "system/physical_limits.h"

namespace mdcore {
namespace {

using input::fail;

// Converts one [ atomtypes ] entry to c6/c12 and sigma/epsilon for the comb-rule.
AtomType make_atom_type(const TopAtomType& t, int comb_rule) {
    AtomType a;
    a.name = t.name;
    if (comb_rule == 1) {
        a.c6 = t.v;
        a.c12 = t.w;
        if (a.c6 > 0.0 && a.c12 > 0.0) {
            a.sigma = std::pow(a.c12 / a.c6, 1.0 / 6.0);
            a.epsilon = a.c6 * a.c6 / (4.0 * a.c12);
        }
    } else {
        a.sigma = t.v;
        a.epsilon = t.w;
        const double s6 = std::pow(a.sigma, 6);
        a.c6 = 4.0 * a.epsilon * s6;
        a.c12 = 4.0 * a.epsilon * s6 * s6;
    }
    return a;
}

// [ nonbond_params ] replace the combination rule's LJ for their type pairs.
void apply_nonbond_params(const Topology& top, const std::vector<int>& remap, LjMatrix& lj) {
    for (const auto& [types, p] : top.nonbond_params) {
        const int a = remap[types.first], b = remap[types.second];
        if (a < 0 || b < 0) continue;
        double c6 = p.v, c12 = p.w;
        if (top.defaults.comb_rule != 1) {
            const double s6 = std::pow(p.v, 6);
            c6 = 4.0 * p.w * s6;
            c12 = c6 * s6;
        }
        for (const auto& [i, j] : {std::pair{a, b}, std::pair{b, a}}) {
            lj.c6[i * lj.ntypes + j] = c6;
            lj.c12[i * lj.ntypes + j] = c12;
        }
    }
}

// Keeps only the atom types that some atom uses, in [ atomtypes ] order;
// returns the topology-index -> System-index map (-1 when unused).
std::vector<int> fill_atom_types(const Topology& top, System& sys) {
    std::vector<bool> used(top.atomtypes.size(), false);
    for (const MoleculeBlock& b : top.molecules)
        if (b.count > 0)
            for (const TopAtom& a : top.moltypes[b.moltype].atoms) used[a.type] = true;
    std::vector<int> remap(top.atomtypes.size(), -1);
    for (std::size_t i = 0; i < top.atomtypes.size(); ++i) {
        if (!used[i]) continue;
        remap[i] = static_cast<int>(sys.atom_types.size());
        const AtomType type = make_atom_type(top.atomtypes[i], top.defaults.comb_rule);
        const std::string problem = limits::lj_problem(type);
        if (!problem.empty()) fail(top.atomtypes[i].where, "atom type '" + type.name + "': " + problem);
        sys.atom_types.push_back(type);
    }
    // Comb-rule 3 (geometric sigma and epsilon) equals geometric c6 and c12.
    sys.lj = make_lj_matrix(sys.atom_types, top.defaults.comb_rule == 2 ? CombinationRule::LorentzBerthelot
                                                                         : CombinationRule::Geometric);
    apply_nonbond_params(top, remap, sys.lj);
    return remap;
}

// Sums molecule counts x atoms in 64 bits, stopping at the first block that takes
// the total past the .gro's atom count, so no sum can overflow.
void check_atom_count(const Topology& top, const std::string& top_path, const std::string& gro_path,
                      const GroFile& gro) {
    const auto gro_atoms = static_cast<long long>(gro.positions.size());
    long long total = 0;
    for (const MoleculeBlock& b : top.molecules) {
        const auto per_molecule = static_cast<long long>(top.moltypes[b.moltype].atoms.size());
        total += static_cast<long long>(b.count) * per_molecule;
        if (total > gro_atoms)
            fail({gro_path, 2}, "the .gro has " + std::to_string(gro_atoms) + " atoms but topology " + top_path +
                                    " has at least " + std::to_string(total) + " (" + std::to_string(b.count) +
                                    " molecules of " + std::to_string(per_molecule) + " atoms at " + b.where.file +
                                    ":" + std::to_string(b.where.line) + ")");
    }
    if (total != gro_atoms)
        fail({gro_path, 2}, "the .gro has " + std::to_string(gro.positions.size()) + " atoms but topology " +
                                top_path + " has " + std::to_string(total));
}

// Appends one molecule's atoms at `offset`, checking each name against the .gro.
void append_molecule(const MoleculeType& mol, const MoleculeBonded& bonded, const std::vector<int>& type_remap,
                     const GroFile& gro, const std::string& gro_path, int offset, System& sys) {
    for (std::size_t j = 0; j < mol.atoms.size(); ++j) {
        const TopAtom& atom = mol.atoms[j];
        const std::size_t i = static_cast<std::size_t>(offset) + j;
        if (gro.atom_name[i] != atom.name)
            fail({gro_path, static_cast<int>(i) + 3},
                 "atom name " + quote_excerpt(gro.atom_name[i]) + " does not match '" + atom.name + "' of molecule " +
                     mol.name + " in the topology (" + atom.where.file + ":" + std::to_string(atom.where.line) + ")");
        sys.type.push_back(type_remap[atom.type]);
        sys.charge.push_back(atom.charge);
        sys.mass.push_back(atom.mass);
    }
    for (const auto& [a, b] : bonded.exclusions) {
        sys.exclusions[offset + a].push_back(offset + b);
        sys.exclusions[offset + b].push_back(offset + a);
    }
    append_shifted(bonded.terms, offset, sys.bonded);
    if (mol.settle) {
        const TopSettle& s = *mol.settle;
        sys.settles.push_back({offset + s.o, offset + s.o + 1, offset + s.o + 2, s.d_oh, s.d_hh});
    }
}

// Sorted, duplicate-free lists; an all-empty set collapses to "no exclusions".
void finalize_exclusions(System& sys) {
    bool any = false;
    for (auto& list : sys.exclusions) {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
        any = any || !list.empty();
    }
    if (!any) sys.exclusions.clear();
}

}  // namespace

System read_gromacs_system(const std::string& gro_path, const std::string& top_path,
                          const TopologyOptions& options) {
    const Topology top = parse_topology(top_path, options.include_dirs, options.defines);
    GroFile gro = read_gro(gro_path);
    check_atom_count(top, top_path, gro_path, gro);

    System sys;
    sys.kind = "gro";
    sys.box = gro.box;
    const std::vector<int> type_remap = fill_atom_types(top, sys);
    sys.exclusions.resize(gro.positions.size());
    std::vector<std::optional<MoleculeBonded>> bonded(top.moltypes.size());
    int offset = 0;
    for (const MoleculeBlock& block : top.molecules) {
        const MoleculeType& mol = top.moltypes[block.moltype];
        auto& mol_bonded = bonded[block.moltype];
        if (!mol_bonded) mol_bonded = molecule_bonded(top, mol, options.constraints);
        for (int k = 0; k < block.count; ++k) {
            append_molecule(mol, *mol_bonded, type_remap, gro, gro_path, offset, sys);
            offset += static_cast<int>(mol.atoms.size());
        }
    }
    finalize_exclusions(sys);

    const std::size_t n = gro.positions.size();
    sys.velocities = gro.velocities.empty() ? std::vector<Vec3>(n, Vec3{0.0, 0.0, 0.0}) : std::move(gro.velocities);
    sys.positions = std::move(gro.positions);
    sys.atom_name = std::move(gro.atom_name);
    sys.residue_name = std::move(gro.residue_name);
    sys.residue_number = std::move(gro.residue_number);
    for (PositionRestraint& r : sys.bonded.position_restraints) r.reference = sys.positions[r.atom];
    if (!sys.bonded.cmap.empty()) sys.bonded.cmap_grids = cmap_grids(top);
    sys.bonded.fudge_qq = top.defaults.fudge_qq;
    sys.removed_dof = 3 + 3 * static_cast<int>(sys.settles.size()) + static_cast<int>(sys.bonded.constraints.size());
    return sys;
}

}  // namespace mdcore
