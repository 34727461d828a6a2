// The .top reader: the supported directive subset into a Topology; anything else
// is an InputError naming the file, line and directive.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string_view>

#include "io/gromacs_io.h"
#include "io/topology.h"
#include "system/physical_limits.h"

namespace mdcore {
namespace {

namespace fs = std::filesystem;
using input::fail;
using input::lower;
using input::parse_double;
using input::parse_int;
using input::trim;
using input::Where;

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

// A 1-based atom index of a molecule, range-checked in 64 bits so that index + k
// cannot wrap around (an index near INT_MAX once passed the check and crashed).
void check_atom_range(const Where& where, long long first, long long last, int natoms, const std::string& what) {
    if (first < 1 || last > natoms)
        fail(where, what + " needs atoms " + std::to_string(first) + ".." + std::to_string(last) +
                        " but the molecule has " + std::to_string(natoms) + " (1.." + std::to_string(natoms) + ")");
}

class TopParser {
public:
    Topology parse(const std::string& path) {
        parse_file(path);
        top_.end = {path, last_line_};
        if (top_.comb_rule == 0) fail(top_.end, "the topology has no [ defaults ] directive");
        if (top_.molecules.empty()) fail(top_.end, "the topology has no [ molecules ] entries");
        return std::move(top_);
    }

private:
    void parse_file(const std::string& path) {
        const auto lines = input::read_lines(path);
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
        parse_data(line.where, input::split_ws(text));
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
        if (include_stack_.size() >= static_cast<std::size_t>(kMaxIncludeDepth))
            fail(where, "#include \"" + name + "\" nests deeper than the limit of " +
                            std::to_string(kMaxIncludeDepth) + " files");
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
        type.where = where;
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
        for (const std::string& problem : {limits::mass_problem(atom.mass), limits::charge_problem(atom.charge)})
            if (!problem.empty()) fail(where, "atom '" + atom.name + "': " + problem);
        atom.where = where;
        mol.atoms.push_back(std::move(atom));
    }

    // OW funct doh dhh: atoms OW, OW+1, OW+2 form one rigid water.
    void parse_settle(const Where& where, const std::vector<std::string>& t) {
        MoleculeType& mol = current_moltype(where);
        if (t.size() != 4) fail(where, "[ settles ] expects OW funct doh dhh");
        const int ow = parse_int(where, t[0], "settle oxygen index");
        check_atom_range(where, ow, static_cast<long long>(ow) + 2, static_cast<int>(mol.atoms.size()),
                         "settle oxygen " + t[0]);
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

}  // namespace

Topology parse_topology(const std::string& path) { return TopParser().parse(path); }

}  // namespace mdcore
