#pragma once
// The procurement plot: ns/day against system size (log-log axes), one polyline
// with markers per series (a machine, or a machine and system kind); measured
// points filled, predicted points hollow. Plain SVG, no dependencies.
#include <string>
#include <vector>

namespace mdtune::models {

struct PlotPoint {
    double natoms = 0;
    double ns_per_day = 0;
    bool measured = false;
};

struct PlotSeries {
    std::string label;
    std::vector<PlotPoint> points;  // any order; drawn by atom count
};

// Throws std::invalid_argument when there is no positive point to draw.
std::string render_svg(const std::vector<PlotSeries>& series, const std::string& title);

}  // namespace mdtune::models
