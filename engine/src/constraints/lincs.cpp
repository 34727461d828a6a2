#include "constraints/lincs.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace mdcore {

namespace {

constexpr double kDegToRad = 3.14159265358979323846 / 180.0;

[[noreturn]] void fail(int constraint, const DistanceConstraint& c, const std::string& why) {
    throw std::invalid_argument("LINCS: constraint " + std::to_string(constraint) + " (atoms " +
                                std::to_string(c.atoms[0]) + " " + std::to_string(c.atoms[1]) + "): " + why);
}

// Minimum image of a difference vector in a rectangular box (edge 0: not periodic).
struct MinImage {
    std::array<double, 3> box{}, inv{};
    explicit MinImage(const std::array<double, 3>& b) : box(b) {
        for (int d = 0; d < 3; ++d) inv[d] = b[d] > 0.0 ? 1.0 / b[d] : 0.0;
    }
    double operator()(double dx, int d) const { return inv[d] != 0.0 ? dx - box[d] * std::round(dx * inv[d]) : dx; }
};

int find_root(std::vector<int>& parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

}  // namespace

Lincs::Lincs(const std::vector<DistanceConstraint>& constraints, const std::vector<double>& inv_mass,
             const LincsSettings& settings, int num_threads)
    : settings_(settings), natoms_(static_cast<int>(inv_mass.size())), nc_(static_cast<int>(constraints.size())) {
    if (settings.order < 0 || settings.iterations < 0) {
        throw std::invalid_argument("LINCS: order and iterations must not be negative");
    }
    for (int a = 0; a < natoms_; ++a) {
        if (!(inv_mass[a] >= 0.0) || !std::isfinite(inv_mass[a])) {
            throw std::invalid_argument("LINCS: atom " + std::to_string(a) + " has an invalid inverse mass");
        }
    }
    std::vector<std::vector<int>> at2con(natoms_);
    for (int c = 0; c < nc_; ++c) {
        const DistanceConstraint& k = constraints[c];
        const int a = k.atoms[0], b = k.atoms[1];
        if (a < 0 || a >= natoms_ || b < 0 || b >= natoms_) fail(c, k, "atom index out of range");
        if (a == b) fail(c, k, "an atom cannot be constrained to itself");
        if (!(k.length > 0.0) || !std::isfinite(k.length)) fail(c, k, "length must be positive");
        if (inv_mass[a] == 0.0 && inv_mass[b] == 0.0) fail(c, k, "both atoms are massless");
        for (int o : at2con[a]) {
            // A pair constrained twice makes the LINCS matrix singular.
            if (constraints[o].atoms[0] == b || constraints[o].atoms[1] == b) fail(c, k, "pair is already constrained");
        }
        at2con[a].push_back(c);
        at2con[b].push_back(c);
    }

    // Coupled constraints (connected through shared atoms) become contiguous,
    // components in order of their first constraint, input order inside.
    std::vector<int> parent(nc_);
    std::iota(parent.begin(), parent.end(), 0);
    for (const auto& list : at2con) {
        for (std::size_t i = 1; i < list.size(); ++i) {
            const int r0 = find_root(parent, list[0]), r1 = find_root(parent, list[i]);
            if (r0 != r1) parent[std::max(r0, r1)] = std::min(r0, r1);  // root = lowest index
        }
    }
    std::vector<int> comp(nc_);
    for (int c = 0; c < nc_; ++c) comp[c] = find_root(parent, c);
    input_index_.resize(nc_);
    std::iota(input_index_.begin(), input_index_.end(), 0);
    std::stable_sort(input_index_.begin(), input_index_.end(), [&](int p, int q) { return comp[p] < comp[q]; });
    std::vector<int> pos(nc_);
    for (int b = 0; b < nc_; ++b) pos[input_index_[b]] = b;

    atom1_.resize(nc_);
    atom2_.resize(nc_);
    len_.resize(nc_);
    blc_.resize(nc_);
    for (int b = 0; b < nc_; ++b) {
        const DistanceConstraint& k = constraints[input_index_[b]];
        atom1_[b] = k.atoms[0];
        atom2_[b] = k.atoms[1];
        len_[b] = k.length;
        blc_[b] = 1.0 / std::sqrt(inv_mass[k.atoms[0]] + inv_mass[k.atoms[1]]);
    }
    slot1_ = atom1_;
    slot2_ = atom2_;

    // Normalised coupling: with S = diag(blc), S B M^-1 B^T S = I - A, where
    // A_bk = -s_b(c) s_k(c) invm_c blc_b blc_k (r_b . r_k) for the shared atom c and
    // s = +1 on a constraint's first atom, -1 on its second. blmf keeps all but the dot product.
    auto side = [&](int b, int atom) { return atom == atom1_[b] ? 1.0 : -1.0; };
    blnr_.assign(nc_ + 1, 0);
    for (int b = 0; b < nc_; ++b) {
        std::vector<std::pair<int, double>> row;
        for (int centre : {atom1_[b], atom2_[b]}) {
            for (int c : at2con[centre]) {
                const int k = pos[c];
                if (k == b) continue;
                row.emplace_back(k, -side(b, centre) * side(k, centre) * inv_mass[centre] * blc_[b] * blc_[k]);
            }
        }
        std::sort(row.begin(), row.end());
        for (const auto& [k, f] : row) {
            blbnb_.push_back(k);
            blmf_.push_back(f);
        }
        blnr_[b + 1] = static_cast<int>(blbnb_.size());
    }

    // Triangles: b couples to k, and k to a third constraint holding b's other atom.
    // Those couplings get the extra expansion (their eigenvalues reach about 0.7).
    tri_nr_.push_back(0);
    for (int b = 0; b < nc_; ++b) {
        for (int n = blnr_[b]; n < blnr_[b + 1]; ++n) {
            const int k = blbnb_[n];
            const bool first_shared = atom1_[b] == atom1_[k] || atom1_[b] == atom2_[k];
            const int end = first_shared ? atom2_[b] : atom1_[b];
            bool closes = false;
            for (int nk = blnr_[k]; nk < blnr_[k + 1]; ++nk) {
                const int kk = blbnb_[nk];
                if (kk != b && kk != k && (atom1_[kk] == end || atom2_[kk] == end)) closes = true;
            }
            if (closes) tri_entry_.push_back(n);
        }
        if (static_cast<int>(tri_entry_.size()) > tri_nr_.back()) {
            tri_con_.push_back(b);
            tri_nr_.push_back(static_cast<int>(tri_entry_.size()));
        }
    }

    // Thread ranges. Prefer component boundaries (no barriers); when that leaves the
    // work too uneven, split uniformly but never inside a triangle, whose extra
    // expansion runs without barriers.
    ntask_ = std::max(1, std::min(num_threads, nc_));
    const std::size_t nbounds = static_cast<std::size_t>(std::max(nc_, 0)) + 1;  // GCC cannot see that nc_ >= 0
    std::vector<char> comp_start(nbounds, 0), blocked(nbounds, 0);
    comp_start.front() = comp_start.back() = 1;
    for (int b = 1; b < nc_; ++b) comp_start[b] = comp[input_index_[b]] != comp[input_index_[b - 1]];
    {
        std::vector<int> diff(nc_ + 2, 0);
        for (std::size_t t = 0; t < tri_con_.size(); ++t) {
            for (int e = tri_nr_[t]; e < tri_nr_[t + 1]; ++e) {
                const int lo = std::min(tri_con_[t], blbnb_[tri_entry_[e]]);
                const int hi = std::max(tri_con_[t], blbnb_[tri_entry_[e]]);
                ++diff[lo + 1];  // boundaries lo+1..hi would split the pair
                --diff[hi + 1];
            }
        }
        int run = 0;
        for (int p = 0; p <= nc_; ++p) {
            run += diff[p];
            blocked[p] = run > 0;
        }
    }
    auto split = [&](bool aligned) {
        std::vector<int> begin(ntask_ + 1, 0);
        begin[ntask_] = nc_;
        for (int t = 1; t < ntask_; ++t) {
            int p = std::max(begin[t - 1], static_cast<int>((static_cast<long long>(t) * nc_ + ntask_ / 2) / ntask_));
            while (p < nc_ && (aligned ? !comp_start[p] : blocked[p] != 0)) ++p;
            begin[t] = p;
        }
        return begin;
    };
    task_begin_ = split(true);
    int largest = 0;
    for (int t = 0; t < ntask_; ++t) largest = std::max(largest, task_begin_[t + 1] - task_begin_[t]);
    const int even = (nc_ + ntask_ - 1) / ntask_;
    dependent_ = ntask_ > 1 && largest > even + std::max(even / 4, 4);
    if (dependent_) task_begin_ = split(false);
    task_tri_begin_.assign(ntask_ + 1, 0);
    for (int t = 0; t <= ntask_; ++t) {
        task_tri_begin_[t] = static_cast<int>(std::lower_bound(tri_con_.begin(), tri_con_.end(), task_begin_[t]) -
                                              tri_con_.begin());
    }

    // Atom-wise update lists: an atom belongs to the first task that constrains it.
    std::vector<int> owner(natoms_, -1);
    task_atom_begin_.assign(ntask_ + 1, 0);
    upd_nr_.push_back(0);
    for (int t = 0; t < ntask_; ++t) {
        task_atom_begin_[t] = static_cast<int>(upd_atom_.size());
        for (int b = task_begin_[t]; b < task_begin_[t + 1]; ++b) {
            for (int a : {atom1_[b], atom2_[b]}) {
                if (owner[a] >= 0) continue;
                owner[a] = t;
                upd_atom_.push_back(a);
                std::vector<int> cons;
                for (int c : at2con[a]) cons.push_back(pos[c]);
                std::sort(cons.begin(), cons.end());
                for (int k : cons) {
                    upd_con_.push_back(k);
                    upd_sign_.push_back(a == atom1_[k] ? -1.0 : 1.0);
                }
                upd_nr_.push_back(static_cast<int>(upd_con_.size()));
            }
        }
    }
    task_atom_begin_[ntask_] = static_cast<int>(upd_atom_.size());
    upd_slot_ = upd_atom_;

    for (auto* w : {&ox_, &oy_, &oz_, &rx_, &ry_, &rz_, &rhs1_, &rhs2_, &sol_, &mlambda_, &blc_sol_}) w->assign(nc_, 0.0);
    blcc_.assign(blbnb_.size(), 0.0);
    task_virial_.assign(ntask_, {});
    task_twice_ke_change_.assign(ntask_, 0.0);
}

void Lincs::set_slots(const std::vector<int>& slot_of) {
    if (static_cast<int>(slot_of.size()) < natoms_) {
        throw std::invalid_argument("LINCS: slot map has " + std::to_string(slot_of.size()) + " entries for " +
                                    std::to_string(natoms_) + " atoms");
    }
    for (int a : upd_atom_) {
        if (slot_of[a] < 0) throw std::invalid_argument("LINCS: constrained atom " + std::to_string(a) + " has no slot");
    }
    for (int b = 0; b < nc_; ++b) {
        slot1_[b] = slot_of[atom1_[b]];
        slot2_[b] = slot_of[atom2_[b]];
    }
    for (std::size_t e = 0; e < upd_atom_.size(); ++e) upd_slot_[e] = slot_of[upd_atom_[e]];
}

void Lincs::take_directions(const std::array<const double*, 3>& x, const std::array<double, 3>& box) {
    if (nc_ == 0) return;
    const MinImage pbc(box);
#pragma omp parallel for schedule(static) num_threads(ntask_) if (ntask_ > 1)
    for (int t = 0; t < ntask_; ++t) {
        for (int b = task_begin_[t]; b < task_begin_[t + 1]; ++b) {
            const int i = slot1_[b], j = slot2_[b];
            const double dx = pbc(x[0][i] - x[0][j], 0), dy = pbc(x[1][i] - x[1][j], 1), dz = pbc(x[2][i] - x[2][j], 2);
            ox_[b] = dx;
            oy_[b] = dy;
            oz_[b] = dz;
            const double inv = 1.0 / std::sqrt(dx * dx + dy * dy + dz * dz);
            rx_[b] = dx * inv;
            ry_[b] = dy * inv;
            rz_[b] = dz * inv;
        }
    }
}

void Lincs::run_tasks(const std::array<double*, 3>& xp, const std::array<double*, 3>& v, const double* inv_mass_slot,
                      const std::array<double, 3>& box, double invdt, bool& prefilter_hit) {
    const MinImage pbc(box);
    // Iterations flag rotations from 0.9 of the warning angle on, so the exact check
    // afterwards does not miss coupled constraints that end slightly beyond it.
    const double cos_pre = std::cos(0.9 * settings_.warn_angle_deg * kDegToRad);
    const double wfac = cos_pre * cos_pre;
    const bool with_v = v[0] != nullptr && v[1] != nullptr && v[2] != nullptr;
    const bool dep = dependent_;
    const bool triangles = !tri_con_.empty();
    const int order = settings_.order, iterations = settings_.iterations;
    double* const rx = rx_.data();
    double* const ry = ry_.data();
    double* const rz = rz_.data();
    const int* const blnr = blnr_.data();
    const int* const blbnb = blbnb_.data();
    double* const blcc = blcc_.data();
    double* const sol = sol_.data();
    double* const mlambda = mlambda_.data();
    double* const blc_sol = blc_sol_.data();
    const double* const blc = blc_.data();
    const double* const len = len_.data();
    const int* const s1 = slot1_.data();
    const int* const s2 = slot2_.data();

    // One thread's share; `tid` of `nth` threads runs tasks tid, tid+nth, ...
    auto body = [&](int tid, int nth, bool& hit) {
        auto for_my_constraints = [&](auto&& f) {
            for (int t = tid; t < ntask_; t += nth)
                for (int b = task_begin_[t]; b < task_begin_[t + 1]; ++b) f(b);
        };
        auto barrier = [dep] {
            if (dep) {
#pragma omp barrier
            }
        };
        // sol += sum_{i=1..order} A^i rhs, in ping-pong buffers shared by the threads.
        auto expand = [&](bool lead_barrier) {
            double* in = rhs1_.data();
            double* out = rhs2_.data();
            for (int rec = 0; rec < order; ++rec) {
                if (rec > 0 || lead_barrier) barrier();
                for_my_constraints([&](int b) {
                    double mvb = 0.0;
                    for (int n = blnr[b]; n < blnr[b + 1]; ++n) mvb += blcc[n] * in[blbnb[n]];
                    out[b] = mvb;
                    sol[b] += mvb;
                });
                std::swap(in, out);
            }
            if (!triangles) return;
            barrier();  // others may still read the buffers this overwrites
            for (int rec = 0; rec < order; ++rec) {
                for (int t = tid; t < ntask_; t += nth) {
                    for (int i = task_tri_begin_[t]; i < task_tri_begin_[t + 1]; ++i) {
                        const int b = tri_con_[i];
                        double mvb = 0.0;
                        for (int e = tri_nr_[i]; e < tri_nr_[i + 1]; ++e) {
                            const int n = tri_entry_[e];
                            mvb += blcc[n] * in[blbnb[n]];
                        }
                        out[b] = mvb;
                        sol[b] += mvb;
                    }
                }
                std::swap(in, out);
            }
        };
        // xp += invm * sum_b sign * fac_b * r_b per atom (and v with vfac * invdt,
        // keeping the change of sum m v^2 that makes).
        auto update_atoms = [&](const double* fac, const double* vfac) {
            for (int t = tid; t < ntask_; t += nth) {
                double twice_ke_change = 0.0;
                for (int e = task_atom_begin_[t]; e < task_atom_begin_[t + 1]; ++e) {
                    double dx = 0.0, dy = 0.0, dz = 0.0, ux = 0.0, uy = 0.0, uz = 0.0;
                    for (int j = upd_nr_[e]; j < upd_nr_[e + 1]; ++j) {
                        const int b = upd_con_[j];
                        const double f = upd_sign_[j] * fac[b];
                        dx += f * rx[b];
                        dy += f * ry[b];
                        dz += f * rz[b];
                        if (vfac) {
                            const double g = upd_sign_[j] * vfac[b];
                            ux += g * rx[b];
                            uy += g * ry[b];
                            uz += g * rz[b];
                        }
                    }
                    const int s = upd_slot_[e];
                    const double im = inv_mass_slot[s];
                    xp[0][s] += im * dx;
                    xp[1][s] += im * dy;
                    xp[2][s] += im * dz;
                    if (vfac && im > 0.0) {
                        const double iv = im * invdt;
                        const double v0x = v[0][s], v0y = v[1][s], v0z = v[2][s];
                        const double v1x = v0x + iv * ux, v1y = v0y + iv * uy, v1z = v0z + iv * uz;
                        v[0][s] = v1x;
                        v[1][s] = v1y;
                        v[2][s] = v1z;
                        twice_ke_change += ((v1x * v1x + v1y * v1y + v1z * v1z) - (v0x * v0x + v0y * v0y + v0z * v0z)) / im;
                    }
                }
                if (vfac) task_twice_ke_change_[t] = twice_ke_change;
            }
        };

        // The first right-hand side, along the start-of-step directions (take_directions()).
        for_my_constraints([&](int b) {
            const int i = s1[b], j = s2[b];
            const double px = pbc(xp[0][i] - xp[0][j], 0), py = pbc(xp[1][i] - xp[1][j], 1),
                         pz = pbc(xp[2][i] - xp[2][j], 2);
            const double mvb = blc[b] * (rx[b] * px + ry[b] * py + rz[b] * pz - len[b]);
            rhs1_[b] = mvb;
            sol[b] = mvb;
        });
        for_my_constraints([&](int b) {
            for (int n = blnr[b]; n < blnr[b + 1]; ++n) {
                const int k = blbnb[n];
                blcc[n] = blmf_[n] * (rx[b] * rx[k] + ry[b] * ry[k] + rz[b] * rz[k]);
            }
        });
        expand(true);  // the expansion reads other threads' right-hand sides
        for_my_constraints([&](int b) { mlambda[b] = blc[b] * sol[b]; });
        barrier();
        update_atoms(mlambda, iterations == 0 && with_v ? mlambda : nullptr);

        // Corrections for rotational lengthening: the projection on the old direction
        // should be p = sqrt(2 d^2 - l^2), which makes the new length d for an isolated constraint.
        for (int it = 0; it < iterations; ++it) {
            barrier();  // positions of atoms other threads updated
            for_my_constraints([&](int b) {
                const int i = s1[b], j = s2[b];
                const double dx = pbc(xp[0][i] - xp[0][j], 0), dy = pbc(xp[1][i] - xp[1][j], 1),
                             dz = pbc(xp[2][i] - xp[2][j], 2);
                const double len2 = len[b] * len[b];
                const double dlen2 = 2.0 * len2 - (dx * dx + dy * dy + dz * dz);
                if (!(dlen2 >= wfac * len2)) hit = true;  // NaN too: never hide a broken constraint
                const double mvb = dlen2 > 0.0 ? blc[b] * (len[b] - std::sqrt(dlen2)) : blc[b] * len[b];
                rhs1_[b] = mvb;
                sol[b] = mvb;
            });
            expand(true);
            for_my_constraints([&](int b) {
                const double mvb = blc[b] * sol[b];
                blc_sol[b] = mvb;
                mlambda[b] += mvb;
            });
            barrier();
            update_atoms(blc_sol, it + 1 == iterations && with_v ? mlambda : nullptr);
        }

        // Virial: f on the first atom is -mlambda r / dt^2, r_ij = d r.
        for (int t = tid; t < ntask_; t += nth) {
            std::array<double, 9> w{};
            for (int b = task_begin_[t]; b < task_begin_[t + 1]; ++b) {
                const double s = 0.5 * invdt * invdt * len[b] * mlambda[b];
                const double r[3] = {rx[b], ry[b], rz[b]};
                for (int p = 0; p < 3; ++p)
                    for (int q = 0; q < 3; ++q) w[3 * p + q] += s * r[p] * r[q];
            }
            task_virial_[t] = w;
        }
    };

    bool hit = false;
    if (ntask_ == 1) {
        body(0, 1, hit);
    } else {
#pragma omp parallel num_threads(ntask_) reduction(|| : hit)
        {
            bool mine = false;
            body(omp_get_thread_num(), omp_get_num_threads(), mine);
            hit = hit || mine;
        }
    }
    prefilter_hit = hit;
}

LincsResult Lincs::check(const std::array<double*, 3>& xp, const std::array<double, 3>& box) const {
    const MinImage pbc(box);
    const double cos_warn = std::cos(settings_.warn_angle_deg * kDegToRad);
    // A NaN counts as the worst deviation, so a broken constraint is never hidden.
    auto worse = [](double a, double b) { return (std::isnan(a) && !std::isnan(b)) || a > b; };
    struct Partial {
        double max = -1.0, sum2 = 0.0;
        int max_at = -1;
        std::vector<int> rotated;
    };
    std::vector<Partial> part(ntask_);
#pragma omp parallel for schedule(static) num_threads(ntask_) if (ntask_ > 1)
    for (int t = 0; t < ntask_; ++t) {
        Partial& p = part[t];
        for (int b = task_begin_[t]; b < task_begin_[t + 1]; ++b) {
            const int i = slot1_[b], j = slot2_[b];
            const double ax = ox_[b], ay = oy_[b], az = oz_[b];
            const double bx = pbc(xp[0][i] - xp[0][j], 0), by = pbc(xp[1][i] - xp[1][j], 1),
                         bz = pbc(xp[2][i] - xp[2][j], 2);
            const double l0 = std::sqrt(ax * ax + ay * ay + az * az), l1 = std::sqrt(bx * bx + by * by + bz * bz);
            const double dev = std::abs(l1 - len_[b]) / len_[b];
            p.sum2 += dev * dev;
            if (worse(dev, p.max)) {
                p.max = dev;
                p.max_at = b;
            }
            const double cosine = (ax * bx + ay * by + az * bz) / (l0 * l1);
            if (!(cosine >= cos_warn)) p.rotated.push_back(b);
        }
    }
    LincsResult r;
    double sum2 = 0.0;
    int max_at = -1;
    std::vector<int> rotated;
    for (const Partial& p : part) {
        sum2 += p.sum2;
        if (p.max_at >= 0 && (max_at < 0 || worse(p.max, r.max_relative_deviation))) {
            r.max_relative_deviation = p.max;
            max_at = p.max_at;
        }
        rotated.insert(rotated.end(), p.rotated.begin(), p.rotated.end());
    }
    r.rms_relative_deviation = std::sqrt(sum2 / nc_);
    r.rotation_warnings = static_cast<int>(rotated.size());
    if (rotated.empty()) return r;

    std::sort(rotated.begin(), rotated.end(), [&](int p, int q) { return input_index_[p] < input_index_[q]; });
    char line[256];
    std::snprintf(line, sizeof line,
                  "LINCS WARNING\nrelative constraint deviation after LINCS:\nrms %.6f, max %.6f (between atoms %d "
                  "and %d)\nbonds that rotated more than %g degrees:\n atom 1 atom 2  angle  previous, current, "
                  "constraint length\n",
                  r.rms_relative_deviation, r.max_relative_deviation, atom1_[max_at], atom2_[max_at],
                  settings_.warn_angle_deg);
    r.warning = line;
    constexpr std::size_t kMaxLines = 50;
    for (std::size_t n = 0; n < rotated.size() && n < kMaxLines; ++n) {
        const int b = rotated[n];
        const int i = slot1_[b], j = slot2_[b];
        const double ax = ox_[b], ay = oy_[b], az = oz_[b];
        const double bx = pbc(xp[0][i] - xp[0][j], 0), by = pbc(xp[1][i] - xp[1][j], 1),
                     bz = pbc(xp[2][i] - xp[2][j], 2);
        const double l0 = std::sqrt(ax * ax + ay * ay + az * az), l1 = std::sqrt(bx * bx + by * by + bz * bz);
        const double cosine = std::clamp((ax * bx + ay * by + az * bz) / (l0 * l1), -1.0, 1.0);
        std::snprintf(line, sizeof line, " %6d %6d  %5.1f  %8.4f %8.4f    %8.4f\n", atom1_[b], atom2_[b],
                      std::acos(cosine) / kDegToRad, l0, l1, len_[b]);
        r.warning += line;
    }
    if (rotated.size() > kMaxLines) r.warning += " ... and " + std::to_string(rotated.size() - kMaxLines) + " more\n";
    return r;
}

LincsResult Lincs::apply(const std::array<const double*, 3>& x, const std::array<double*, 3>& xp,
                         const std::array<double*, 3>& v, const double* inv_mass_slot,
                         const std::array<double, 3>& box, double invdt, bool compute_deviation) {
    take_directions(x, box);
    return constrain(xp, v, inv_mass_slot, box, invdt, compute_deviation);
}

double Lincs::max_relative_deviation(const std::array<const double*, 3>& x, const std::array<double, 3>& box) const {
    const MinImage pbc(box);
    double worst = 0.0;
    for (int b = 0; b < nc_; ++b) {
        const int i = slot1_[b], j = slot2_[b];
        const double dx = pbc(x[0][i] - x[0][j], 0), dy = pbc(x[1][i] - x[1][j], 1), dz = pbc(x[2][i] - x[2][j], 2);
        const double dev = std::abs(std::sqrt(dx * dx + dy * dy + dz * dz) - len_[b]) / len_[b];
        if (std::isnan(dev)) return dev;
        worst = std::max(worst, dev);
    }
    return worst;
}

LincsResult Lincs::constrain(const std::array<double*, 3>& xp, const std::array<double*, 3>& v,
                             const double* inv_mass_slot, const std::array<double, 3>& box, double invdt,
                             bool compute_deviation) {
    virial_ = {};
    twice_ke_change_ = 0.0;
    if (nc_ == 0) return {};
    std::fill(task_twice_ke_change_.begin(), task_twice_ke_change_.end(), 0.0);
    bool hit = false;
    run_tasks(xp, v, inv_mass_slot, box, invdt, hit);
    for (const auto& w : task_virial_)
        for (int e = 0; e < 9; ++e) virial_[e] += w[e];
    for (double d : task_twice_ke_change_) twice_ke_change_ += d;
    // Without iterations there is no cheap pre-check of rotations: always check.
    if (!compute_deviation && !hit && settings_.iterations > 0) return {};
    LincsResult r = check(xp, box);
    if (!compute_deviation && r.rotation_warnings == 0) return {};
    return r;
}

}  // namespace mdcore
