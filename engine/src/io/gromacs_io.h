#pragma once
// GROMACS-format input and output: .gro coordinates and a self-contained .top subset.
#include <stdexcept>
#include <string>
#include <vector>

#include "mdcore/gromacs_input.h"
#include "mdcore/system.h"

namespace mdcore {

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

// Writes positions (and velocities) in .gro format, with names when present.
void write_gro(const std::string& path, const System& system, const std::string& title);

// One line "fx fy fz" (kJ/mol/nm) per atom, in the given order.
void write_forces(const std::string& path, const std::vector<Vec3>& forces);

}  // namespace mdcore
