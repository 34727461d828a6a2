// .gro coordinates: fixed columns, the coordinate width inferred as GROMACS does.
#include <string_view>

#include "io/gromacs_io.h"
#include "io/text_input.h"
#include "mdcore/text_file.h"
#include "system/physical_limits.h"

namespace mdcore {
namespace {

using input::fail;
using input::trim;
using input::Where;

constexpr int kGroNameColumns = 20;  // %5d%-5s%5s%5d before the coordinates

// GROMACS infers the coordinate field width from the spacing of the first atom
// line's decimal points, which is how higher-precision .gro files stay readable.
int infer_gro_field_width(const Where& where, const std::string& line) {
    if (line.size() <= kGroNameColumns) fail(where, "atom line is too short to hold coordinates");
    const std::size_t p1 = line.find('.', kGroNameColumns);
    const std::size_t p2 = p1 == std::string::npos ? p1 : line.find('.', p1 + 1);
    const std::size_t p3 = p2 == std::string::npos ? p2 : line.find('.', p2 + 1);
    if (p3 == std::string::npos)
        fail(where, "cannot find the decimal points of three coordinates after column 20 (.gro is fixed-column)");
    if (p3 - p2 != p2 - p1)
        fail(where, "the decimal points of x, y and z are not evenly spaced (.gro is fixed-column)");
    return static_cast<int>(p2 - p1);
}

// Parses three fixed-width numbers starting at column `start`.
Vec3 parse_gro_fields(const Where& where, const std::string& line, std::size_t start, int width, const char* what) {
    static const char* axis[3] = {"x", "y", "z"};
    Vec3 v{};
    for (int m = 0; m < 3; ++m) {
        const std::size_t col = start + static_cast<std::size_t>(m) * width;
        const std::string_view field = col < line.size() ? trim(std::string_view(line).substr(col, width)) : "";
        const std::string name = std::string(what) + " " + axis[m];
        if (field.empty()) fail(where, "missing " + name + " (line too short; .gro is fixed-column)");
        v[m] = input::parse_double(where, field, name + " (.gro is fixed-column)");
    }
    return v;
}

// One atom line: %5d%-5s%5s%5d then x y z [vx vy vz]. Returns whether velocities were present.
bool parse_gro_atom_line(const Where& where, const std::string& line, int width, GroFile& gro) {
    if (line.size() < kGroNameColumns) fail(where, "atom line is too short (needs 20 name columns and coordinates)");
    const std::string_view sv(line);
    const std::string_view resnr = trim(sv.substr(0, 5));
    if (resnr.empty()) fail(where, "missing residue number in columns 1-5");
    gro.residue_number.push_back(input::parse_int(where, resnr, "residue number (columns 1-5)"));
    gro.residue_name.emplace_back(trim(sv.substr(5, 5)));
    gro.atom_name.emplace_back(trim(sv.substr(10, 5)));
    gro.positions.push_back(parse_gro_fields(where, line, kGroNameColumns, width, "coordinate"));
    const std::size_t vel_start = kGroNameColumns + 3 * static_cast<std::size_t>(width);
    if (vel_start >= line.size() || trim(sv.substr(vel_start)).empty()) return false;
    gro.velocities.push_back(parse_gro_fields(where, line, vel_start, width, "velocity"));
    const std::string problem = limits::velocity_problem(gro.velocities.back());
    if (!problem.empty()) fail(where, "atom " + printable_excerpt(gro.atom_name.back()) + ": " + problem);
    return true;
}

// Box line: 3 values, or 9 for a triclinic box whose off-diagonals must be zero.
Box parse_gro_box(const Where& where, const std::string& line) {
    const std::vector<std::string> tokens = input::split_ws(line);
    if (tokens.size() != 3 && tokens.size() != 9)
        fail(where, "box line must have 3 or 9 values, found " + std::to_string(tokens.size()));
    std::vector<double> values;
    for (const std::string& t : tokens) values.push_back(input::parse_double(where, t, "a box value"));
    for (std::size_t i = 3; i < values.size(); ++i)
        if (values[i] != 0.0) fail(where, "triclinic boxes are not supported (non-zero off-diagonal box component)");
    Box box;
    for (int d = 0; d < 3; ++d) {
        if (!(values[d] > 0.0)) fail(where, "box edges must be positive");
        box.lengths[d] = values[d];
    }
    const std::string problem = limits::box_problem(box);
    if (!problem.empty()) fail(where, problem);
    return box;
}

// Atoms far outside the box are typos (or hostile): they would wrap to arbitrary places.
void check_positions_near_box(const GroFile& gro, const std::string& path) {
    for (std::size_t i = 0; i < gro.positions.size(); ++i) {
        const std::string problem = limits::position_problem(gro.positions[i], gro.box);
        if (!problem.empty())
            fail({path, static_cast<int>(i) + 3}, "atom " + printable_excerpt(gro.atom_name[i]) + ": " + problem);
    }
}

}  // namespace

GroFile read_gro(const std::string& path) {
    std::string text;
    const std::string why = read_text_file(path, kMaxGroFileBytes, text);
    if (!why.empty()) throw InputError(path + ": cannot read the .gro file: it " + why);
    return parse_gro_text(text, path);
}

GroFile parse_gro_text(const std::string& text, const std::string& name) {
    if (const std::size_t line = first_long_line(text))
        fail({name, static_cast<int>(line)}, "line is longer than the limit of " + size_text(kMaxInputLineBytes));
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(std::move(line));
        start = end + 1;
    }
    return parse_gro_lines(lines, name);
}

GroFile parse_gro_lines(const std::vector<std::string>& all_lines, const std::string& path) {
    const auto* lines = &all_lines;
    const auto line_at = [&](std::size_t index, const std::string& expected) -> const std::string& {
        if (index >= lines->size())
            fail({path, static_cast<int>(index) + 1}, "unexpected end of file (expected " + expected + ")");
        return (*lines)[index];
    };
    GroFile gro;
    gro.title = line_at(0, "a title line");
    const Where count_where{path, 2};
    const std::string_view count_text = trim(line_at(1, "the atom count"));
    const int natoms = input::parse_int(count_where, count_text, "atom count");
    if (natoms < 0) fail(count_where, "atom count must be non-negative");

    int width = 0;
    bool first_has_velocities = false;
    for (int i = 0; i < natoms; ++i) {
        const std::size_t index = 2 + static_cast<std::size_t>(i);
        const Where where{path, static_cast<int>(index) + 1};
        const std::string expected =
            std::to_string(natoms) + " atom lines and a box line; found " + std::to_string(i) + " atoms";
        const std::string& line = line_at(index, expected);
        if (i == 0) width = infer_gro_field_width(where, line);
        const bool has_velocities = parse_gro_atom_line(where, line, width, gro);
        if (i == 0) first_has_velocities = has_velocities;
        if (has_velocities != first_has_velocities)
            fail(where, "velocities must be given for all atoms or for none");
    }
    const std::size_t box_index = 2 + static_cast<std::size_t>(natoms);
    gro.box = parse_gro_box({path, static_cast<int>(box_index) + 1}, line_at(box_index, "the box line"));
    check_positions_near_box(gro, path);
    // Anything after the box (further frames) is ignored, as GROMACS reads the first frame.
    return gro;
}

}  // namespace mdcore
