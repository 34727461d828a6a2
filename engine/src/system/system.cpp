#include "mdcore/system.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mdcore/units.h"
#include "system/physical_limits.h"

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

std::vector<std::uint8_t> LjMatrix::types_with_lj() const {
    std::vector<std::uint8_t> has(ntypes, 0);
    for (int k = 0; k < ntypes * ntypes; ++k)
        if (c6[k] != 0.0 || c12[k] != 0.0) has[k / ntypes] = 1;
    return has;
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

namespace {

std::string atom_label(const System& s, std::size_t a) {
    std::string label = "atom " + std::to_string(a + 1) + " of " + std::to_string(s.natoms());
    if (s.atom_name.size() == s.natoms()) label += " (" + s.atom_name[a] + ")";
    return label;
}

void require(const std::string& problem, const std::string& subject) {
    if (!problem.empty()) throw std::invalid_argument(subject + ": " + problem);
}

void validate_topology(const System& s) {
    const std::size_t n = s.natoms();
    if (!s.exclusions.empty() && s.exclusions.size() != n)
        throw std::invalid_argument("exclusion list size does not match the atom count");
    if (s.lj.ntypes != static_cast<int>(s.atom_types.size()))
        throw std::invalid_argument("LJ matrix does not match the atom types");
    for (const AtomType& t : s.atom_types) require(limits::lj_problem(t), "atom type '" + t.name + "'");
    for (std::size_t a = 0; a < s.exclusions.size(); ++a)
        for (int b : s.exclusions[a]) {
            if (b < 0 || static_cast<std::size_t>(b) >= n || b == static_cast<int>(a))
                throw std::invalid_argument("atom " + std::to_string(a) + " excludes an invalid partner " + std::to_string(b));
            if (!std::binary_search(s.exclusions[b].begin(), s.exclusions[b].end(), static_cast<int>(a)))
                throw std::invalid_argument("exclusion " + std::to_string(a) + "-" + std::to_string(b) +
                                            " is not listed from both sides (or the list is unsorted)");
        }
    for (const Settle& st : s.settles) {
        for (int i : {st.o, st.h1, st.h2})
            if (i < 0 || static_cast<std::size_t>(i) >= n)
                throw std::invalid_argument("SETTLE atom index " + std::to_string(i) + " is outside 0.." +
                                            std::to_string(n - 1));
        if (st.o == st.h1 || st.o == st.h2 || st.h1 == st.h2)
            throw std::invalid_argument("SETTLE atoms " + std::to_string(st.o) + " " + std::to_string(st.h1) + " " +
                                        std::to_string(st.h2) + " must be distinct");
        if (!(st.d_oh > 0.0 && st.d_hh > 0.0 && st.d_hh < 2.0 * st.d_oh))
            throw std::invalid_argument("SETTLE distances must satisfy 0 < dhh < 2 doh");
    }
}

// Per-atom state and parameters: finite, in the ranges of physical_limits.h.
void validate_atoms(const System& s) {
    for (std::size_t a = 0; a < s.natoms(); ++a) {
        const std::string label = atom_label(s, a);
        if (s.type[a] < 0 || s.type[a] >= s.lj.ntypes) throw std::invalid_argument(label + " has an unknown type");
        require(limits::mass_problem(s.mass[a]), label);
        require(limits::charge_problem(s.charge[a]), label);
        require(limits::position_problem(s.positions[a], s.box), label);
        require(limits::velocity_problem(s.velocities[a]), label);
    }
}

}  // namespace

void System::validate() const {
    const std::size_t n = natoms();
    if (n == 0) throw std::invalid_argument("system has zero atoms");
    require(limits::box_problem(box), "system");
    if (velocities.size() != n || type.size() != n || charge.size() != n || mass.size() != n)
        throw std::invalid_argument("per-atom arrays have inconsistent sizes");
    validate_topology(*this);
    validate_atoms(*this);
    if (!(rc > 0.0) || !std::isfinite(rc)) throw std::invalid_argument("rc must be positive");
    if (rc >= 0.5 * box.min_length())
        throw std::invalid_argument("rc " + std::to_string(rc) + " nm must be below half the shortest box edge (" +
                                    std::to_string(0.5 * box.min_length()) + " nm)");
    if (!(dt > 0.0) || !std::isfinite(dt)) throw std::invalid_argument("dt must be positive and finite");
    if (!(temperature >= 0.0) || !std::isfinite(temperature))
        throw std::invalid_argument("temperature must be non-negative and finite");
    if (!(drift_tolerance > 0.0) || !std::isfinite(drift_tolerance))
        throw std::invalid_argument("drift tolerance must be positive and finite");
}

}  // namespace mdcore
