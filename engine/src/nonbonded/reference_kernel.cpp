#include "nonbonded/reference_kernel.h"

#include <algorithm>
#include <cmath>

namespace mdcore {

ReferenceResult reference_lj_forces(const System& sys, double rc) {
    const std::size_t n = sys.natoms();
    ReferenceResult res;
    res.forces.assign(n, Vec3{0, 0, 0});
    const double rc2 = rc * rc;
    const double rc6 = 1.0 / (rc2 * rc2 * rc2);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            if (!sys.exclusions.empty() &&
                std::binary_search(sys.exclusions[i].begin(), sys.exclusions[i].end(), static_cast<int>(j)))
                continue;
            Vec3 d;
            for (int k = 0; k < 3; ++k) {
                const double L = sys.box.lengths[k];
                d[k] = sys.positions[i][k] - sys.positions[j][k];
                d[k] -= L * std::round(d[k] / L);
            }
            const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (r2 >= rc2) continue;
            ++res.pairs_in_cutoff;
            const double c6 = sys.lj.c6_at(sys.type[i], sys.type[j]);
            const double c12 = sys.lj.c12_at(sys.type[i], sys.type[j]);
            const double rinv2 = 1.0 / r2;
            const double rinv6 = rinv2 * rinv2 * rinv2;
            res.lj += c12 * (rinv6 * rinv6 - rc6 * rc6) - c6 * (rinv6 - rc6);
            const double fscal = (12.0 * c12 * rinv6 * rinv6 - 6.0 * c6 * rinv6) * rinv2;
            for (int k = 0; k < 3; ++k) {
                res.forces[i][k] += fscal * d[k];
                res.forces[j][k] -= fscal * d[k];
            }
        }
    }
    return res;
}

}  // namespace mdcore
