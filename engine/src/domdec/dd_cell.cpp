#include "domdec/dd_cell.h"

#include <algorithm>
#include <cmath>

namespace mdcore {

int dd_rank_of(const std::array<int, 3>& index, const std::array<int, 3>& cells) {
    std::array<int, 3> i{};
    for (int d = 0; d < 3; ++d) i[d] = ((index[d] % cells[d]) + cells[d]) % cells[d];
    return i[0] + cells[0] * (i[1] + cells[1] * i[2]);
}

DdCell dd_cell_of(int pp_rank, const std::array<int, 3>& cells, const Box& box) {
    DdCell c;
    c.cells = cells;
    c.index = {pp_rank % cells[0], (pp_rank / cells[0]) % cells[1], pp_rank / (cells[0] * cells[1])};
    for (int d = 0; d < 3; ++d) {
        std::array<int, 3> below = c.index, above = c.index;
        --below[d];
        ++above[d];
        c.rank_below[d] = dd_rank_of(below, cells);
        c.rank_above[d] = dd_rank_of(above, cells);
        const double edge = box.lengths[d] / cells[d];
        std::vector<double> b(cells[d] + 1);
        for (int k = 0; k < cells[d]; ++k) b[k] = k * edge;
        b[cells[d]] = box.lengths[d];
        c.set_bounds(d, std::move(b));
    }
    return c;
}

void DdCell::set_bounds(int d, std::vector<double> b) {
    bounds[d] = std::move(b);
    lo[d] = bounds[d][index[d]];
    hi[d] = bounds[d][index[d] + 1];
}

int DdCell::index_of(double wrapped, int d) const {
    const std::vector<double>& b = bounds[d];
    const auto above = std::upper_bound(b.begin() + 1, b.end() - 1, wrapped);
    return static_cast<int>(above - b.begin()) - 1;
}

}  // namespace mdcore
