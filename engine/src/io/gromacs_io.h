#pragma once
// GROMACS-format input and output: .gro coordinates and a self-contained .top subset.
#include <stdexcept>
#include <string>
#include <vector>

#include "mdcore/system.h"

namespace mdcore {

// Thrown for malformed or unsupported input; what() names file, line and directive.
struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct GroFile {
    std::string title;
    std::vector<int> residue_number;
    std::vector<std::string> residue_name;
    std::vector<std::string> atom_name;
    std::vector<Vec3> positions;   // nm
    std::vector<Vec3> velocities;  // nm/ps; empty when the file has none
    Box box;                       // rectangular only (triclinic boxes are rejected)
};

GroFile read_gro(const std::string& path);
// The same from text in memory (name is used in error messages) or from lines.
GroFile parse_gro_text(const std::string& text, const std::string& name);
GroFile parse_gro_lines(const std::vector<std::string>& lines, const std::string& name);

// Builds a System from a .gro and a .top. Supported .top subset: [ defaults ]
// (nbfunc 1, comb-rule 1, 2, 3), [ atomtypes ], [ moleculetype ], [ atoms ],
// [ settles ], [ exclusions ], [ system ], [ molecules ], ';' comments and
// #include "file" relative to the including file. Anything else is an InputError
// naming the file, line and directive. Atom names/count in the .gro must match
// the topology. Fills types (one per atomtype used), charges, masses, symmetric
// exclusions (all intramolecular pairs of a settled molecule plus [ exclusions ]),
// settles (d_oh, d_hh from the directive), removed_dof = 3 + 3 * settles.
// Physical settings (rc, dt, ...) keep System's defaults; the caller sets them.
System read_gromacs_system(const std::string& gro_path, const std::string& top_path);

// Writes positions (and velocities) in .gro format, with names when present.
void write_gro(const std::string& path, const System& system, const std::string& title);

// One line "fx fy fz" (kJ/mol/nm) per atom, in the given order.
void write_forces(const std::string& path, const std::vector<Vec3>& forces);

}  // namespace mdcore
