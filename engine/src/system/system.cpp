#include "mdcore/system.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mdcore/units.h"

namespace mdcore {

double Box::min_length() const { return std::min({lengths[0], lengths[1], lengths[2]}); }

bool LjMatrix::is_geometric() const {
    auto close = [](double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(std::abs(a), std::abs(b)) + 1e-300; };
    for (int a = 0; a < ntypes; ++a)
        for (int b = 0; b < ntypes; ++b) {
            if (!close(c6_at(a, b), std::sqrt(c6_at(a, a) * c6_at(b, b)))) return false;
            if (!close(c12_at(a, b), std::sqrt(c12_at(a, a) * c12_at(b, b)))) return false;
        }
    return true;
}

LjMatrix make_lj_matrix(const std::vector<AtomType>& types, CombinationRule rule) {
    LjMatrix m;
    m.ntypes = static_cast<int>(types.size());
    m.c6.resize(m.ntypes * m.ntypes);
    m.c12.resize(m.ntypes * m.ntypes);
    for (int a = 0; a < m.ntypes; ++a)
        for (int b = 0; b < m.ntypes; ++b) {
            double c6, c12;
            if (rule == CombinationRule::Geometric) {
                c6 = std::sqrt(types[a].c6 * types[b].c6);
                c12 = std::sqrt(types[a].c12 * types[b].c12);
            } else {
                const double sigma = 0.5 * (types[a].sigma + types[b].sigma);
                const double eps = std::sqrt(types[a].epsilon * types[b].epsilon);
                const double s6 = std::pow(sigma, 6);
                c6 = 4.0 * eps * s6;
                c12 = 4.0 * eps * s6 * s6;
            }
            m.c6[a * m.ntypes + b] = c6;
            m.c12[a * m.ntypes + b] = c12;
        }
    return m;
}

double System::mass_density_g_cm3() const {
    double total = 0.0;
    for (double m : mass) total += m;
    return total / box.volume() * units::kAmuPerNm3ToGPerCm3;
}

void System::validate() const {
    const std::size_t n = natoms();
    if (n == 0) throw std::invalid_argument("system has zero atoms");
    for (int d = 0; d < 3; ++d)
        if (!(box.lengths[d] > 0.0)) throw std::invalid_argument("box edge " + std::to_string(d) + " must be positive");
    if (velocities.size() != n || type.size() != n || charge.size() != n || mass.size() != n)
        throw std::invalid_argument("per-atom arrays have inconsistent sizes");
    if (!exclusions.empty() && exclusions.size() != n)
        throw std::invalid_argument("exclusion list size does not match the atom count");
    if (lj.ntypes != static_cast<int>(atom_types.size()))
        throw std::invalid_argument("LJ matrix does not match the atom types");
    for (std::size_t a = 0; a < exclusions.size(); ++a)
        for (int b : exclusions[a]) {
            if (b < 0 || static_cast<std::size_t>(b) >= n || b == static_cast<int>(a))
                throw std::invalid_argument("atom " + std::to_string(a) + " excludes an invalid partner " + std::to_string(b));
            if (!std::binary_search(exclusions[b].begin(), exclusions[b].end(), static_cast<int>(a)))
                throw std::invalid_argument("exclusion " + std::to_string(a) + "-" + std::to_string(b) +
                                            " is not listed from both sides (or the list is unsorted)");
        }
    for (std::size_t a = 0; a < n; ++a) {
        if (type[a] < 0 || type[a] >= lj.ntypes) throw std::invalid_argument("atom " + std::to_string(a) + " has an unknown type");
        if (!(mass[a] > 0.0)) throw std::invalid_argument("atom " + std::to_string(a) + " has a non-positive mass");
    }
    if (!(rc > 0.0)) throw std::invalid_argument("rc must be positive");
    if (rc >= 0.5 * box.min_length())
        throw std::invalid_argument("rc " + std::to_string(rc) + " nm must be below half the shortest box edge (" +
                                    std::to_string(0.5 * box.min_length()) + " nm)");
    if (!(dt > 0.0)) throw std::invalid_argument("dt must be positive");
    if (!(temperature >= 0.0)) throw std::invalid_argument("temperature must be non-negative");
    if (!(drift_tolerance > 0.0)) throw std::invalid_argument("drift tolerance must be positive");
}

}  // namespace mdcore
