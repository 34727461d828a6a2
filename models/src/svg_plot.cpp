// SVG by hand: axes with decade ticks, polylines, markers and a legend.
#include "mdtune/models/svg_plot.h"

#include "mdtune/core/format_number.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace mdtune::models {
namespace {

constexpr double kWidth = 900, kHeight = 500;
constexpr double kLeft = 80, kRight = 300, kTop = 50, kBottom = 60;  // margins; the legend sits on the right
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '&') out += "&amp;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

std::string num(double v) { return format_number("%.1f", v); }

// 1, 2, 5 x 10^k labels that fit the axis.
std::string tick_label(double v) {
    if (v >= 1e6) return format_number("%gM", v / 1e6);
    if (v >= 1e3) return format_number("%gk", v / 1e3);
    return format_number("%g", v);
}

struct LogAxis {
    double lo, hi;  // log10 range
    double a, b;    // pixel range
    double at(double v) const { return a + (std::log10(v) - lo) / (hi - lo) * (b - a); }
};

LogAxis make_axis(double vmin, double vmax, double a, double b) {
    double lo = std::floor(std::log10(vmin) * 4) / 4;  // quarter-decade padding
    double hi = std::ceil(std::log10(vmax) * 4) / 4;
    if (hi - lo < 0.5) {
        lo -= 0.25;
        hi += 0.25;
    }
    return {lo, hi, a, b};
}

std::vector<double> ticks(const LogAxis& ax) {
    std::vector<double> t;
    for (int e = static_cast<int>(std::floor(ax.lo)); e <= static_cast<int>(std::ceil(ax.hi)); ++e)
        for (double m : {1.0, 2.0, 5.0}) {
            const double v = m * std::pow(10.0, e);
            const double l = std::log10(v);
            if (l >= ax.lo - 1e-9 && l <= ax.hi + 1e-9) t.push_back(v);
        }
    return t;
}

// Grid lines and tick labels of both axes, the axes and their titles.
void write_axes(std::ostringstream& svg, const LogAxis& x, const LogAxis& y) {
    for (double v : ticks(x)) {
        const double px = x.at(v);
        svg << "<line x1=\"" << num(px) << "\" y1=\"" << num(kTop) << "\" x2=\"" << num(px) << "\" y2=\""
            << num(kHeight - kBottom) << "\" stroke=\"#e5e5e5\"/>\n";
        svg << "<text x=\"" << num(px) << "\" y=\"" << num(kHeight - kBottom + 18)
            << "\" text-anchor=\"middle\">" << tick_label(v) << "</text>\n";
    }
    for (double v : ticks(y)) {
        const double py = y.at(v);
        svg << "<line x1=\"" << num(kLeft) << "\" y1=\"" << num(py) << "\" x2=\"" << num(kWidth - kRight)
            << "\" y2=\"" << num(py) << "\" stroke=\"#e5e5e5\"/>\n";
        svg << "<text x=\"" << num(kLeft - 8) << "\" y=\"" << num(py + 4) << "\" text-anchor=\"end\">"
            << tick_label(v) << "</text>\n";
    }
    svg << "<line x1=\"" << num(kLeft) << "\" y1=\"" << num(kHeight - kBottom) << "\" x2=\"" << num(kWidth - kRight)
        << "\" y2=\"" << num(kHeight - kBottom) << "\" stroke=\"black\"/>\n";
    svg << "<line x1=\"" << num(kLeft) << "\" y1=\"" << num(kTop) << "\" x2=\"" << num(kLeft) << "\" y2=\""
        << num(kHeight - kBottom) << "\" stroke=\"black\"/>\n";
    svg << "<text x=\"" << num((kLeft + kWidth - kRight) / 2) << "\" y=\"" << num(kHeight - 15)
        << "\" text-anchor=\"middle\">atoms (log scale)</text>\n";
    svg << "<text transform=\"translate(22," << num((kTop + kHeight - kBottom) / 2)
        << ") rotate(-90)\" text-anchor=\"middle\">ns/day (log scale)</text>\n";
}

// Series s: its line, its points (filled when measured) and its legend entry.
void write_series(std::ostringstream& svg, const PlotSeries& series, std::size_t s, const LogAxis& x, const LogAxis& y) {
    const char* colour = kColours[s % std::size(kColours)];
    std::vector<PlotPoint> pts;
    for (const auto& p : series.points)
        if (p.natoms > 0 && p.ns_per_day > 0) pts.push_back(p);
    std::sort(pts.begin(), pts.end(), [](const PlotPoint& a, const PlotPoint& b) { return a.natoms < b.natoms; });
    if (pts.size() > 1) {
        svg << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"";
        for (const auto& p : pts) svg << num(x.at(p.natoms)) << "," << num(y.at(p.ns_per_day)) << " ";
        svg << "\"/>\n";
    }
    for (const auto& p : pts)
        svg << "<circle cx=\"" << num(x.at(p.natoms)) << "\" cy=\"" << num(y.at(p.ns_per_day))
            << "\" r=\"5\" stroke=\"" << colour << "\" stroke-width=\"2\" fill=\""
            << (p.measured ? colour : "white") << "\"><title>" << escape(series.label) << ": "
            << tick_label(p.natoms) << " atoms, " << num(p.ns_per_day) << " ns/day ("
            << (p.measured ? "measured" : "predicted") << ")</title></circle>\n";
    const double ly = kTop + 10 + 22.0 * static_cast<double>(s);
    const double lx = kWidth - kRight + 15;
    svg << "<line x1=\"" << num(lx) << "\" y1=\"" << num(ly) << "\" x2=\"" << num(lx + 24) << "\" y2=\"" << num(ly)
        << "\" stroke=\"" << colour << "\" stroke-width=\"2\"/>\n";
    svg << "<circle cx=\"" << num(lx + 12) << "\" cy=\"" << num(ly) << "\" r=\"4\" fill=\"" << colour << "\"/>\n";
    svg << "<text x=\"" << num(lx + 30) << "\" y=\"" << num(ly + 4) << "\">" << escape(series.label)
        << "</text>\n";
}

}  // namespace

std::string render_svg(const std::vector<PlotSeries>& series, const std::string& title) {
    double xmin = std::numeric_limits<double>::infinity(), xmax = 0, ymin = xmin, ymax = 0;
    for (const auto& s : series)
        for (const auto& p : s.points)
            if (p.natoms > 0 && p.ns_per_day > 0) {
                xmin = std::min(xmin, p.natoms);
                xmax = std::max(xmax, p.natoms);
                ymin = std::min(ymin, p.ns_per_day);
                ymax = std::max(ymax, p.ns_per_day);
            }
    if (!(xmax > 0)) throw std::invalid_argument("nothing to plot: no positive ns/day values");
    const LogAxis x = make_axis(xmin, xmax, kLeft, kWidth - kRight);
    const LogAxis y = make_axis(ymin, ymax, kHeight - kBottom, kTop);

    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
        << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    svg << "<text x=\"" << num((kLeft + kWidth - kRight) / 2) << "\" y=\"28\" text-anchor=\"middle\" font-size=\"15\">"
        << escape(title) << "</text>\n";
    write_axes(svg, x, y);
    for (std::size_t s = 0; s < series.size(); ++s) write_series(svg, series[s], s, x, y);
    // Key for filled / hollow.
    const double ky = kTop + 10 + 22.0 * static_cast<double>(series.size()) + 14;
    const double kx = kWidth - kRight + 15;
    svg << "<circle cx=\"" << num(kx + 12) << "\" cy=\"" << num(ky) << "\" r=\"4\" fill=\"black\"/>\n";
    svg << "<text x=\"" << num(kx + 30) << "\" y=\"" << num(ky + 4) << "\">measured</text>\n";
    svg << "<circle cx=\"" << num(kx + 12) << "\" cy=\"" << num(ky + 20)
        << "\" r=\"4\" fill=\"white\" stroke=\"black\" stroke-width=\"2\"/>\n";
    svg << "<text x=\"" << num(kx + 30) << "\" y=\"" << num(ky + 24) << "\">predicted</text>\n";
    svg << "</svg>\n";
    return svg.str();
}

}  // namespace mdtune::models
