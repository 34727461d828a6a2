#include "pairlist/cluster_grid.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace mdcore {
namespace {

BoundingBox empty_box() {
    constexpr float inf = std::numeric_limits<float>::infinity();
    return {{inf, inf, inf}, {-inf, -inf, -inf}};
}

double wrap(double v, double length) {
    double w = v - length * std::floor(v / length);
    return w >= length ? 0.0 : w;  // v slightly below 0 can round up to length
}

// Sorts a column's atoms by (z, atom index), a total order, so the result is the
// same whatever order they came in. Insertion sort on a local copy of the keys:
// the columns are short (tens of atoms) and arrive nearly sorted (build()).
void sort_along_z(std::vector<int>::iterator first, std::vector<int>::iterator last,
                  const std::vector<float>& wrapped) {
    struct Key {
        float z;
        int atom;
        bool operator<(const Key& o) const { return z < o.z || (z == o.z && atom < o.atom); }
    };
    constexpr long kLocal = 256;
    const long count = last - first;
    if (count > kLocal) {  // a crowded column (a dense spot, a tiny grid): no local copy
        std::sort(first, last, [&](int a, int b) { return Key{wrapped[3 * a + 2], a} < Key{wrapped[3 * b + 2], b}; });
        return;
    }
    Key keys[kLocal];
    for (long k = 0; k < count; ++k) {
        const Key key{wrapped[3 * first[k] + 2], first[k]};
        long pos = k;
        for (; pos > 0 && key < keys[pos - 1]; --pos) keys[pos] = keys[pos - 1];
        keys[pos] = key;
    }
    for (long k = 0; k < count; ++k) first[k] = keys[k].atom;
}

}  // namespace

const std::vector<int>& ClusterGrid::visiting_order(int natoms) {
    // The previous order's atoms, when they are exactly 0 .. natoms - 1 once each.
    visit_.clear();
    seen_.assign(natoms, 0);
    for (int a : order_) {
        if (a < 0) continue;
        if (a >= natoms || seen_[a] != 0) {
            visit_.clear();
            break;
        }
        seen_[a] = 1;
        visit_.push_back(a);
    }
    if (static_cast<int>(visit_.size()) != natoms) {
        visit_.resize(natoms);
        std::iota(visit_.begin(), visit_.end(), 0);
    }
    return visit_;
}

std::array<int, 2> grid_columns_for_cell(const Box& box, double natoms, double atoms_per_cell) {
    const double density = natoms / box.volume();
    const double side = std::cbrt(atoms_per_cell / std::max(density, 1e-12));
    auto columns = [&](double length) { return std::max(1, static_cast<int>(std::min(length / side, 1e9))); };
    return {columns(box.lengths[0]), columns(box.lengths[1])};
}

std::array<int, 2> cluster_grid_columns(const Box& box, double natoms, int cluster_i, int cluster_j) {
    // side^3 * density equals the geometric mean of the i and j cluster sizes (4 for a plain list).
    const double atoms_per_cluster = cluster_i == 1 ? 4.0 : std::sqrt(static_cast<double>(cluster_i * cluster_j));
    return grid_columns_for_cell(box, natoms, atoms_per_cluster);
}

void ClusterGrid::build(const Box& box, const std::vector<Vec3>& positions, int cluster_i,
                        int cluster_j, int num_threads, std::array<int, 2> columns) {
    box_ = box;
    ci_size_ = cluster_i;
    cj_size_ = cluster_j;
    const int base = std::max(cluster_i, cluster_j);
    const auto natoms = static_cast<int>(positions.size());
    const auto [ncx, ncy] =
        columns[0] > 0 && columns[1] > 0 ? columns : cluster_grid_columns(box, natoms, cluster_i, cluster_j);
    ncx_ = ncx;
    ncy_ = ncy;
    cell_x_ = box.lengths[0] / ncx_;
    cell_y_ = box.lengths[1] / ncy_;
    if (!zones_.empty() && zones_.size() != positions.size())
        throw std::invalid_argument("cluster grid: " + std::to_string(zones_.size()) + " atom zones for " +
                                    std::to_string(positions.size()) + " atoms");
    nzones_ = zones_.empty() ? 1 : 1 + *std::max_element(zones_.begin(), zones_.end());
    const int per_zone = ncx_ * ncy_;
    const int ncol = nzones_ * per_zone;

    // Counting sort of atoms into columns, then sort each column along z.
    wrapped_.resize(3 * natoms);
    column_of_.resize(natoms);
    column_start_.assign(ncol + 1, 0);
#pragma omp parallel for num_threads(num_threads) schedule(static)
    for (int a = 0; a < natoms; ++a) {
        for (int d = 0; d < 3; ++d) wrapped_[3 * a + d] = static_cast<float>(wrap(positions[a][d], box.lengths[d]));
        const int cx = std::min(static_cast<int>(wrapped_[3 * a] / cell_x_), ncx_ - 1);
        const int cy = std::min(static_cast<int>(wrapped_[3 * a + 1] / cell_y_), ncy_ - 1);
        column_of_[a] = (zones_.empty() ? 0 : zones_[a] * per_zone) + cx + ncx_ * cy;
    }
    // Atoms enter their columns in the previous build's slot order where it holds
    // the same atoms: they moved little since, so each column arrives nearly sorted
    // along z and its insertion sort below does little work (in atom order each
    // column arrived shuffled). The order is only a visiting order: the result does
    // not depend on it.
    const std::vector<int>& visit = visiting_order(natoms);
    for (int a : visit) ++column_start_[column_of_[a] + 1];
    std::partial_sum(column_start_.begin(), column_start_.end(), column_start_.begin());
    by_column_.resize(natoms);
    fill_.assign(column_start_.begin(), column_start_.end() - 1);
    for (int a : visit) by_column_[fill_[column_of_[a]]++] = a;
    const auto& column_start = column_start_;
    const auto& wrapped = wrapped_;
    auto by_column = by_column_.begin();

    // Padded column offsets first (serial prefix sum), then sort and fill the
    // columns in parallel.
    col_j_begin_.assign(ncol + 1, 0);
    for (int c = 0; c < ncol; ++c) {
        const int count = column_start[c + 1] - column_start[c];
        col_j_begin_[c + 1] = col_j_begin_[c] + (count + base - 1) / base * base / cluster_j;
    }
    order_.resize(static_cast<std::size_t>(col_j_begin_[ncol]) * cluster_j);
    const long group = std::min(cluster_i, cluster_j);  // see set_first_in_cluster
    slot_of_.resize(natoms);
#pragma omp parallel for num_threads(num_threads) schedule(dynamic, 16)
    for (int c = 0; c < ncol; ++c) {
        auto first = by_column + column_start[c];
        auto last = by_column + column_start[c + 1];
        sort_along_z(first, last, wrapped);
        const auto out = order_.begin() + static_cast<long>(col_j_begin_[c]) * cluster_j;
        const auto filled = std::copy(first, last, out);
        // Within groups of the smaller cluster size only: each group keeps its
        // atoms, so every j-cluster's box still grows along the column.
        // (By hand: std::stable_partition would allocate a buffer per group.)
        if (!first_.empty())
            for (auto g = out; g < filled; g += std::min<long>(group, filled - g)) {
                const long size = std::min<long>(group, filled - g);
                int kept[8], rest[8];  // group <= 8 (cluster sizes are 1, 4 or 8)
                int nk = 0, nr = 0;
                for (long k = 0; k < size; ++k) {
                    const int a = g[k];
                    if (first_[a] != 0) kept[nk++] = a;
                    else rest[nr++] = a;
                }
                std::copy(rest, rest + nr, std::copy(kept, kept + nk, g));
            }
        std::fill(filled, order_.begin() + static_cast<long>(col_j_begin_[c + 1]) * cluster_j, -1);
        for (auto s = out; s != filled; ++s) slot_of_[*s] = static_cast<int>(s - order_.begin());
    }

    // store(c, box) keeps the box of cluster c in the layout of its kind.
    auto make_boxes = [&](int size, std::vector<std::uint32_t>& valid, auto&& store) {
        const int nclusters = padded_size() / size;
        valid.resize(nclusters);
#pragma omp parallel for num_threads(num_threads) schedule(static)
        for (int c = 0; c < nclusters; ++c) {
            BoundingBox bb = empty_box();
            std::uint32_t bits = 0;
            for (int k = 0; k < size; ++k) {
                const int a = order_[c * size + k];
                if (a < 0) continue;
                bits |= 1u << k;
                for (int d = 0; d < 3; ++d) {
                    bb.lo[d] = std::min(bb.lo[d], wrapped[3 * a + d]);
                    bb.hi[d] = std::max(bb.hi[d], wrapped[3 * a + d]);
                }
            }
            valid[c] = bits;
            store(c, bb);
        }
    };
    bb_i_.resize(num_i_clusters());
    make_boxes(cluster_i, i_valid_, [&](int c, const BoundingBox& bb) { bb_i_[c] = bb; });
    for (int d = 0; d < 3; ++d) {
        bb_j_.lo[d].resize(num_j_clusters());
        bb_j_.hi[d].resize(num_j_clusters());
    }
    make_boxes(cluster_j, j_valid_, [&](int c, const BoundingBox& bb) {
        for (int d = 0; d < 3; ++d) {
            bb_j_.lo[d][c] = bb.lo[d];
            bb_j_.hi[d][c] = bb.hi[d];
        }
    });

    ci_column_.assign(num_i_clusters(), 0);
    for (int c = 0; c < ncol; ++c) {
        const int begin = col_j_begin_[c] * cluster_j / cluster_i;
        const int end = col_j_begin_[c + 1] * cluster_j / cluster_i;
        for (int ci = begin; ci < end; ++ci) ci_column_[ci] = c;
    }
}

}  // namespace mdcore
