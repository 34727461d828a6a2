#pragma once
// The cluster grid of the GROMACS nbnxm scheme: a regular x/y grid of columns, the
// atoms of each column sorted along z and cut into clusters. i- and j-clusters are
// two partitions of the same sorted, padded atom order (sizes N and M, columns
// padded to a multiple of max(N, M)), so every j-cluster is aligned with i-clusters.
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "mdcore/system.h"

namespace mdcore {

struct BoundingBox {
    std::array<float, 3> lo;
    std::array<float, 3> hi;
};

// Bounding boxes as one array per bound, so the pair search checks consecutive
// clusters in SIMD lanes. An empty cluster has lo = +inf and hi = -inf.
struct BoundingBoxArrays {
    std::array<std::vector<float>, 3> lo, hi;
};

// Grid columns along x and y for natoms in the box: the cross-section is chosen so
// a cluster is roughly cubic (also used to estimate a run's memory before it starts).
std::array<int, 2> cluster_grid_columns(const Box& box, double natoms, int cluster_i, int cluster_j);
// The columns for a cell of atoms_per_cell atoms (side^3 * density = atoms_per_cell).
std::array<int, 2> grid_columns_for_cell(const Box& box, double natoms, double atoms_per_cell);

class ClusterGrid {
public:
    // Sorts `positions` (wrapped into the box) into the grid for an N x M shape, on
    // `columns` x/y columns ({0, 0}: cluster_grid_columns' rule).
    void build(const Box& box, const std::vector<Vec3>& positions, int cluster_i, int cluster_j,
               int num_threads, std::array<int, 2> columns = {0, 0});

    // Atoms flagged here (input order, 1 = first) come first within each group
    // of min(N, M) slots (the i-cluster of 4x8 and 4x4); the groups' atoms and the
    // clusters' boxes stay the same. With the LJ atoms first, a water i-cluster
    // mostly has LJ in its first half only, so the 2xMM kernels skip LJ in the
    // second register (GROMACS sorts clusters likewise). Empty: z order throughout.
    void set_first_in_cluster(std::vector<std::uint8_t> flags) { first_ = std::move(flags); }

    // Zones of a decomposed run's local atoms (input order; bit d: the atom came
    // from the neighbour cell above along d). Each zone gets its own set of
    // columns, so no cluster mixes zones, and the search lists no pair of
    // clusters whose zones share a bit (the eighth-shell rule: such pairs are
    // another rank's). Empty: one zone, as on one rank.
    void set_zones(std::vector<std::uint8_t> zones) { zones_ = std::move(zones); }

    int cluster_i() const { return ci_size_; }
    int cluster_j() const { return cj_size_; }
    int padded_size() const { return static_cast<int>(order_.size()); }
    int num_i_clusters() const { return padded_size() / ci_size_; }
    int num_j_clusters() const { return padded_size() / cj_size_; }
    // Atom index (input order) at each sorted slot; -1 marks a padding slot.
    const std::vector<int>& order() const { return order_; }
    // Sorted slot of each atom (input order): the inverse of order().
    const std::vector<int>& slot_of() const { return slot_of_; }
    const std::vector<BoundingBox>& i_boxes() const { return bb_i_; }
    const BoundingBoxArrays& j_boxes() const { return bb_j_; }
    // Column index of each i-cluster: zone * ncx * ncy + cx + ncx * cy.
    const std::vector<int>& i_cluster_column() const { return ci_column_; }
    // j-cluster range of each column: [column_j_begin[c], column_j_begin[c+1]).
    const std::vector<int>& column_j_begin() const { return col_j_begin_; }
    int ncx() const { return ncx_; }
    int ncy() const { return ncy_; }
    // Column sets, one per zone value 0 .. num_zones() - 1 (1 without zones).
    int num_zones() const { return nzones_; }
    double cell_x() const { return cell_x_; }
    double cell_y() const { return cell_y_; }
    const Box& box() const { return box_; }
    // Valid-atom bitmask of an i- or j-cluster (bit k: slot k holds a real atom).
    std::uint32_t i_valid_bits(int ci) const { return i_valid_[ci]; }
    std::uint32_t j_valid_bits(int cj) const { return j_valid_[cj]; }
    const std::uint32_t* j_valid_data() const { return j_valid_.data(); }

private:
    Box box_;
    int ci_size_ = 4, cj_size_ = 4;
    int ncx_ = 1, ncy_ = 1, nzones_ = 1;
    double cell_x_ = 0, cell_y_ = 0;
    std::vector<int> order_;
    std::vector<int> slot_of_;
    std::vector<std::uint8_t> first_;
    std::vector<std::uint8_t> zones_;
    std::vector<BoundingBox> bb_i_;
    BoundingBoxArrays bb_j_;
    std::vector<int> ci_column_;
    std::vector<int> col_j_begin_;
    std::vector<std::uint32_t> i_valid_, j_valid_;
    // Work buffers kept between builds (no allocation per search).
    std::vector<float> wrapped_;  // 3 per atom
    std::vector<int> column_of_, column_start_, by_column_, fill_;
    std::vector<int> visit_;
    std::vector<std::uint8_t> seen_;

    // The order build() bins atoms in: the previous build's, or atom order.
    const std::vector<int>& visiting_order(int natoms);
};

}  // namespace mdcore
