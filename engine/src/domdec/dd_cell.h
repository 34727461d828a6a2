#pragma once
// A PP rank's cell of the Cartesian DD grid: its index, bounds and neighbours.
// PP rank r sits at index (r % nx, (r / nx) % ny, r / (nx ny)): x runs fastest.
#include <array>
#include <vector>

#include "mdcore/system.h"

namespace mdcore {

struct DdCell {
    std::array<int, 3> cells{1, 1, 1};
    std::array<int, 3> index{0, 0, 0};
    std::array<int, 3> rank_below{0, 0, 0};  // neighbour at index - 1 along d (periodic)
    std::array<int, 3> rank_above{0, 0, 0};  // neighbour at index + 1 along d (periodic)
    Vec3 lo{0, 0, 0}, hi{0, 0, 0};           // nm
    // The cell boundaries along each d, shared by every rank (a rectilinear grid):
    // bounds[d][k] to bounds[d][k + 1] is cell k; bounds[d].front() 0, .back() L.
    // Even at first; dynamic load balancing (dd_load_balance.h) moves them.
    std::array<std::vector<double>, 3> bounds;
    bool decomposed(int d) const { return cells[d] > 1; }
    // Cell index along d of a coordinate already wrapped into [0, L).
    int index_of(double wrapped, int d) const;
    // New boundaries along d (same for every rank): lo and hi follow.
    void set_bounds(int d, std::vector<double> b);
};

int dd_rank_of(const std::array<int, 3>& index, const std::array<int, 3>& cells);
DdCell dd_cell_of(int pp_rank, const std::array<int, 3>& cells, const Box& box);

}  // namespace mdcore
