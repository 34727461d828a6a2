#pragma once
// The supported .top subset as parsed data, before it is combined with a .gro
// into a System (see read_gromacs_system in io/gromacs_io.h for the subset).
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/text_input.h"

namespace mdcore {

// #include nesting accepted; deeper chains are refused before they exhaust the
// stack (GROMACS' cpp has a similar limit).
inline constexpr int kMaxIncludeDepth = 64;

struct TopAtomType {
    std::string name;
    double mass = 0.0;
    double charge = 0.0;
    std::string ptype;
    double v = 0.0, w = 0.0;  // c6/c12 (comb-rule 1) or sigma/epsilon (2, 3)
    input::Where where;
};

struct TopAtom {
    int type = 0;  // index into Topology::atomtypes
    std::string name;
    double charge = 0.0;
    double mass = 0.0;
    input::Where where;
};

struct TopSettle {
    int o = 0;  // 0-based within the molecule; hydrogens follow at o+1, o+2
    double d_oh = 0.0, d_hh = 0.0;
};

struct MoleculeType {
    std::string name;
    int nrexcl = 0;
    std::vector<TopAtom> atoms;
    std::optional<TopSettle> settle;
    std::vector<std::pair<int, int>> exclusions;  // 0-based, first < second
};

struct MoleculeBlock {
    int moltype = 0;
    int count = 0;
    input::Where where;
};

struct Topology {
    int comb_rule = 0;  // 0 until [ defaults ] is read
    std::vector<TopAtomType> atomtypes;
    std::map<std::string, int> atomtype_index;
    std::vector<MoleculeType> moltypes;
    std::map<std::string, int> moltype_index;
    std::vector<MoleculeBlock> molecules;
    input::Where end;  // last line of the top-level file, for whole-topology errors
};

// Parses a .top (and its #include files); throws InputError naming file and line.
Topology parse_topology(const std::string& path);

}  // namespace mdcore
