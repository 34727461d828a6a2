#pragma once
// Dynamic load balancing of the DD cell boundaries (--dlb, GROMACS' DLB as the
// model, on a rectilinear grid: along each decomposed dimension the slabs of
// cells share their boundaries). At a search step each slab's width is moved
// towards the width that would make its measured force time the mean, half
// way (relaxed, so a noisy interval cannot swing it), never below the minimum
// width (the communication distance, one halo pulse; and a fraction of the
// even width, as GROMACS' -dds).
#include <vector>

#include "mdcore/run_config.h"  // DlbMode

namespace mdcore {

// auto turns balancing on at the first check whose force-time imbalance (max /
// mean over the PP ranks, over at least kDlbAutoCheckSteps steps) exceeds this.
// GROMACS checks every 100 steps and turns DLB on from a few % of loss. Here, on
// water-24k at 2x1x1, the imbalance without DLB was 1.009-1.022 and --dlb yes
// brought it to 1.000-1.001 and the step to 0.984 of --dlb no (4 interleaved rounds).
inline constexpr double kDlbAutoThreshold = 1.02;
inline constexpr long kDlbAutoCheckSteps = 100;
// The smallest cell, as a fraction of the even width (GROMACS' -dds 0.8).
inline constexpr double kDlbMinFraction = 0.8;

// New boundaries (bounds.front() 0 and bounds.back() L kept) from each slab's
// force time over the last interval (`load[k]` for the cell between bounds[k]
// and bounds[k + 1]; the slowest rank of the slab). Widths stay >= min_width;
// throws std::invalid_argument when the slabs cannot all be that wide.
std::vector<double> balanced_bounds(const std::vector<double>& bounds, const std::vector<double>& load,
                                    double min_width);

}  // namespace mdcore
