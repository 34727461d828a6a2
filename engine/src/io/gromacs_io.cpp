#include "io/gromacs_io.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

namespace mdcore {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------
// Small text helpers shared by the .gro and .top readers.

// A position in an input file, for error messages of the form FILE:LINE: ...
struct Where {
    std::string file;
    int line = 0;
};

[[noreturn]] void fail(const Where& where, const std::string& message) {
    throw InputError(where.file + ":" + std::to_string(where.line) + ": " + message);
}

std::string_view trim(std::string_view s) {
    const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

std::vector<std::string> split_ws(std::string_view s) {
    std::vector<std::string> tokens;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        const std::size_t start = i;
        while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i > start) tokens.emplace_back(s.substr(start, i - start));
    }
    return tokens;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Whole-token conversions: trailing garbage ("1.0x") is an error, not a prefix match.
std::optional<long> to_long(std::string_view s) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    long value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return value;
}

std::optional<double> to_double(std::string_view s) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    double value = 0.0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty() || !std::isfinite(value)) return std::nullopt;
    return value;
}

int parse_int(const Where& where, std::string_view token, const std::string& what) {
    const auto v = to_long(token);
    if (!v || *v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max())
        fail(where, "'" + std::string(token) + "' is not a valid integer " + what);
    return static_cast<int>(*v);
}

double parse_double(const Where& where, std::string_view token, const std::string& what) {
    const auto v = to_double(token);
    if (!v) fail(where, "'" + std::string(token) + "' is not a valid number for " + what);
    return *v;
}

// Reads all lines, dropping the '\r' of CRLF files so Windows-edited inputs parse.
std::optional<std::vector<std::string>> read_lines(const std::string& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(std::move(line));
    }
    if (in.bad()) return std::nullopt;
    return lines;
}

// ---------------------------------------------------------------------------
// .gro reading

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
        v[m] = parse_double(where, field, name + " (.gro is fixed-column)");
    }
    return v;
}

// One atom line: %5d%-5s%5s%5d then x y z [vx vy vz]. Returns whether velocities were present.
bool parse_gro_atom_line(const Where& where, const std::string& line, int width, GroFile& gro) {
    if (line.size() < kGroNameColumns) fail(where, "atom line is too short (needs 20 name columns and coordinates)");
    const std::string_view sv(line);
    const std::string_view resnr = trim(sv.substr(0, 5));
    if (resnr.empty()) fail(where, "missing residue number in columns 1-5");
    gro.residue_number.push_back(parse_int(where, resnr, "residue number (columns 1-5)"));
    gro.residue_name.emplace_back(trim(sv.substr(5, 5)));
    gro.atom_name.emplace_back(trim(sv.substr(10, 5)));
    gro.positions.push_back(parse_gro_fields(where, line, kGroNameColumns, width, "coordinate"));
    const std::size_t vel_start = kGroNameColumns + 3 * static_cast<std::size_t>(width);
    if (vel_start >= line.size() || trim(sv.substr(vel_start)).empty()) return false;
    gro.velocities.push_back(parse_gro_fields(where, line, vel_start, width, "velocity"));
    return true;
}

// Box line: 3 values, or 9 for a triclinic box whose off-diagonals must be zero.
Box parse_gro_box(const Where& where, const std::string& line) {
    const std::vector<std::string> tokens = split_ws(line);
    if (tokens.size() != 3 && tokens.size() != 9)
        fail(where, "box line must have 3 or 9 values, found " + std::to_string(tokens.size()));
    std::vector<double> values;
    for (const std::string& t : tokens) values.push_back(parse_double(where, t, "a box value"));
    for (std::size_t i = 3; i < values.size(); ++i)
        if (values[i] != 0.0) fail(where, "triclinic boxes are not supported (non-zero off-diagonal box component)");
    Box box;
    for (int d = 0; d < 3; ++d) {
        if (!(values[d] > 0.0)) fail(where, "box edges must be positive");
        box.lengths[d] = values[d];
    }
    return box;
}

// ---------------------------------------------------------------------------
// .top reading

enum class Directive { None, Defaults, AtomTypes, MoleculeType, Atoms, Settles, Exclusions, System, Molecules };

std::optional<Directive> directive_from_name(const std::string& name) {
    static const std::map<std::string, Directive> known = {
        {"defaults", Directive::Defaults},         {"atomtypes", Directive::AtomTypes},
        {"moleculetype", Directive::MoleculeType}, {"atoms", Directive::Atoms},
        {"settles", Directive::Settles},           {"exclusions", Directive::Exclusions},
        {"system", Directive::System},             {"molecules", Directive::Molecules},
    };
    const auto it = known.find(lower(name));
    if (it == known.end()) return std::nullopt;
    return it->second;
}

struct TopAtomType {
    std::string name;
    double mass = 0.0;
    double charge = 0.0;
    std::string ptype;
    double v = 0.0, w = 0.0;  // c6/c12 (comb-rule 1) or sigma/epsilon (2, 3)
};

struct TopAtom {
    int type = 0;  // index into Topology::atomtypes
    std::string name;
    double charge = 0.0;
    double mass = 0.0;
    Where where;
};

struct TopSettle {
    int o = 0;  // 0-based within the molecule; hydrogens follow at o+1, o+2
    double d_oh = 0.0, d_hh = 0.0;
};

struct MoleculeType {
    std::string name;
    int nrexcl = 0;
    std::vector<TopAtom> atoms;
    std::optional<TopSettle> settle;
    std::vector<std::pair<int, int>> exclusions;  // 0-based, first < second
};

struct MoleculeBlock {
    int moltype = 0;
    int count = 0;
    Where where;
};

struct Topology {
    int comb_rule = 0;  // 0 until [ defaults ] is read
    std::vector<TopAtomType> atomtypes;
    std::map<std::string, int> atomtype_index;
    std::vector<MoleculeType> moltypes;
    std::map<std::string, int> moltype_index;
    std::vector<MoleculeBlock> molecules;
};

// A logical line: continuation lines ('\' at the end) joined, located at its first line.
struct TopLine {
    Where where;
    std::string text;
};

std::vector<TopLine> join_continuations(const std::string& path, const std::vector<std::string>& lines) {
    std::vector<TopLine> out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        TopLine l{{path, static_cast<int>(i) + 1}, lines[i]};
        while (!l.text.empty() && l.text.back() == '\\' && i + 1 < lines.size()) {
            l.text.pop_back();
            l.text += " " + lines[++i];
        }
        out.push_back(std::move(l));
    }
    return out;
}

// Parses the supported .top subset into a Topology; everything else is an InputError.
class TopParser {
public:
    Topology parse(const std::string& path) {
        parse_file(path);
        const Where end{path, last_line_};
        if (top_.comb_rule == 0) fail(end, "the topology has no [ defaults ] directive");
        if (top_.molecules.empty()) fail(end, "the topology has no [ molecules ] entries");
        return std::move(top_);
    }

private:
    void parse_file(const std::string& path) {
        const auto lines = read_lines(path);
        if (!lines) throw InputError(path + ": cannot open topology file");
        const fs::path key = fs::weakly_canonical(fs::absolute(path));
        include_stack_.push_back(key);
        for (const TopLine& line : join_continuations(path, *lines)) parse_line(line);
        include_stack_.pop_back();
        if (include_stack_.empty()) last_line_ = static_cast<int>(lines->size());
    }

    void parse_line(const TopLine& line) {
        // ';' starts a comment everywhere, including after #include.
        const std::string_view text = trim(std::string_view(line.text).substr(0, line.text.find(';')));
        if (text.empty()) return;
        if (text.front() == '#') return parse_preprocessor(line.where, text);
        if (text.front() == '[') return parse_directive_header(line.where, text);
        parse_data(line.where, split_ws(text));
    }

    void parse_preprocessor(const Where& where, std::string_view text) {
        std::string_view rest = trim(text.substr(1));
        std::size_t n = 0;
        while (n < rest.size() && std::isalpha(static_cast<unsigned char>(rest[n]))) ++n;
        const std::string keyword(rest.substr(0, n));
        if (keyword != "include")
            fail(where, "preprocessor directive #" + keyword +
                            " is not supported (only #include \"file\"; conditional and macro topologies must be "
                            "preprocessed first)");
        const std::string_view arg = trim(rest.substr(n));
        if (arg.size() >= 2 && arg.front() == '<')
            fail(where, "#include " + std::string(arg) +
                            " searches the force-field library, which is not supported; use #include \"file\" "
                            "relative to the including file");
        if (arg.size() < 2 || arg.front() != '"' || arg.back() != '"')
            fail(where, "malformed #include (expected #include \"file\")");
        include_file(where, std::string(arg.substr(1, arg.size() - 2)));
    }

    void include_file(const Where& where, const std::string& name) {
        fs::path target(name);
        if (target.is_relative()) target = fs::path(where.file).parent_path() / target;
        std::error_code ec;
        if (!fs::is_regular_file(target, ec))
            fail(where, "cannot open included file \"" + name + "\" (looked for " + target.string() + ")");
        const fs::path key = fs::weakly_canonical(fs::absolute(target));
        if (std::find(include_stack_.begin(), include_stack_.end(), key) != include_stack_.end())
            fail(where, "recursive #include of \"" + name + "\"");
        parse_file(target.string());
    }

    void parse_directive_header(const Where& where, std::string_view text) {
        if (text.back() != ']') fail(where, "malformed directive line (expected [ name ])");
        const std::string name(trim(text.substr(1, text.size() - 2)));
        const auto directive = directive_from_name(name);
        if (!directive)
            fail(where, "directive [ " + name +
                            " ] is not supported (supported: defaults, atomtypes, moleculetype, atoms, settles, "
                            "exclusions, system, molecules)");
        check_directive_order(where, *directive, name);
        current_ = *directive;
        // A new [ moleculetype ] header waits for its "name nrexcl" line.
        if (current_ == Directive::MoleculeType) moltype_pending_ = true;
    }

    void check_directive_order(const Where& where, Directive d, const std::string& name) {
        if (moltype_pending_) fail(where, "the preceding [ moleculetype ] is missing its name nrexcl line");
        const bool defaults_done = top_.comb_rule != 0;
        if (d == Directive::Defaults && (defaults_done || seen_any_directive_))
            fail(where, "[ defaults ] must be the first directive and appear only once");
        if (d != Directive::Defaults && d != Directive::System && !defaults_done)
            fail(where, "[ " + name + " ] appears before the [ defaults ] data line");
        if ((d == Directive::Atoms || d == Directive::Settles || d == Directive::Exclusions) && top_.moltypes.empty())
            fail(where, "[ " + name + " ] appears outside a [ moleculetype ]");
        if ((d == Directive::Settles || d == Directive::Exclusions) && top_.moltypes.back().atoms.empty())
            fail(where, "[ " + name + " ] must follow the molecule's [ atoms ]");
        if (seen_molecules_ && d != Directive::Molecules)
            fail(where, "[ " + name + " ] after [ molecules ] is not supported");
        if (d == Directive::Molecules) seen_molecules_ = true;
        seen_any_directive_ = true;
    }

    void parse_data(const Where& where, const std::vector<std::string>& t) {
        switch (current_) {
            case Directive::None: fail(where, "data line outside any [ directive ]");
            case Directive::Defaults: return parse_defaults(where, t);
            case Directive::AtomTypes: return parse_atomtype(where, t);
            case Directive::MoleculeType: return parse_moleculetype(where, t);
            case Directive::Atoms: return parse_atom(where, t);
            case Directive::Settles: return parse_settle(where, t);
            case Directive::Exclusions: return parse_exclusion(where, t);
            case Directive::System: return;  // free-text title; System has no field for it
            case Directive::Molecules: return parse_molecule_block(where, t);
        }
    }

    // nbfunc comb-rule [gen-pairs [fudgeLJ [fudgeQQ]]]; the pair settings only
    // matter for [ pairs ], which is rejected, so they are checked but unused.
    void parse_defaults(const Where& where, const std::vector<std::string>& t) {
        if (top_.comb_rule != 0) fail(where, "[ defaults ] has more than one data line");
        if (t.size() < 2 || t.size() > 5)
            fail(where, "[ defaults ] expects nbfunc comb-rule [gen-pairs fudgeLJ fudgeQQ]");
        const int nbfunc = parse_int(where, t[0], "nbfunc");
        if (nbfunc != 1) fail(where, "nbfunc " + t[0] + " is not supported (only 1 = Lennard-Jones)");
        const int comb = parse_int(where, t[1], "comb-rule");
        if (comb < 1 || comb > 3) fail(where, "comb-rule " + t[1] + " is not supported (only 1, 2 or 3)");
        if (t.size() > 2 && lower(t[2]) != "yes" && lower(t[2]) != "no")
            fail(where, "gen-pairs must be yes or no, not '" + t[2] + "'");
        for (std::size_t i = 3; i < t.size(); ++i) parse_double(where, t[i], i == 3 ? "fudgeLJ" : "fudgeQQ");
        top_.comb_rule = comb;
    }

    // name [bonded-type] [at.num] mass charge ptype V W: the optional middle
    // columns are identified by counting from the end, as in GROMACS.
    void parse_atomtype(const Where& where, const std::vector<std::string>& t) {
        if (t.size() < 6 || t.size() > 8)
            fail(where, "[ atomtypes ] expects name [bonded-type] [at.num] mass charge ptype V W (found " +
                            std::to_string(t.size()) + " columns)");
        const std::size_t n = t.size();
        if (n == 8 || (n == 7 && !std::isalpha(static_cast<unsigned char>(t[1][0]))))
            parse_int(where, t[n - 6], "atomic number");
        TopAtomType type;
        type.name = t[0];
        type.mass = parse_double(where, t[n - 5], "mass");
        type.charge = parse_double(where, t[n - 4], "charge");
        type.ptype = t[n - 3];
        if (type.ptype.size() != 1 || !std::isalpha(static_cast<unsigned char>(type.ptype[0])))
            fail(where, "'" + type.ptype + "' is not a particle type (expected A, S, V, D or B)");
        const bool c6c12 = top_.comb_rule == 1;
        type.v = parse_double(where, t[n - 2], c6c12 ? "c6" : "sigma");
        type.w = parse_double(where, t[n - 1], c6c12 ? "c12" : "epsilon");
        if (type.v < 0.0 || type.w < 0.0) fail(where, "negative LJ parameters are not supported");
        if (top_.atomtype_index.count(type.name)) fail(where, "atom type '" + type.name + "' is defined twice");
        top_.atomtype_index[type.name] = static_cast<int>(top_.atomtypes.size());
        top_.atomtypes.push_back(std::move(type));
    }

    void parse_moleculetype(const Where& where, const std::vector<std::string>& t) {
        if (!moltype_pending_) fail(where, "[ moleculetype ] has more than one data line");
        if (t.size() != 2) fail(where, "[ moleculetype ] expects name nrexcl");
        MoleculeType mol;
        mol.name = t[0];
        mol.nrexcl = parse_int(where, t[1], "nrexcl");
        if (mol.nrexcl < 0) fail(where, "nrexcl must be non-negative");
        if (top_.moltype_index.count(mol.name)) fail(where, "molecule type '" + mol.name + "' is defined twice");
        top_.moltype_index[mol.name] = static_cast<int>(top_.moltypes.size());
        top_.moltypes.push_back(std::move(mol));
        moltype_pending_ = false;
    }

    // nr type resnr residue atom cgnr [charge [mass]]; defaults come from the atom type.
    void parse_atom(const Where& where, const std::vector<std::string>& t) {
        MoleculeType& mol = current_moltype(where);
        if (t.size() < 6) fail(where, "[ atoms ] expects nr type resnr residue atom cgnr [charge [mass]]");
        if (t.size() > 8) fail(where, "B-state (free-energy) columns in [ atoms ] are not supported");
        const int nr = parse_int(where, t[0], "atom number");
        if (nr != static_cast<int>(mol.atoms.size()) + 1)
            fail(where, "atoms must be numbered consecutively from 1 (expected " +
                            std::to_string(mol.atoms.size() + 1) + ", found " + t[0] + ")");
        const auto type_it = top_.atomtype_index.find(t[1]);
        if (type_it == top_.atomtype_index.end()) fail(where, "unknown atom type '" + t[1] + "'");
        const TopAtomType& type = top_.atomtypes[type_it->second];
        if (type.ptype != "A")
            fail(where, "atom type '" + type.name + "' has particle type " + type.ptype +
                            "; only A (atom) is supported");
        parse_int(where, t[2], "residue number");
        parse_int(where, t[5], "charge group number");
        TopAtom atom;
        atom.type = type_it->second;
        atom.name = t[4];
        atom.charge = t.size() > 6 ? parse_double(where, t[6], "charge") : type.charge;
        atom.mass = t.size() > 7 ? parse_double(where, t[7], "mass") : type.mass;
        if (!(atom.mass > 0.0)) fail(where, "atom '" + atom.name + "' must have a positive mass");
        atom.where = where;
        mol.atoms.push_back(std::move(atom));
    }

    // OW funct doh dhh: atoms OW, OW+1, OW+2 form one rigid water.
    void parse_settle(const Where& where, const std::vector<std::string>& t) {
        MoleculeType& mol = current_moltype(where);
        if (t.size() != 4) fail(where, "[ settles ] expects OW funct doh dhh");
        const int ow = parse_int(where, t[0], "settle oxygen index");
        const int natoms = static_cast<int>(mol.atoms.size());
        if (ow < 1 || ow + 2 > natoms)
            fail(where, "settle oxygen " + t[0] + " needs atoms " + t[0] + ".." + std::to_string(ow + 2) +
                            " but the molecule has " + std::to_string(natoms));
        if (parse_int(where, t[1], "settle function type") != 1) fail(where, "settle function type must be 1");
        TopSettle s{ow - 1, parse_double(where, t[2], "doh"), parse_double(where, t[3], "dhh")};
        if (!(s.d_oh > 0.0) || !(s.d_hh > 0.0) || !(s.d_hh < 2.0 * s.d_oh))
            fail(where, "settle distances must satisfy 0 < dhh < 2 doh");
        if (mol.settle) fail(where, "only one settle per molecule type is supported");
        mol.settle = s;
    }

    // ai aj ak ...: ai is excluded from each of the others.
    void parse_exclusion(const Where& where, const std::vector<std::string>& t) {
        MoleculeType& mol = current_moltype(where);
        const int natoms = static_cast<int>(mol.atoms.size());
        std::vector<int> idx;
        for (const std::string& s : t) {
            const int i = parse_int(where, s, "atom index");
            if (i < 1 || i > natoms)
                fail(where, "exclusion atom " + s + " is outside the molecule (1.." + std::to_string(natoms) + ")");
            idx.push_back(i - 1);
        }
        for (std::size_t k = 1; k < idx.size(); ++k) {
            if (idx[k] == idx[0]) fail(where, "atom " + t[0] + " cannot exclude itself");
            mol.exclusions.emplace_back(std::min(idx[0], idx[k]), std::max(idx[0], idx[k]));
        }
    }

    void parse_molecule_block(const Where& where, const std::vector<std::string>& t) {
        if (t.size() != 2) fail(where, "[ molecules ] expects name count");
        const auto it = top_.moltype_index.find(t[0]);
        if (it == top_.moltype_index.end()) fail(where, "unknown molecule type '" + t[0] + "'");
        const int count = parse_int(where, t[1], "molecule count");
        if (count < 0) fail(where, "molecule count must be non-negative");
        if (count > 0 && top_.moltypes[it->second].atoms.empty())
            fail(where, "molecule type '" + t[0] + "' has no [ atoms ]");
        top_.molecules.push_back({it->second, count, where});
    }

    MoleculeType& current_moltype(const Where& where) {
        if (moltype_pending_) fail(where, "[ moleculetype ] is missing its name nrexcl line");
        return top_.moltypes.back();
    }

    Topology top_;
    Directive current_ = Directive::None;
    bool moltype_pending_ = false;
    bool seen_any_directive_ = false;
    bool seen_molecules_ = false;
    std::vector<fs::path> include_stack_;
    int last_line_ = 0;
};

// ---------------------------------------------------------------------------
// Building the System from a Topology and a GroFile

// Converts one [ atomtypes ] entry to c6/c12 and sigma/epsilon for the comb-rule.
AtomType make_atom_type(const TopAtomType& t, int comb_rule) {
    AtomType a;
    a.name = t.name;
    if (comb_rule == 1) {
        a.c6 = t.v;
        a.c12 = t.w;
        if (a.c6 > 0.0 && a.c12 > 0.0) {
            a.sigma = std::pow(a.c12 / a.c6, 1.0 / 6.0);
            a.epsilon = a.c6 * a.c6 / (4.0 * a.c12);
        }
    } else {
        a.sigma = t.v;
        a.epsilon = t.w;
        const double s6 = std::pow(a.sigma, 6);
        a.c6 = 4.0 * a.epsilon * s6;
        a.c12 = 4.0 * a.epsilon * s6 * s6;
    }
    return a;
}

// Keeps only the atom types that some atom uses, in [ atomtypes ] order;
// returns the topology-index -> System-index map (-1 when unused).
std::vector<int> fill_atom_types(const Topology& top, System& sys) {
    std::vector<bool> used(top.atomtypes.size(), false);
    for (const MoleculeBlock& b : top.molecules)
        if (b.count > 0)
            for (const TopAtom& a : top.moltypes[b.moltype].atoms) used[a.type] = true;
    std::vector<int> remap(top.atomtypes.size(), -1);
    for (std::size_t i = 0; i < top.atomtypes.size(); ++i) {
        if (!used[i]) continue;
        remap[i] = static_cast<int>(sys.atom_types.size());
        sys.atom_types.push_back(make_atom_type(top.atomtypes[i], top.comb_rule));
    }
    // Comb-rule 3 (geometric sigma and epsilon) equals geometric c6 and c12.
    sys.lj = make_lj_matrix(sys.atom_types,
                            top.comb_rule == 2 ? CombinationRule::LorentzBerthelot : CombinationRule::Geometric);
    return remap;
}

void check_atom_count(const Topology& top, const std::string& top_path, const std::string& gro_path,
                      const GroFile& gro) {
    long long total = 0;
    for (const MoleculeBlock& b : top.molecules)
        total += static_cast<long long>(b.count) * static_cast<long long>(top.moltypes[b.moltype].atoms.size());
    if (total != static_cast<long long>(gro.positions.size()))
        fail({gro_path, 2}, "the .gro has " + std::to_string(gro.positions.size()) + " atoms but topology " +
                                top_path + " has " + std::to_string(total));
}

// Exclusions of one molecule (0-based local pairs): every pair of a settled
// molecule, plus the explicit [ exclusions ].
std::vector<std::pair<int, int>> molecule_exclusions(const MoleculeType& mol) {
    std::vector<std::pair<int, int>> pairs = mol.exclusions;
    if (mol.settle) {
        const int n = static_cast<int>(mol.atoms.size());
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j) pairs.emplace_back(i, j);
    }
    return pairs;
}

// Appends one molecule's atoms at `offset`, checking each name against the .gro.
void append_molecule(const MoleculeType& mol, const std::vector<int>& type_remap, const GroFile& gro,
                     const std::string& gro_path, int offset, System& sys) {
    for (std::size_t j = 0; j < mol.atoms.size(); ++j) {
        const TopAtom& atom = mol.atoms[j];
        const std::size_t i = static_cast<std::size_t>(offset) + j;
        if (gro.atom_name[i] != atom.name)
            fail({gro_path, static_cast<int>(i) + 3},
                 "atom name '" + gro.atom_name[i] + "' does not match '" + atom.name + "' of molecule " + mol.name +
                     " in the topology (" + atom.where.file + ":" + std::to_string(atom.where.line) + ")");
        sys.type.push_back(type_remap[atom.type]);
        sys.charge.push_back(atom.charge);
        sys.mass.push_back(atom.mass);
    }
    for (const auto& [a, b] : molecule_exclusions(mol)) {
        sys.exclusions[offset + a].push_back(offset + b);
        sys.exclusions[offset + b].push_back(offset + a);
    }
    if (mol.settle) {
        const TopSettle& s = *mol.settle;
        sys.settles.push_back({offset + s.o, offset + s.o + 1, offset + s.o + 2, s.d_oh, s.d_hh});
    }
}

// Sorted, duplicate-free lists; an all-empty set collapses to "no exclusions".
void finalize_exclusions(System& sys) {
    bool any = false;
    for (auto& list : sys.exclusions) {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
        any = any || !list.empty();
    }
    if (!any) sys.exclusions.clear();
}

// Dumps formatted text, reporting failures as std::runtime_error naming the file.
class OutputFile {
public:
    explicit OutputFile(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "w")) {
        if (!f_) throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(errno));
    }
    ~OutputFile() {
        if (f_) std::fclose(f_);
    }
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    template <typename... Args>
    void print(const char* format, Args... args) {
        std::fprintf(f_, format, args...);
    }
    void close() {
        const bool write_failed = std::ferror(f_) != 0;
        const bool close_failed = std::fclose(f_) != 0;
        f_ = nullptr;
        if (write_failed || close_failed) throw std::runtime_error(path_ + ": error while writing");
    }

private:
    std::string path_;
    std::FILE* f_;
};

}  // namespace

GroFile read_gro(const std::string& path) {
    const auto lines = read_lines(path);
    if (!lines) throw InputError(path + ": cannot open .gro file");
    return parse_gro_lines(*lines, path);
}

GroFile parse_gro_text(const std::string& text, const std::string& name) {
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
    const int natoms = parse_int(count_where, count_text, "atom count");
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
    // Anything after the box (further frames) is ignored, as GROMACS reads the first frame.
    return gro;
}

System read_gromacs_system(const std::string& gro_path, const std::string& top_path) {
    const Topology top = TopParser().parse(top_path);
    GroFile gro = read_gro(gro_path);
    check_atom_count(top, top_path, gro_path, gro);

    System sys;
    sys.kind = "gro";
    sys.box = gro.box;
    const std::vector<int> type_remap = fill_atom_types(top, sys);
    sys.exclusions.resize(gro.positions.size());
    int offset = 0;
    for (const MoleculeBlock& block : top.molecules) {
        const MoleculeType& mol = top.moltypes[block.moltype];
        for (int k = 0; k < block.count; ++k) {
            append_molecule(mol, type_remap, gro, gro_path, offset, sys);
            offset += static_cast<int>(mol.atoms.size());
        }
    }
    finalize_exclusions(sys);

    const std::size_t n = gro.positions.size();
    sys.velocities = gro.velocities.empty() ? std::vector<Vec3>(n, Vec3{0.0, 0.0, 0.0}) : std::move(gro.velocities);
    sys.positions = std::move(gro.positions);
    sys.atom_name = std::move(gro.atom_name);
    sys.residue_name = std::move(gro.residue_name);
    sys.residue_number = std::move(gro.residue_number);
    sys.removed_dof = 3 + 3 * static_cast<int>(sys.settles.size());
    return sys;
}

void write_gro(const std::string& path, const System& system, const std::string& title) {
    const std::size_t n = system.natoms();
    const bool names = system.atom_name.size() == n;
    const bool residue_names = system.residue_name.size() == n;
    const bool residue_numbers = system.residue_number.size() == n;
    const bool velocities = system.velocities.size() == n;
    std::string one_line_title = title;
    std::replace(one_line_title.begin(), one_line_title.end(), '\n', ' ');

    OutputFile out(path);
    out.print("%s\n%5zu\n", one_line_title.c_str(), n);
    for (std::size_t i = 0; i < n; ++i) {
        // GROMACS wraps residue and atom numbers to fit their 5 columns.
        const int resnr = (residue_numbers ? system.residue_number[i] : static_cast<int>(i) + 1) % 100000;
        const int atomnr = static_cast<int>((i + 1) % 100000);
        const Vec3& x = system.positions[i];
        out.print("%5d%-5.5s%5.5s%5d%8.3f%8.3f%8.3f", resnr, residue_names ? system.residue_name[i].c_str() : "MOL",
                  names ? system.atom_name[i].c_str() : "X", atomnr, x[0], x[1], x[2]);
        if (velocities) {
            const Vec3& v = system.velocities[i];
            out.print("%8.4f%8.4f%8.4f", v[0], v[1], v[2]);
        }
        out.print("\n");
    }
    const Vec3& b = system.box.lengths;
    out.print("%10.5f%10.5f%10.5f\n", b[0], b[1], b[2]);
    out.close();
}

void write_forces(const std::string& path, const std::vector<Vec3>& forces) {
    OutputFile out(path);
    for (const Vec3& f : forces) out.print("%.6e %.6e %.6e\n", f[0], f[1], f[2]);
    out.close();
}

}  // namespace mdcore
