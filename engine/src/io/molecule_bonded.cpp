// Molecule types' interactions in the engine's form (see molecule_bonded.h).
#include "io/molecule_bonded.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>

namespace mdcore {
namespace {

constexpr double kDegree = std::numbers::pi / 180.0;

bool is_hydrogen(const TopAtom& atom) {
    return !atom.name.empty() && std::toupper(static_cast<unsigned char>(atom.name[0])) == 'H';
}

bool becomes_constraint(const MoleculeType& mol, const TopInteraction& in, ConstraintMode mode) {
    if (in.section != TopSection::Bonds || (in.funct != 1 && in.funct != 2)) return false;
    if (mode == ConstraintMode::AllBonds) return true;
    return mode == ConstraintMode::HBonds && (is_hydrogen(mol.atoms[in.atoms[0]]) || is_hydrogen(mol.atoms[in.atoms[1]]));
}

// c6, c12 of a pair's (v, w) under the topology's combination rule.
std::pair<double, double> lj_c6_c12(int comb_rule, double v, double w) {
    if (comb_rule == 1) return {v, w};
    const double s6 = std::pow(v, 6);
    return {4.0 * w * s6, 4.0 * w * s6 * s6};
}

// grompp leaves out torsions with a zero force constant and angles, impropers
// and Ryckaert-Bellemans terms whose parameters are all zero: they do nothing.
bool is_null_term(const TopInteraction& in) {
    const auto& p = in.params;
    if (in.section == TopSection::Dihedrals && (in.funct == 1 || in.funct == 4 || in.funct == 9)) return p[1] == 0.0;
    if (in.section == TopSection::Angles || (in.section == TopSection::Dihedrals))
        return std::all_of(p.begin(), p.end(), [](double v) { return v == 0.0; });
    return false;
}

void add_term(const Topology& top, const MoleculeType& mol, const TopInteraction& in, ConstraintMode mode,
              BondedInteractions& out) {
    const auto& a = in.atoms;
    const auto& p = in.params;
    if (is_null_term(in)) return;
    switch (in.section) {
        case TopSection::Bonds:
            if (in.funct == 5) return;  // a connection: exclusions only
            if (becomes_constraint(mol, in, mode)) {
                out.constraints.push_back({{a[0], a[1]}, p[0]});
            } else if (in.funct == 1) {
                out.bonds.push_back({{a[0], a[1]}, p[0], p[1]});
            } else {
                out.g96_bonds.push_back({{a[0], a[1]}, p[0], p[1]});
            }
            return;
        case TopSection::Pairs: {
            const auto [c6, c12] = lj_c6_c12(top.defaults.comb_rule, p[0], p[1]);
            const double qq = top.defaults.fudge_qq * mol.atoms[a[0]].charge * mol.atoms[a[1]].charge;
            out.pairs.push_back({{a[0], a[1]}, c6, c12, qq});
            return;
        }
        case TopSection::Angles:
            if (in.funct == 1) out.angles.push_back({{a[0], a[1], a[2]}, p[0] * kDegree, p[1]});
            else if (in.funct == 2) out.g96_angles.push_back({{a[0], a[1], a[2]}, std::cos(p[0] * kDegree), p[1]});
            else out.urey_bradley.push_back({{a[0], a[1], a[2]}, p[0] * kDegree, p[1], p[2], p[3]});
            return;
        case TopSection::Dihedrals: {
            const std::array<int, 4> d{a[0], a[1], a[2], a[3]};
            if (in.funct == 1 || in.funct == 9)
                out.proper_dihedrals.push_back({d, p[0] * kDegree, p[1], static_cast<int>(std::lround(p[2]))});
            else if (in.funct == 4)
                out.periodic_impropers.push_back({d, p[0] * kDegree, p[1], static_cast<int>(std::lround(p[2]))});
            else if (in.funct == 2)
                out.impropers.push_back({d, p[0] * kDegree, p[1]});
            else
                out.rb_dihedrals.push_back({d, {p[0], p[1], p[2], p[3], p[4], p[5]}});
            return;
        }
        case TopSection::Constraints: out.constraints.push_back({{a[0], a[1]}, p[0]}); return;
        case TopSection::Cmap:
            out.cmap.push_back({{a[0], a[1], a[2], a[3], a[4]}, static_cast<int>(p[0])});
            return;
        case TopSection::PositionRestraints: out.position_restraints.push_back({a[0], {}, {p[0], p[1], p[2]}}); return;
    }
}

// Chemical bonds for the exclusion graph: every bond type (connections too),
// type-1 constraints and the two O-H bonds of a settled water, as grompp counts them.
std::vector<std::vector<int>> bond_graph(const MoleculeType& mol) {
    std::vector<std::vector<int>> graph(mol.atoms.size());
    auto link = [&](int i, int j) {
        graph[i].push_back(j);
        graph[j].push_back(i);
    };
    for (const TopInteraction& in : mol.interactions)
        if (in.section == TopSection::Bonds || (in.section == TopSection::Constraints && in.funct == 1))
            link(in.atoms[0], in.atoms[1]);
    if (mol.settle) {
        link(mol.settle->o, mol.settle->o + 1);
        link(mol.settle->o, mol.settle->o + 2);
    }
    for (auto& neighbours : graph) {
        std::sort(neighbours.begin(), neighbours.end());
        neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
    }
    return graph;
}

// Pairs within nrexcl bonds (breadth-first from each atom), the explicit
// [ exclusions ], and every pair of a settled molecule.
std::vector<std::pair<int, int>> exclusions_of(const MoleculeType& mol) {
    std::vector<std::pair<int, int>> pairs = mol.exclusions;
    const auto n = static_cast<int>(mol.atoms.size());
    if (mol.settle)
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j) pairs.emplace_back(i, j);
    if (mol.nrexcl > 0) {
        const auto graph = bond_graph(mol);
        std::vector<int> depth(n, -1);
        std::vector<int> frontier, next, seen;
        for (int start = 0; start < n; ++start) {
            if (graph[start].empty()) continue;
            frontier.assign(1, start);
            seen.assign(1, start);
            depth[start] = 0;
            for (int d = 1; d <= mol.nrexcl && !frontier.empty(); ++d) {
                next.clear();
                for (int i : frontier)
                    for (int j : graph[i])
                        if (depth[j] < 0) {
                            depth[j] = d;
                            next.push_back(j);
                            seen.push_back(j);
                            if (j > start) pairs.emplace_back(start, j);
                        }
                frontier.swap(next);
            }
            for (int i : seen) depth[i] = -1;
        }
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    return pairs;
}

template <class T>
void append_all(const std::vector<T>& from, int offset, std::vector<T>& to) {
    to.reserve(to.size() + from.size());
    for (T t : from) {
        for (int& i : t.atoms) i += offset;
        to.push_back(t);
    }
}

}  // namespace

MoleculeBonded molecule_bonded(const Topology& top, const MoleculeType& mol, ConstraintMode constraints) {
    MoleculeBonded out;
    for (const TopInteraction& in : mol.interactions) add_term(top, mol, in, constraints, out.terms);
    out.terms.fudge_qq = top.defaults.fudge_qq;
    out.exclusions = exclusions_of(mol);
    return out;
}

void append_shifted(const BondedInteractions& mol, int offset, BondedInteractions& out) {
    append_all(mol.bonds, offset, out.bonds);
    append_all(mol.g96_bonds, offset, out.g96_bonds);
    append_all(mol.angles, offset, out.angles);
    append_all(mol.g96_angles, offset, out.g96_angles);
    append_all(mol.urey_bradley, offset, out.urey_bradley);
    append_all(mol.proper_dihedrals, offset, out.proper_dihedrals);
    append_all(mol.periodic_impropers, offset, out.periodic_impropers);
    append_all(mol.impropers, offset, out.impropers);
    append_all(mol.rb_dihedrals, offset, out.rb_dihedrals);
    append_all(mol.pairs, offset, out.pairs);
    append_all(mol.cmap, offset, out.cmap);
    append_all(mol.constraints, offset, out.constraints);
    out.position_restraints.reserve(out.position_restraints.size() + mol.position_restraints.size());
    for (PositionRestraint r : mol.position_restraints) {
        r.atom += offset;
        out.position_restraints.push_back(r);
    }
}

std::vector<CmapGrid> cmap_grids(const Topology& top) {
    std::vector<CmapGrid> grids;
    for (const TopCmapType& c : top.cmap_types) grids.push_back({c.n, c.values});
    return grids;
}

}  // namespace mdcore
