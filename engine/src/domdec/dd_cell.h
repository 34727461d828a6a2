#pragma once
// A PP rank's cell of the Cartesian DD grid: its index, bounds and neighbours.
// PP rank r sits at index (r % nx, (r / nx) % ny, r / (nx ny)): x runs fastest.
#include <array>

#include "mdcore/system.h"

namespace mdcore {

struct DdCell {
    std::array<int, 3> cells{1, 1, 1};
    std::array<int, 3> index{0, 0, 0};
    std::array<int, 3> rank_below{0, 0, 0};  // neighbour at index - 1 along d (periodic)
    std::array<int, 3> rank_above{0, 0, 0};  // neighbour at index + 1 along d (periodic)
    Vec3 lo{0, 0, 0}, hi{0, 0, 0};           // nm
    bool decomposed(int d) const { return cells[d] > 1; }
};

int dd_rank_of(const std::array<int, 3>& index, const std::array<int, 3>& cells);
DdCell dd_cell_of(int pp_rank, const std::array<int, 3>& cells, const Box& box);
// Cell index along d of a coordinate already wrapped into [0, L).
int dd_cell_index(double wrapped, int d, const std::array<int, 3>& cells, const Box& box);

}  // namespace mdcore
