// The .top reader: the preprocessed lines of a topology into a Topology, with
// grompp's directive order and parameter look-up. Anything mdcore cannot simulate
// is an InputError naming the file, line, include chain and directive.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

#include "io/gromacs_io.h"
#include "io/top_preprocessor.h"
#include "io/top_types.h"
#include "io/topology.h"
#include "system/physical_limits.h"

namespace mdcore {
namespace {

using input::fail;
using input::lower;
using input::parse_double;
using input::parse_int;
using input::Where;

enum class Directive {
    None, Defaults, AtomTypes, BondTypes, ConstraintTypes, PairTypes, AngleTypes, DihedralTypes, NonbondParams,
    CmapTypes, MoleculeType, Atoms, Bonds, Pairs, Angles, Dihedrals, Constraints, Cmap, PositionRestraints,
    Settles, Exclusions, System, Molecules
};

const std::map<std::string, Directive>& known_directives() {
    static const std::map<std::string, Directive> known = {
        {"defaults", Directive::Defaults},
        {"atomtypes", Directive::AtomTypes},
        {"bondtypes", Directive::BondTypes},
        {"constrainttypes", Directive::ConstraintTypes},
        {"pairtypes", Directive::PairTypes},
        {"angletypes", Directive::AngleTypes},
        {"dihedraltypes", Directive::DihedralTypes},
        {"nonbond_params", Directive::NonbondParams},
        {"cmaptypes", Directive::CmapTypes},
        {"moleculetype", Directive::MoleculeType},
        {"atoms", Directive::Atoms},
        {"bonds", Directive::Bonds},
        {"pairs", Directive::Pairs},
        {"angles", Directive::Angles},
        {"dihedrals", Directive::Dihedrals},
        {"constraints", Directive::Constraints},
        {"cmap", Directive::Cmap},
        {"position_restraints", Directive::PositionRestraints},
        {"settles", Directive::Settles},
        {"exclusions", Directive::Exclusions},
        {"system", Directive::System},
        {"molecules", Directive::Molecules},
    };
    return known;
}

bool is_molecule_directive(Directive d) {
    return d == Directive::Atoms || d == Directive::Bonds || d == Directive::Pairs || d == Directive::Angles ||
           d == Directive::Dihedrals || d == Directive::Constraints || d == Directive::Cmap ||
           d == Directive::PositionRestraints || d == Directive::Settles || d == Directive::Exclusions;
}

bool is_type_directive(Directive d) {
    return d == Directive::AtomTypes || d == Directive::BondTypes || d == Directive::ConstraintTypes ||
           d == Directive::PairTypes || d == Directive::AngleTypes || d == Directive::DihedralTypes ||
           d == Directive::NonbondParams || d == Directive::CmapTypes;
}

// What a molecule's interaction directive accepts: atoms per line, the function
// types mdcore evaluates and the number of parameters each takes.
struct SectionRule {
    TopSection section;
    const char* name;
    int natoms;
    std::map<int, int> params_of_funct;
};

const SectionRule& section_rule(Directive d) {
    static const SectionRule bonds{TopSection::Bonds, "bonds", 2, {{1, 2}, {2, 2}, {5, 0}}};
    static const SectionRule pairs{TopSection::Pairs, "pairs", 2, {{1, 2}}};
    static const SectionRule angles{TopSection::Angles, "angles", 3, {{1, 2}, {2, 2}, {5, 4}}};
    static const SectionRule dihedrals{TopSection::Dihedrals, "dihedrals", 4, {{1, 3}, {2, 2}, {3, 6}, {4, 3}, {9, 3}}};
    static const SectionRule constraints{TopSection::Constraints, "constraints", 2, {{1, 1}, {2, 1}}};
    static const SectionRule cmap{TopSection::Cmap, "cmap", 5, {{1, 0}}};
    static const SectionRule posres{TopSection::PositionRestraints, "position_restraints", 1, {{1, 3}}};
    switch (d) {
        case Directive::Bonds: return bonds;
        case Directive::Pairs: return pairs;
        case Directive::Angles: return angles;
        case Directive::Dihedrals: return dihedrals;
        case Directive::Constraints: return constraints;
        case Directive::Cmap: return cmap;
        default: return posres;
    }
}

std::string functs_of(const SectionRule& rule) {
    std::string s;
    for (const auto& [funct, n] : rule.params_of_funct) s += (s.empty() ? "" : ", ") + std::to_string(funct);
    return s;
}

class TopParser {
public:
    Topology parse(const std::string& path, const input::PreprocessOptions& options) {
        const std::vector<input::PreprocessedLine> lines = input::preprocess_topology(path, options);
        for (const input::PreprocessedLine& line : lines) parse_line(line);
        top_.end = Where{path, 1};
        for (auto it = lines.rbegin(); it != lines.rend(); ++it)
            if (it->where.file == path) {
                top_.end = it->where;
                break;
            }
        if (moltype_pending_) fail(top_.end, "the last [ moleculetype ] is missing its name nrexcl line");
        if (top_.defaults.comb_rule == 0) fail(top_.end, "the topology has no [ defaults ] directive");
        if (top_.molecules.empty()) fail(top_.end, "the topology has no [ molecules ] entries");
        return std::move(top_);
    }

private:
    void parse_line(const input::PreprocessedLine& line) {
        const std::string_view text = line.text;
        if (text.empty()) return;
        if (text.front() == '[') return parse_directive_header(line.where, text);
        parse_data(line.where, input::split_ws(text));
    }

    void parse_directive_header(const Where& where, std::string_view text) {
        if (text.back() != ']') fail(where, "malformed directive line (expected [ name ])");
        const std::string name = lower(input::trim(text.substr(1, text.size() - 2)));
        const auto& known = known_directives();
        const auto it = known.find(name);
        if (it == known.end()) {
            std::string list;
            for (const auto& [n, d] : known) list += (list.empty() ? "" : ", ") + n;
            fail(where, "directive [ " + name + " ] is not supported by mdcore (supported: " + list + ")");
        }
        check_directive_order(where, it->second, name);
        current_ = it->second;
        if (current_ == Directive::MoleculeType) moltype_pending_ = true;
    }

    void check_directive_order(const Where& where, Directive d, const std::string& name) {
        if (moltype_pending_) fail(where, "the preceding [ moleculetype ] is missing its name nrexcl line");
        const bool defaults_done = top_.defaults.comb_rule != 0;
        if (d == Directive::Defaults && (defaults_done || seen_any_directive_))
            fail(where, "[ defaults ] must be the first directive and appear only once");
        if (d != Directive::Defaults && d != Directive::System && !defaults_done)
            fail(where, "[ " + name + " ] appears before the [ defaults ] data line");
        if (is_type_directive(d) && !top_.moltypes.empty())
            fail(where, "[ " + name + " ] after the first [ moleculetype ] is not supported (grompp needs every type "
                        "before the molecules that use it)");
        if (is_molecule_directive(d) && top_.moltypes.empty())
            fail(where, "[ " + name + " ] appears outside a [ moleculetype ]");
        if (is_molecule_directive(d) && d != Directive::Atoms && top_.moltypes.back().atoms.empty())
            fail(where, "[ " + name + " ] must follow the molecule's [ atoms ]");
        if (seen_molecules_ && d != Directive::Molecules)
            fail(where, "[ " + name + " ] after [ molecules ] is not supported");
        if (d == Directive::Molecules) seen_molecules_ = true;
        seen_any_directive_ = true;
    }

    void parse_data(const Where& where, const std::vector<std::string>& t) {
        switch (current_) {
            case Directive::None: return;  // text before the first directive (force-field banners), as grompp
            case Directive::Defaults: return parse_defaults(where, t);
            case Directive::AtomTypes: return parse_atomtype(where, t);
            case Directive::BondTypes:
                return parse_bonded_type(where, t, 2, BondedTableKey::Kind::Bond, "bondtypes", section_rule(Directive::Bonds));
            case Directive::ConstraintTypes:
                return parse_bonded_type(where, t, 2, BondedTableKey::Kind::Constraint, "constrainttypes",
                                         section_rule(Directive::Constraints));
            case Directive::AngleTypes:
                return parse_bonded_type(where, t, 3, BondedTableKey::Kind::Angle, "angletypes", section_rule(Directive::Angles));
            case Directive::DihedralTypes: return parse_dihedral_type(where, t);
            case Directive::PairTypes: return parse_pair_type(where, t);
            case Directive::NonbondParams: return parse_nonbond_params(where, t);
            case Directive::CmapTypes: return parse_cmap_type(where, t);
            case Directive::MoleculeType: return parse_moleculetype(where, t);
            case Directive::Atoms: return parse_atom(where, t);
            case Directive::Bonds:
            case Directive::Pairs:
            case Directive::Angles:
            case Directive::Dihedrals:
            case Directive::Constraints:
            case Directive::Cmap:
            case Directive::PositionRestraints: return parse_interaction(where, t, section_rule(current_));
            case Directive::Settles: return parse_settle(where, t);
            case Directive::Exclusions: return parse_exclusion(where, t);
            case Directive::System: return;  // free-text title; System has no field for it
            case Directive::Molecules: return parse_molecule_block(where, t);
        }
    }

    // nbfunc comb-rule [gen-pairs [fudgeLJ [fudgeQQ]]]
    void parse_defaults(const Where& where, const std::vector<std::string>& t) {
        if (top_.defaults.comb_rule != 0) fail(where, "[ defaults ] has more than one data line");
        if (t.size() < 2 || t.size() > 5)
            fail(where, "[ defaults ] expects nbfunc comb-rule [gen-pairs fudgeLJ fudgeQQ]");
        const int nbfunc = parse_int(where, t[0], "nbfunc");
        if (nbfunc != 1) fail(where, "nbfunc " + t[0] + " is not supported (only 1 = Lennard-Jones)");
        const int comb = parse_int(where, t[1], "comb-rule");
        if (comb < 1 || comb > 3) fail(where, "comb-rule " + t[1] + " is not supported (only 1, 2 or 3)");
        TopDefaults& d = top_.defaults;
        if (t.size() > 2) {
            const std::string gp = lower(t[2]);
            if (gp != "yes" && gp != "no") fail(where, "gen-pairs must be yes or no, not '" + t[2] + "'");
            d.gen_pairs = gp == "yes";
        }
        if (t.size() > 3) d.fudge_lj = parse_double(where, t[3], "fudgeLJ");
        if (t.size() > 4) d.fudge_qq = parse_double(where, t[4], "fudgeQQ");
        if (d.fudge_lj < 0.0 || d.fudge_qq < 0.0) fail(where, "fudgeLJ and fudgeQQ must be non-negative");
        d.nbfunc = nbfunc;
        d.comb_rule = comb;
    }

    // name [bonded-type] [at.num] mass charge ptype V W: the optional middle
    // columns are identified by counting from the end, as in GROMACS.
    void parse_atomtype(const Where& where, const std::vector<std::string>& t) {
        if (t.size() < 6 || t.size() > 8)
            fail(where, "[ atomtypes ] expects name [bonded-type] [at.num] mass charge ptype V W (found " +
                            std::to_string(t.size()) + " columns)");
        const std::size_t n = t.size();
        const bool has_bonded_type = n == 8 || (n == 7 && std::isalpha(static_cast<unsigned char>(t[1][0])));
        if (n == 8 || (n == 7 && !has_bonded_type)) parse_int(where, t[n - 6], "atomic number");
        TopAtomType type;
        type.name = t[0];
        type.bonded_type = has_bonded_type ? t[1] : t[0];
        type.where = where;
        type.mass = parse_double(where, t[n - 5], "mass");
        type.charge = parse_double(where, t[n - 4], "charge");
        type.ptype = t[n - 3];
        if (type.ptype.size() != 1 || !std::isalpha(static_cast<unsigned char>(type.ptype[0])))
            fail(where, "'" + type.ptype + "' is not a particle type (expected A, S, V, D or B)");
        const bool c6c12 = top_.defaults.comb_rule == 1;
        type.v = parse_double(where, t[n - 2], c6c12 ? "c6" : "sigma");
        type.w = parse_double(where, t[n - 1], c6c12 ? "c12" : "epsilon");
        if (type.v < 0.0 || type.w < 0.0) fail(where, "negative LJ parameters are not supported");
        tables_.bonded_type_id(type.bonded_type);
        const auto existing = top_.atomtype_index.find(type.name);
        if (existing != top_.atomtype_index.end()) {
            top_.atomtypes[existing->second] = std::move(type);  // grompp: a redefinition replaces
            return;
        }
        top_.atomtype_index[type.name] = static_cast<int>(top_.atomtypes.size());
        top_.atomtypes.push_back(std::move(type));
    }

    int bonded_type_of_name(const Where& where, const std::string& name, const char* directive) {
        const int id = tables_.find_bonded_type_id(name);
        if (id == -2) fail(where, std::string("[ ") + directive + " ] names unknown bonded atom type '" + name + "'");
        return id;
    }

    std::vector<double> parse_params(const Where& where, const std::vector<std::string>& t, std::size_t first,
                                     int expected, const std::string& what) {
        const auto given = static_cast<int>(t.size() - first);
        if (given > expected)
            fail(where, what + " has " + std::to_string(given) + " parameters but takes " + std::to_string(expected) +
                            (given == 2 * expected ? " (B-state parameters for free-energy runs are not supported)" : ""));
        if (given < expected)
            fail(where, what + " has " + std::to_string(given) + " parameters but needs " + std::to_string(expected));
        std::vector<double> p;
        for (std::size_t i = first; i < t.size(); ++i) p.push_back(parse_double(where, t[i], what + " parameter"));
        return p;
    }

    int parse_funct(const Where& where, const std::string& token, const SectionRule& rule, const char* directive) {
        const int funct = parse_int(where, token, "function type");
        if (!rule.params_of_funct.count(funct))
            fail(where, std::string("[ ") + directive + " ] function type " + token +
                            " is not supported by mdcore (supported: " + functs_of(rule) + ")");
        return funct;
    }

    // [ bondtypes ], [ constrainttypes ], [ angletypes ]: types, funct, parameters.
    void parse_bonded_type(const Where& where, const std::vector<std::string>& t, int ntypes,
                           BondedTableKey::Kind kind, const char* directive, const SectionRule& rule) {
        if (static_cast<int>(t.size()) < ntypes + 1)
            fail(where, std::string("[ ") + directive + " ] expects " + std::to_string(ntypes) + " atom types and a function type");
        const int funct = parse_funct(where, t[ntypes], rule, directive);
        std::vector<int> types;
        for (int i = 0; i < ntypes; ++i) types.push_back(bonded_type_of_name(where, t[i], directive));
        const auto params = parse_params(where, t, ntypes + 1, rule.params_of_funct.at(funct), directive);
        tables_.add({kind, funct}, types, params, false, where);
    }

    // Four types and funct, or two types and funct (propers: the middle atoms;
    // impropers, type 2: the outer atoms), as grompp tells them apart.
    void parse_dihedral_type(const Where& where, const std::vector<std::string>& t) {
        const SectionRule& rule = section_rule(Directive::Dihedrals);
        const auto is_funct = [](const std::string& s) { return s.size() == 1 && std::isdigit(static_cast<unsigned char>(s[0])); };
        std::vector<std::string> names;
        int funct = 0;
        std::size_t first_param = 0;
        if (t.size() >= 3 && is_funct(t[2])) {
            funct = parse_funct(where, t[2], rule, "dihedraltypes");
            names = funct == 2 ? std::vector<std::string>{t[0], "X", "X", t[1]}
                               : std::vector<std::string>{"X", t[0], t[1], "X"};
            first_param = 3;
        } else if (t.size() >= 5 && is_funct(t[4])) {
            funct = parse_funct(where, t[4], rule, "dihedraltypes");
            names = {t[0], t[1], t[2], t[3]};
            first_param = 5;
        } else {
            fail(where, "[ dihedraltypes ] expects 2 or 4 atom types followed by a one-digit function type");
        }
        std::vector<int> types;
        for (const std::string& n : names) types.push_back(bonded_type_of_name(where, n, "dihedraltypes"));
        const auto params = parse_params(where, t, first_param, rule.params_of_funct.at(funct), "[ dihedraltypes ]");
        tables_.add({BondedTableKey::Kind::Dihedral, funct == 9 ? 1 : funct}, types, params, funct == 9, where);
    }

    int atom_type_of_name(const Where& where, const std::string& name, const char* directive) {
        const auto it = top_.atomtype_index.find(name);
        if (it == top_.atomtype_index.end())
            fail(where, std::string("[ ") + directive + " ] names unknown atom type '" + name + "'");
        return it->second;
    }

    // i j funct V W, by atom type (not bonded type), either order.
    void parse_pair_type(const Where& where, const std::vector<std::string>& t) {
        if (t.size() < 3) fail(where, "[ pairtypes ] expects i j funct V W");
        if (parse_int(where, t[2], "function type") != 1)
            fail(where, "[ pairtypes ] function type " + t[2] + " is not supported by mdcore (supported: 1)");
        const int a = atom_type_of_name(where, t[0], "pairtypes");
        const int b = atom_type_of_name(where, t[1], "pairtypes");
        const auto p = parse_params(where, t, 3, 2, "[ pairtypes ]");
        pair_types_[{std::min(a, b), std::max(a, b)}] = {p[0], p[1]};
    }

    void parse_nonbond_params(const Where& where, const std::vector<std::string>& t) {
        if (t.size() < 3) fail(where, "[ nonbond_params ] expects i j funct V W");
        if (parse_int(where, t[2], "function type") != 1)
            fail(where, "[ nonbond_params ] function type " + t[2] + " is not supported by mdcore (only 1 = Lennard-Jones)");
        const int a = atom_type_of_name(where, t[0], "nonbond_params");
        const int b = atom_type_of_name(where, t[1], "nonbond_params");
        const auto p = parse_params(where, t, 3, 2, "[ nonbond_params ]");
        if (p[0] < 0.0 || p[1] < 0.0) fail(where, "negative LJ parameters are not supported");
        top_.nonbond_params[{std::min(a, b), std::max(a, b)}] = {p[0], p[1]};
    }

    // Five bonded types, funct 1, nx ny, then nx*ny values (continuation lines joined).
    void parse_cmap_type(const Where& where, const std::vector<std::string>& t) {
        if (t.size() < 8) fail(where, "[ cmaptypes ] expects 5 atom types, funct, nx, ny and the grid values");
        if (parse_int(where, t[5], "function type") != 1)
            fail(where, "[ cmaptypes ] function type " + t[5] + " is not supported (only 1)");
        TopCmapType c;
        for (int i = 0; i < 5; ++i) {
            bonded_type_of_name(where, t[i], "cmaptypes");
            c.types[i] = t[i];
        }
        const int nx = parse_int(where, t[6], "cmap grid size nx");
        const int ny = parse_int(where, t[7], "cmap grid size ny");
        if (nx != ny || nx < 4 || nx > 360)
            fail(where, "cmap grids must be square with 4 to 360 points per side (found " + t[6] + " x " + t[7] + ")");
        const std::size_t expected = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
        if (t.size() - 8 != expected)
            fail(where, "[ cmaptypes ] grid " + t[6] + " x " + t[7] + " needs " + std::to_string(expected) +
                            " values, found " + std::to_string(t.size() - 8));
        c.n = nx;
        for (std::size_t i = 8; i < t.size(); ++i) c.values.push_back(parse_double(where, t[i], "cmap grid value"));
        top_.cmap_types.push_back(std::move(c));
    }

    void parse_moleculetype(const Where& where, const std::vector<std::string>& t) {
        if (!moltype_pending_) fail(where, "[ moleculetype ] has more than one data line");
        if (t.size() != 2) fail(where, "[ moleculetype ] expects name nrexcl");
        MoleculeType mol;
        mol.name = t[0];
        mol.nrexcl = parse_int(where, t[1], "nrexcl");
        mol.where = where;
        if (mol.nrexcl < 0 || mol.nrexcl > 10) fail(where, "nrexcl must be between 0 and 10");
        if (top_.moltype_index.count(mol.name)) fail(where, "molecule type '" + mol.name + "' is defined twice");
        top_.moltype_index[mol.name] = static_cast<int>(top_.moltypes.size());
        top_.moltypes.push_back(std::move(mol));
        moltype_pending_ = false;
    }

    // nr type resnr residue atom cgnr [charge [mass]]; defaults come from the atom type.
    void parse_atom(const Where& where, const std::vector<std::string>& t) {
        MoleculeType& mol = current_moltype(where);
        if (!mol.interactions.empty() || mol.settle || !mol.exclusions.empty())
            fail(where, "[ atoms ] of molecule '" + mol.name + "' must come before its interactions");
        if (t.size() < 6) fail(where, "[ atoms ] expects nr type resnr residue atom cgnr [charge [mass]]");
        if (t.size() > 8) fail(where, "B-state (free-energy) columns in [ atoms ] are not supported");
        const int nr = parse_int(where, t[0], "atom number");
        if (nr != static_cast<int>(mol.atoms.size()) + 1)
            fail(where, "atoms must be numbered consecutively from 1 (expected " +
                            std::to_string(mol.atoms.size() + 1) + ", found " + t[0] + ")");
        const int type_index = atom_type_of_name(where, t[1], "atoms");
        const TopAtomType& type = top_.atomtypes[type_index];
        if (type.ptype != "A")
            fail(where, "atom type '" + type.name + "' has particle type " + type.ptype +
                            "; only A (atom) is supported (virtual sites and shells are not)");
        TopAtom atom;
        atom.type = type_index;
        atom.residue_number = parse_int(where, t[2], "residue number");
        atom.residue_name = t[3];
        atom.name = t[4];
        parse_int(where, t[5], "charge group number");
        atom.charge = t.size() > 6 ? parse_double(where, t[6], "charge") : type.charge;
        atom.mass = t.size() > 7 ? parse_double(where, t[7], "mass") : type.mass;
        for (const std::string& problem : {limits::mass_problem(atom.mass), limits::charge_problem(atom.charge)})
            if (!problem.empty()) fail(where, "atom '" + atom.name + "': " + problem);
        atom.where = where;
        mol.atoms.push_back(std::move(atom));
    }

    // Atom indices (1-based in the file), funct, optional parameters; parameters
    // missing from the line come from the type tables.
    void parse_interaction(const Where& where, const std::vector<std::string>& t, const SectionRule& rule) {
        MoleculeType& mol = current_moltype(where);
        const auto natoms_mol = static_cast<int>(mol.atoms.size());
        if (static_cast<int>(t.size()) < rule.natoms + 1)
            fail(where, std::string("[ ") + rule.name + " ] expects " + std::to_string(rule.natoms) +
                            " atom indices and a function type");
        TopInteraction in;
        in.section = rule.section;
        in.natoms = rule.natoms;
        for (int i = 0; i < rule.natoms; ++i) {
            const long a = input::to_long(t[i]).value_or(0);
            if (a < 1 || a > natoms_mol)
                fail(where, std::string("[ ") + rule.name + " ] atom '" + t[i] + "' is not an atom of molecule '" +
                                mol.name + "' (1.." + std::to_string(natoms_mol) + ")");
            in.atoms[i] = static_cast<int>(a - 1);
        }
        for (int i = 0; i < rule.natoms; ++i)
            for (int j = i + 1; j < rule.natoms; ++j)
                if (in.atoms[i] == in.atoms[j])
                    fail(where, std::string("[ ") + rule.name + " ] uses atom " + t[i] + " twice");
        in.funct = parse_funct(where, t[rule.natoms], rule, rule.name);
        const int nparams = rule.params_of_funct.at(in.funct);
        const std::string what = std::string("[ ") + rule.name + " ] type " + std::to_string(in.funct);
        in.where_index = static_cast<int>(mol.wheres.size());
        mol.wheres.push_back(where);
        if (t.size() > static_cast<std::size_t>(rule.natoms + 1) || nparams == 0) {
            in.params = parse_params(where, t, rule.natoms + 1, nparams, what);
            if (rule.section == TopSection::Cmap) in.params = {static_cast<double>(find_cmap_type(where, mol, in))};
            return add_interaction(mol, std::move(in));
        }
        for (std::vector<double>& p : default_params(where, mol, in, what)) {
            TopInteraction term = in;
            term.params = std::move(p);
            add_interaction(mol, std::move(term));
        }
    }

    static void add_interaction(MoleculeType& mol, TopInteraction&& in) { mol.interactions.push_back(std::move(in)); }

    std::vector<std::vector<double>> default_params(const Where& where, const MoleculeType& mol,
                                                    const TopInteraction& in, const std::string& what) {
        if (in.section == TopSection::Pairs) return {pair_params(where, mol, in)};
        if (in.section == TopSection::PositionRestraints)
            fail(where, what + " needs its force constants on the line");
        using Kind = BondedTableKey::Kind;
        const Kind kind = in.section == TopSection::Bonds         ? Kind::Bond
                          : in.section == TopSection::Constraints ? Kind::Constraint
                          : in.section == TopSection::Angles      ? Kind::Angle
                                                                  : Kind::Dihedral;
        const int funct = kind == Kind::Dihedral && in.funct == 9 ? 1 : in.funct;
        std::vector<int> types;
        std::string names;
        for (int i = 0; i < in.natoms; ++i) {
            const TopAtomType& at = top_.atomtypes[mol.atoms[in.atoms[i]].type];
            types.push_back(tables_.find_bonded_type_id(at.bonded_type));
            names += (i ? " " : "") + at.bonded_type;
        }
        std::vector<std::vector<double>> found;
        for (const std::vector<double>* p : tables_.find({kind, funct}, types)) found.push_back(*p);
        if (found.empty()) fail(where, what + ": no parameters on the line and no default for bonded types " + names);
        return found;
    }

    // A 1-4 pair's LJ: [ pairtypes ] first; else, with gen-pairs, the types'
    // combined LJ scaled by fudgeLJ (epsilon only for the sigma-epsilon rules).
    std::vector<double> pair_params(const Where& where, const MoleculeType& mol, const TopInteraction& in) {
        const int a = mol.atoms[in.atoms[0]].type, b = mol.atoms[in.atoms[1]].type;
        const std::pair<int, int> key{std::min(a, b), std::max(a, b)};
        if (const auto it = pair_types_.find(key); it != pair_types_.end()) return {it->second.v, it->second.w};
        if (!top_.defaults.gen_pairs)
            fail(where, "[ pairs ]: no [ pairtypes ] entry for atom types " + top_.atomtypes[a].name + " " +
                            top_.atomtypes[b].name + " and gen-pairs is no");
        TopPairParameters p;
        if (const auto nb = top_.nonbond_params.find(key); nb != top_.nonbond_params.end()) {
            p = nb->second;
        } else {
            const TopAtomType &ta = top_.atomtypes[a], &tb = top_.atomtypes[b];
            if (top_.defaults.comb_rule == 2) p = {0.5 * (ta.v + tb.v), std::sqrt(ta.w * tb.w)};
            else p = {std::sqrt(ta.v * tb.v), std::sqrt(ta.w * tb.w)};
        }
        const double fudge = top_.defaults.fudge_lj;
        if (top_.defaults.comb_rule == 1) p = {fudge * p.v, fudge * p.w};
        else p.w *= fudge;
        return {p.v, p.w};
    }

    int find_cmap_type(const Where& where, const MoleculeType& mol, const TopInteraction& in) {
        std::array<std::string, 5> types;
        for (int i = 0; i < 5; ++i) types[i] = top_.atomtypes[mol.atoms[in.atoms[i]].type].bonded_type;
        for (std::size_t c = 0; c < top_.cmap_types.size(); ++c)
            if (top_.cmap_types[c].types == types) return static_cast<int>(c);
        fail(where, "[ cmap ]: no [ cmaptypes ] entry for bonded types " + types[0] + " " + types[1] + " " + types[2] +
                        " " + types[3] + " " + types[4]);
    }

    // OW funct doh dhh: atoms OW, OW+1, OW+2 form one rigid water.
    void parse_settle(const Where& where, const std::vector<std::string>& t) {
        MoleculeType& mol = current_moltype(where);
        if (t.size() != 4) fail(where, "[ settles ] expects OW funct doh dhh");
        const long ow = input::to_long(t[0]).value_or(0);
        // ow > natoms - 2, not ow + 2 > natoms: ow may be as large as a long holds.
        if (ow < 1 || ow > static_cast<long>(mol.atoms.size()) - 2)
            fail(where, "settle oxygen " + t[0] + " needs atoms " + t[0] + " to " + t[0] + " + 2 but the molecule has " +
                            std::to_string(mol.atoms.size()));
        if (parse_int(where, t[1], "settle function type") != 1) fail(where, "settle function type must be 1");
        TopSettle s{static_cast<int>(ow) - 1, parse_double(where, t[2], "doh"), parse_double(where, t[3], "dhh")};
        if (!(s.d_oh > 0.0) || !(s.d_hh > 0.0) || !(s.d_hh < 2.0 * s.d_oh))
            fail(where, "settle distances must satisfy 0 < dhh < 2 doh");
        if (mol.settle) fail(where, "only one settle per molecule type is supported");
        mol.settle = s;
    }

    // ai aj ak ...: ai is excluded from each of the others.
    void parse_exclusion(const Where& where, const std::vector<std::string>& t) {
        MoleculeType& mol = current_moltype(where);
        const auto natoms = static_cast<long>(mol.atoms.size());
        std::vector<int> idx;
        for (const std::string& s : t) {
            const long i = input::to_long(s).value_or(0);
            if (i < 1 || i > natoms)
                fail(where, "exclusion atom " + s + " is outside the molecule (1.." + std::to_string(natoms) + ")");
            idx.push_back(static_cast<int>(i) - 1);
        }
        for (std::size_t k = 1; k < idx.size(); ++k) {
            if (idx[k] == idx[0]) fail(where, "atom " + t[0] + " cannot exclude itself");
            mol.exclusions.emplace_back(std::min(idx[0], idx[k]), std::max(idx[0], idx[k]));
        }
    }

    void parse_molecule_block(const Where& where, const std::vector<std::string>& t) {
        if (t.size() != 2) fail(where, "[ molecules ] expects name count");
        const auto it = top_.moltype_index.find(t[0]);
        if (it == top_.moltype_index.end()) fail(where, "unknown molecule type '" + t[0] + "'");
        const int count = parse_int(where, t[1], "molecule count");
        if (count < 0) fail(where, "molecule count must be non-negative");
        if (count > 0 && top_.moltypes[it->second].atoms.empty())
            fail(where, "molecule type '" + t[0] + "' has no [ atoms ]");
        top_.molecules.push_back({it->second, count, where});
    }

    MoleculeType& current_moltype(const Where& where) {
        if (moltype_pending_) fail(where, "[ moleculetype ] is missing its name nrexcl line");
        return top_.moltypes.back();
    }

    Topology top_;
    BondedTypeTables tables_;
    std::map<std::pair<int, int>, TopPairParameters> pair_types_;
    Directive current_ = Directive::None;
    bool moltype_pending_ = false;
    bool seen_any_directive_ = false;
    bool seen_molecules_ = false;
};

}  // namespace

Topology parse_topology(const std::string& path, const std::vector<std::string>& include_dirs,
                        const std::vector<std::pair<std::string, std::string>>& defines) {
    input::PreprocessOptions options;
    options.include_dirs = include_dirs;
    options.defines = defines;
    return TopParser().parse(path, options);
}

}  // namespace mdcore
