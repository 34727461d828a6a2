#pragma once
// GROMACS reference forces as the tests/data sets store them: a '#' header line,
// then "fx fy fz" (kJ/mol/nm) per atom in .gro order.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mdcore/system.h"

namespace mdcore::testing {

inline std::vector<Vec3> read_force_file(const std::string& path) {
    std::ifstream in(path);
    std::vector<Vec3> f;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream s(line);
        Vec3 v;
        s >> v[0] >> v[1] >> v[2];
        f.push_back(v);
    }
    return f;
}

}  // namespace mdcore::testing
