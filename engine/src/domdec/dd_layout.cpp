#include "domdec/dd_layout.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace mdcore {
namespace {

// GROMACS' mdrun starts separate PME ranks by itself only above 18 ranks;
// below that the mesh on the PP ranks is cheaper than the extra communication.
constexpr int kMinRanksForAutoPme = 19;

std::string nm(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

constexpr const char* kAxis = "XYZ";

// Most cells along d whose edge is at least the communication distance.
int max_cells(const Box& box, int d, double comm_distance) {
    if (!(comm_distance > 0)) return std::numeric_limits<int>::max();
    return std::max(1, static_cast<int>(std::floor(box.lengths[d] / comm_distance)));
}

std::string limit_text(const Box& box, double comm_distance) {
    return "at most " + std::to_string(max_cells(box, 0, comm_distance)) + "x" +
           std::to_string(max_cells(box, 1, comm_distance)) + "x" + std::to_string(max_cells(box, 2, comm_distance)) +
           " cells fit the " + nm(box.lengths[0]) + " x " + nm(box.lengths[1]) + " x " + nm(box.lengths[2]) +
           " nm box with cells of at least the communication distance " + nm(comm_distance) +
           " nm (rlist + 2 x update-group radius)";
}

void check_fits(const Box& box, const std::array<int, 3>& cells, double comm_distance) {
    for (int d = 0; d < 3; ++d) {
        if (cells[d] == 1) continue;
        const double edge = box.lengths[d] / cells[d];
        if (edge < comm_distance)
            throw DdLayoutError("--dd " + format_dd_cells(cells) + ": the cell edge along " + kAxis[d] + " is " +
                                nm(edge) + " nm, below the communication distance " + nm(comm_distance) + " nm; " +
                                limit_text(box, comm_distance));
    }
}

// The fitting grid of `pp` cells with the least halo volume; ties go to the
// grid decomposing fewer dimensions (fewer pulses), then to x before y before z.
DdLayout choose_cells(const Box& box, int pp, double comm_distance) {
    DdLayout best;
    double best_volume = std::numeric_limits<double>::infinity();
    int best_dims = 4;
    for (int nx = 1; nx <= pp; ++nx) {
        if (pp % nx) continue;
        for (int ny = 1; ny <= pp / nx; ++ny) {
            if ((pp / nx) % ny) continue;
            const std::array<int, 3> cells{nx, ny, pp / nx / ny};
            bool fits = true;
            for (int d = 0; d < 3; ++d)
                fits = fits && (cells[d] == 1 || box.lengths[d] / cells[d] >= comm_distance);
            if (!fits) continue;
            const double volume = dd_halo_volume(box, cells, comm_distance);
            const int dims = (nx > 1) + (ny > 1) + (cells[2] > 1);
            const bool less = volume < best_volume * (1 - 1e-9);
            const bool tie = !less && volume <= best_volume * (1 + 1e-9);
            // Equal volumes: fewer decomposed dimensions, then more cells along x, then y.
            if (less || (tie && (dims < best_dims || (dims == best_dims && cells > best.cells)))) {
                best.cells = cells;
                best_volume = volume;
                best_dims = dims;
            }
        }
    }
    if (best_dims == 4)
        throw DdLayoutError("--dd auto: no grid of " + std::to_string(pp) + " cells fits (" +
                            (pp > 1 ? "the PP rank count " + std::to_string(pp) + " splits only into grids with a cell too thin; " : "") +
                            limit_text(box, comm_distance) + ")");
    best.reason = pp == 1 ? "one PP rank: no decomposition"
                          : "least halo volume per cell (" + nm(best_volume) + " nm^3 communicated, eighth-shell zones) of the " +
                                std::to_string(pp) + "-cell grids whose cells are at least " + nm(comm_distance) + " nm";
    return best;
}

}  // namespace

std::string format_dd_cells(const std::array<int, 3>& cells) {
    return std::to_string(cells[0]) + "x" + std::to_string(cells[1]) + "x" + std::to_string(cells[2]);
}

double dd_halo_volume(const Box& box, const std::array<int, 3>& cells, double comm_distance) {
    double with_halo = 1, cell = 1;
    for (int d = 0; d < 3; ++d) {
        const double edge = box.lengths[d] / cells[d];
        cell *= edge;
        with_halo *= edge + (cells[d] > 1 ? comm_distance : 0.0);
    }
    return with_halo - cell;
}

DdLayout resolve_dd_layout(const Box& box, int ranks, const std::optional<std::array<int, 3>>& cells, int npme,
                           double comm_distance, bool pme_ranks_available) {
    if (ranks < 1) throw DdLayoutError("the MPI rank count must be positive");
    if (npme < -1) throw DdLayoutError("--npme " + std::to_string(npme) + " must be 0 or more (or auto)");
    if (npme < 0) npme = ranks >= kMinRanksForAutoPme && pme_ranks_available ? ranks / 4 : 0;
    if (npme >= ranks)
        throw DdLayoutError("--npme " + std::to_string(npme) + " leaves no PP rank: it must be below the " +
                            std::to_string(ranks) + " MPI rank" + (ranks > 1 ? "s" : ""));
    if (npme > 0 && !pme_ranks_available)
        throw DdLayoutError("--npme " + std::to_string(npme) +
                            ": this build has no MPI, so no PME ranks; use --npme 0");
    const int pp = ranks - npme;
    DdLayout layout;
    if (cells) {
        const long product = static_cast<long>((*cells)[0]) * (*cells)[1] * (*cells)[2];
        if (product != pp)
            throw DdLayoutError("--dd " + format_dd_cells(*cells) + " has " + std::to_string(product) + " cells but the run has " +
                                std::to_string(pp) + " PP rank" + (pp > 1 ? "s" : "") + " (" + std::to_string(ranks) +
                                " ranks - " + std::to_string(npme) + " PME)");
        check_fits(box, *cells, comm_distance);
        layout.cells = *cells;
        layout.reason = "as requested";
    } else {
        layout = choose_cells(box, pp, comm_distance);
    }
    layout.ranks = ranks;
    layout.npme = npme;
    layout.comm_distance = comm_distance;
    return layout;
}

}  // namespace mdcore
