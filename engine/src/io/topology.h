#pragma once
// A GROMACS .top as parsed data, before it is combined with a .gro into a System
// (io/gromacs_system.cpp). Bonded parameters are resolved while reading, as grompp
// does: a molecule's interaction takes its parameters from its own line or from
// the [ *types ] directives read before it (io/top_types.h).
#include <array>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/text_input.h"
#include "io/top_preprocessor.h"

namespace mdcore {

using input::kMaxIncludeDepth;

struct TopDefaults {
    int nbfunc = 0;
    int comb_rule = 0;  // 0 until [ defaults ] is read
    bool gen_pairs = false;
    double fudge_lj = 1.0;
    double fudge_qq = 1.0;
};

struct TopAtomType {
    std::string name;
    std::string bonded_type;  // the name [ *types ] directives match; the type's name when absent
    double mass = 0.0;
    double charge = 0.0;
    std::string ptype;
    double v = 0.0, w = 0.0;  // c6/c12 (comb-rule 1) or sigma/epsilon (2, 3)
    input::Where where;
};

struct TopAtom {
    int type = 0;  // index into Topology::atomtypes
    std::string name;
    int residue_number = 0;
    std::string residue_name;
    double charge = 0.0;
    double mass = 0.0;
    input::Where where;
};

struct TopSettle {
    int o = 0;  // 0-based within the molecule; hydrogens follow at o+1, o+2
    double d_oh = 0.0, d_hh = 0.0;
};

// The interaction directives of a molecule. Each has the function types it accepts
// and the number of parameters each takes (io/top_reader.cpp).
enum class TopSection { Bonds, Pairs, Angles, Dihedrals, Constraints, Cmap, PositionRestraints };

// One interaction of a molecule with its parameters (GROMACS' units and order, as
// in the .top: degrees for angles). A type-9 dihedral that matches several
// [ dihedraltypes ] lines becomes one entry per line.
struct TopInteraction {
    TopSection section = TopSection::Bonds;
    int funct = 0;
    std::array<int, 5> atoms{};  // 0-based within the molecule; the first natoms are used
    int natoms = 0;
    std::vector<double> params;
    int where_index = 0;  // into MoleculeType::wheres (shared by the terms of one line)
};

struct MoleculeType {
    std::string name;
    int nrexcl = 0;
    std::vector<TopAtom> atoms;
    std::optional<TopSettle> settle;
    std::vector<std::pair<int, int>> exclusions;  // 0-based, first < second
    std::vector<TopInteraction> interactions;
    std::vector<input::Where> wheres;  // where each interaction line was read
    input::Where where;                // the [ moleculetype ] line
};

struct MoleculeBlock {
    int moltype = 0;
    int count = 0;
    input::Where where;
};

// A [ cmaptypes ] grid: five bonded types, grid points per dimension, values (kJ/mol).
struct TopCmapType {
    std::array<std::string, 5> types;
    int n = 0;
    std::vector<double> values;
};

// LJ parameters of one pair of atom types from [ nonbond_params ] (comb-rule 1:
// c6, c12; else sigma, epsilon).
struct TopPairParameters {
    double v = 0.0, w = 0.0;
};

struct Topology {
    TopDefaults defaults;
    std::vector<TopAtomType> atomtypes;
    std::map<std::string, int> atomtype_index;
    std::map<std::pair<int, int>, TopPairParameters> nonbond_params;  // atom type pair, first <= second
    std::vector<TopCmapType> cmap_types;
    std::vector<MoleculeType> moltypes;
    std::map<std::string, int> moltype_index;
    std::vector<MoleculeBlock> molecules;
    input::Where end;  // last line of the top-level file, for whole-topology errors
};

// Parses a .top (and its #include files, searched as grompp does) with the given
// include folders and defines; throws InputError naming file, line and include chain.
Topology parse_topology(const std::string& path, const std::vector<std::string>& include_dirs = {},
                        const std::vector<std::pair<std::string, std::string>>& defines = {});

}  // namespace mdcore
