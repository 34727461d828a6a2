// .gro and force output.
#include <algorithm>

#include "io/gromacs_io.h"
#include "mdcore/output_file.h"

namespace mdcore {

void write_gro(const std::string& path, const System& system, const std::string& title) {
    const std::size_t n = system.natoms();
    const bool names = system.atom_name.size() == n;
    const bool residue_names = system.residue_name.size() == n;
    const bool residue_numbers = system.residue_number.size() == n;
    const bool velocities = system.velocities.size() == n;
    std::string one_line_title = title;
    std::replace(one_line_title.begin(), one_line_title.end(), '\n', ' ');

    OutputFile out(path);
    out.print("%s\n%5zu\n", one_line_title.c_str(), n);
    for (std::size_t i = 0; i < n; ++i) {
        // GROMACS wraps residue and atom numbers to fit their 5 columns.
        const int resnr = (residue_numbers ? system.residue_number[i] : static_cast<int>(i) + 1) % 100000;
        const int atomnr = static_cast<int>((i + 1) % 100000);
        const Vec3& x = system.positions[i];
        out.print("%5d%-5.5s%5.5s%5d%8.3f%8.3f%8.3f", resnr, residue_names ? system.residue_name[i].c_str() : "MOL",
                  names ? system.atom_name[i].c_str() : "X", atomnr, x[0], x[1], x[2]);
        if (velocities) {
            const Vec3& v = system.velocities[i];
            out.print("%8.4f%8.4f%8.4f", v[0], v[1], v[2]);
        }
        out.print("\n");
    }
    const Vec3& b = system.box.lengths;
    out.print("%10.5f%10.5f%10.5f\n", b[0], b[1], b[2]);
    out.close();
}

void write_forces(const std::string& path, const std::vector<Vec3>& forces) {
    OutputFile out(path);
    for (const Vec3& f : forces) out.print("%.6e %.6e %.6e\n", f[0], f[1], f[2]);
    out.close();
}

}  // namespace mdcore
