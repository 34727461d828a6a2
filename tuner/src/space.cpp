// Search spaces from TOML: [system] (what to run), [space] (parameters to sweep),
// [measure] (how to time it). Everything is checked here so a sweep never starts
// on a file it will choke on halfway through.
#include "mdtune/tuner/space.h"

#include "mdtune/core/file_text.h"
#include "mdtune/core/format_number.h"
#include "mdtune/core/input_error.h"
#include "mdtune/core/system_files.h"

#include <filesystem>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "mdcore/generators.h"

namespace mdtune::tuner {
namespace {

// mdcore's own ranges for the run flags a space sets (engine/src/cli/run_command.cpp;
// the tunables' ranges come from mdcore/tunables.h): a value outside them would
// fail every trial, so the space is refused up front.
constexpr long kMaxSteps = 1'000'000'000;
constexpr long kMaxRepeats = 1000;
constexpr long kMaxAtoms = 100'000'000;
constexpr long kMaxWaterAtoms = 3 * 10'000'000;  // --nwater up to 10^7

std::string above_limit(double max) { return format_number(" is above the limit of %.15g", max); }

// Every message starts "<source>: [section] " and ends with the line it refers to,
// so users can find the spot in an editor and scripts can grep for the key.
class Checker {
public:
    explicit Checker(std::string source) : source_(std::move(source)) {}

    [[noreturn]] void fail(const std::string& section, const std::string& msg, const toml::source_region* where) const {
        std::string text = source_ + ": ";
        if (!section.empty()) text += "[" + section + "] ";
        text += msg;
        if (where && where->begin.line > 0) text += " (line " + std::to_string(where->begin.line) + ")";
        throw SpaceError(text);
    }

    // Scalar or list -> list of nodes; an empty list is an error naming the key.
    std::vector<const toml::node*> items(const std::string& section, const std::string& key, const toml::node& node) const {
        std::vector<const toml::node*> out;
        if (const toml::array* arr = node.as_array()) {
            if (arr->empty()) fail(section, "'" + key + "' is an empty list", &node.source());
            for (const toml::node& n : *arr) out.push_back(&n);
        } else if (node.is_table()) {
            fail(section, "'" + key + "' must be a value or a list, not a table", &node.source());
        } else {
            out.push_back(&node);
        }
        return out;
    }

    long integer(const std::string& section, const std::string& key, const toml::node& node) const {
        if (const auto* v = node.as_integer()) return static_cast<long>(v->get());
        fail(section, "'" + key + "' must be an integer", &node.source());
    }

    double real(const std::string& section, const std::string& key, const toml::node& node) const {
        if (const auto* v = node.as_integer()) return static_cast<double>(v->get());
        if (const auto* v = node.as_floating_point()) return v->get();
        fail(section, "'" + key + "' must be a number", &node.source());
    }

    std::string text(const std::string& section, const std::string& key, const toml::node& node) const {
        if (const auto* v = node.as_string()) return v->get();
        fail(section, "'" + key + "' must be a string", &node.source());
    }

private:
    std::string source_;
};

// toml::table iterates in key order; dims must keep the order the user wrote.
std::vector<std::pair<std::string, const toml::node*>> in_file_order(const toml::table& t) {
    std::vector<std::pair<std::string, const toml::node*>> out;
    for (const auto& [k, v] : t) out.emplace_back(std::string(k.str()), &v);
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        const auto& pa = a.second->source().begin;
        const auto& pb = b.second->source().begin;
        return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
    });
    return out;
}

// A value of the table's kind, checked by the table's rules (mdcore's flag
// ranges). A machine-bound upper limit (threads) is the feasibility check's.
ParamValue parse_value(const Checker& ck, const ParamInfo& info, const toml::node& node) {
    const std::string key(info.name);
    try {
        switch (info.kind) {
            case mdcore::TunableKind::Integer: {
                const long v = ck.integer("space", key, node);
                mdcore::check_tunable(info.id, info.machine_bound ? std::min(v, static_cast<long>(info.max)) : v, key);
                return v;
            }
            case mdcore::TunableKind::Real: {
                const double v = ck.real("space", key, node);
                mdcore::check_tunable(info.id, v, key);
                return v;
            }
            case mdcore::TunableKind::Choice:
            case mdcore::TunableKind::Grid:
                return param_value(mdcore::parse_tunable(info.id, ck.text("space", key, node), key));
        }
    } catch (const mdcore::TunableError& e) {
        ck.fail("space", e.what(), &node.source());
    }
    return {};
}

// [system] gro = "conf.gro", top = "topol.top" (mdp = "md.mdp"): a user's box,
// paths relative to the space file.
void parse_system_files(const Checker& ck, const toml::table& t, const toml::node* gro_node,
                        const toml::node* top_node, const toml::node* mdp_node, SearchSpace& space) {
    if (!gro_node || !top_node)
        ck.fail("system", gro_node ? "gro needs top" : top_node ? "top needs gro" : "mdp needs gro and top",
                &t.source());
    const std::filesystem::path folder = std::filesystem::path(space.source).parent_path();
    auto path_of = [&](const char* key, const toml::node& n) {
        const std::filesystem::path p = ck.text("system", key, n);
        return (p.is_relative() && !folder.empty() ? folder / p : p).string();
    };
    const std::string mdp = mdp_node ? path_of("mdp", *mdp_node) : "";
    try {
        space.systems.push_back(describe_system_files(path_of("gro", *gro_node), path_of("top", *top_node), mdp));
    } catch (const InputError& e) {
        // The .mdp's refusals name it (FILE:LINE): point at its key, the rest at gro.
        const bool about_mdp = !mdp.empty() && std::string(e.what()).find(mdp) != std::string::npos;
        ck.fail("system", e.what(), about_mdp ? &mdp_node->source() : &gro_node->source());
    }
}

void parse_system(const Checker& ck, const toml::table& t, SearchSpace& space) {
    const toml::node* kind_node = nullptr;
    const toml::node* natoms_node = nullptr;
    const toml::node* gro_node = nullptr;
    const toml::node* top_node = nullptr;
    const toml::node* mdp_node = nullptr;
    unsigned long seed = 1;
    for (const auto& [key, node] : in_file_order(t)) {
        if (key == "kind") kind_node = node;
        else if (key == "natoms") natoms_node = node;
        else if (key == "gro") gro_node = node;
        else if (key == "top") top_node = node;
        else if (key == "mdp") mdp_node = node;
        else if (key == "seed") {
            const long s = ck.integer("system", key, *node);
            if (s < 0) ck.fail("system", "seed: " + std::to_string(s) + " must not be negative", &node->source());
            seed = static_cast<unsigned long>(s);
        } else {
            ck.fail("system", "unknown key '" + key + "' (kind, natoms, seed; or gro, top, mdp)", &node->source());
        }
    }
    if (gro_node || top_node || mdp_node) {
        if (kind_node || natoms_node) ck.fail("system", "gro/top replace kind/natoms: give one or the other", &t.source());
        return parse_system_files(ck, t, gro_node, top_node, mdp_node, space);
    }
    if (!kind_node) ck.fail("system", "missing key 'kind'", &t.source());
    if (!natoms_node) ck.fail("system", "missing key 'natoms'", &t.source());
    const std::string kind = ck.text("system", "kind", *kind_node);
    const auto typed_kind = mdcore::parse_system_kind(kind);
    if (!typed_kind)
        ck.fail("system", "kind: unknown system '" + kind + "' (" + mdcore::system_kind_names() + ")",
                &kind_node->source());
    const bool water = mdcore::is_water(*typed_kind);
    std::set<long> seen;
    for (const toml::node* n : ck.items("system", "natoms", *natoms_node)) {
        const long natoms = ck.integer("system", "natoms", *n);
        const long max_atoms = water ? kMaxWaterAtoms : kMaxAtoms;
        if (natoms <= 0) ck.fail("system", "natoms: " + std::to_string(natoms) + " must be positive", &n->source());
        if (natoms > max_atoms)
            ck.fail("system", "natoms: " + std::to_string(natoms) + above_limit(static_cast<double>(max_atoms)),
                    &n->source());
        if (water && natoms % 3 != 0)
            ck.fail("system",
                    "natoms: " + std::to_string(natoms) + " is not a multiple of 3 (" + kind +
                        " counts atoms as 3 x nwater)",
                    &n->source());
        if (!seen.insert(natoms).second)
            ck.fail("system", "natoms: " + std::to_string(natoms) + " is listed twice", &n->source());
        space.systems.push_back(SystemDescriptor{*typed_kind, natoms, seed});
    }
}

void parse_dims(const Checker& ck, const toml::table& t, SearchSpace& space) {
    for (const auto& [key, node] : in_file_order(t)) {
        const auto p = param_by_name(key);
        if (!p) ck.fail("space", "unknown parameter '" + key + "'", &node->source());
        const ParamInfo& info = param_info(*p);
        std::vector<ParamValue> values;
        std::set<std::string> seen;
        for (const toml::node* n : ck.items("space", key, *node)) {
            ParamValue v = parse_value(ck, info, *n);
            if (!seen.insert(to_string(v)).second)
                ck.fail("space", key + ": value " + to_string(v) + " is listed twice", &n->source());
            values.push_back(std::move(v));
        }
        space.dims.emplace_back(*p, std::move(values));
    }
}

void parse_measure(const Checker& ck, const toml::table& t, MeasureSettings& m) {
    const toml::node* warmup_node = nullptr;
    for (const auto& [key, node] : in_file_order(t)) {
        const toml::source_region* where = &node->source();
        if (key == "steps") {
            m.steps = ck.integer("measure", key, *node);
            if (m.steps <= 0) ck.fail("measure", "steps: " + std::to_string(m.steps) + " must be positive", where);
            if (m.steps > kMaxSteps) ck.fail("measure", "steps: " + std::to_string(m.steps) + above_limit(kMaxSteps), where);
        } else if (key == "warmup") {
            m.warmup = ck.integer("measure", key, *node);
            if (m.warmup < 0) ck.fail("measure", "warmup: " + std::to_string(m.warmup) + " must not be negative", where);
            if (m.warmup > kMaxSteps)
                ck.fail("measure", "warmup: " + std::to_string(m.warmup) + above_limit(kMaxSteps), where);
            warmup_node = node;
        } else if (key == "repeats") {
            const long r = ck.integer("measure", key, *node);
            if (r < 1) ck.fail("measure", "repeats: " + std::to_string(r) + " must be 1 or more", where);
            if (r > kMaxRepeats) ck.fail("measure", "repeats: " + std::to_string(r) + above_limit(kMaxRepeats), where);
            m.repeats = static_cast<int>(r);
        } else if (key == "timeout_s") {
            m.timeout_s = ck.real("measure", key, *node);
            if (!(m.timeout_s > 0))
                ck.fail("measure", "timeout_s: " + format_number("%.4g", m.timeout_s) + " must be positive", where);
            if (!std::isfinite(m.timeout_s)) ck.fail("measure", "timeout_s: inf must be a finite number of seconds", where);
        } else {
            ck.fail("measure", "unknown key '" + key + "' (steps, warmup, repeats, timeout_s)", where);
        }
    }
    // Warm-up steps are excluded from timing, so at least one step must remain.
    if (m.warmup >= m.steps)
        ck.fail("measure",
                "warmup (" + std::to_string(m.warmup) + ") must be below steps (" + std::to_string(m.steps) + ")",
                warmup_node ? &warmup_node->source() : nullptr);
}

// [launch] nodes, oversubscribe. A trial's ranks are a tunable ([space] ranks), so
// trials are keyed by them; a fixed [launch] ranks above 1 would run every trial on
// more ranks under a key that does not say so, and is refused.
void parse_launch(const Checker& ck, const toml::table& t, LaunchSettings& l) {
    for (const auto& [key, node] : in_file_order(t)) {
        const toml::source_region* where = &node->source();
        if (key == "oversubscribe") {
            const auto* flag = node->as_boolean();
            if (!flag) ck.fail("launch", "'oversubscribe' must be true or false", where);
            l.oversubscribe = flag->get();
            continue;
        }
        if (key != "nodes" && key != "ranks")
            ck.fail("launch", "unknown key '" + key + "' (nodes, ranks, oversubscribe)", where);
        const long v = ck.integer("launch", key, *node);
        if (v < 1 || v > 100000) ck.fail("launch", key + ": " + std::to_string(v) + " must be 1 to 100000", where);
        if (key == "ranks" && v > 1)
            ck.fail("launch",
                    "ranks: " + std::to_string(v) + ": the ranks of a trial are a tunable; sweep them in [space] "
                    "(ranks = [1, " + std::to_string(v) + "]) so that every trial is keyed by its ranks",
                    where);
        if (key == "nodes") l.nodes = static_cast<int>(v);
    }
}

// [engine] name = "mdcore" | "gromacs", program = "gmx", grompp_maxwarn = N.
void parse_engine(const Checker& ck, const toml::table& t, EngineSettings& e) {
    for (const auto& [key, node] : in_file_order(t)) {
        const toml::source_region* where = &node->source();
        if (key == "name") {
            const std::string name = ck.text("engine", key, *node);
            const auto kind = parse_engine_name(name);
            if (!kind) ck.fail("engine", "name: unknown engine '" + name + "' (" + kEngineNames + ")", where);
            e.kind = *kind;
        } else if (key == "program") {
            e.program = ck.text("engine", key, *node);
            if (e.program.empty()) ck.fail("engine", "program: empty (the engine's program, e.g. \"gmx\" or a path)", where);
        } else if (key == "grompp_maxwarn") {
            const long v = ck.integer("engine", key, *node);
            if (v < 0 || v > 100) ck.fail("engine", "grompp_maxwarn: " + std::to_string(v) + " must be 0 to 100", where);
            e.grompp_maxwarn = static_cast<int>(v);
        } else {
            ck.fail("engine", "unknown key '" + key + "' (name, program, grompp_maxwarn)", where);
        }
    }
}

// What the space asks of its engine: tunables it has, systems it runs.
void check_engine(const Checker& ck, const toml::table& root, const SearchSpace& space) {
    const EngineKind kind = space.engine.kind;
    if (kind == EngineKind::Mdcore) {
        if (space.engine.grompp_maxwarn > 0)
            ck.fail("engine", "grompp_maxwarn applies to engine gromacs, not mdcore", nullptr);
        return;
    }
    const toml::table* dims = root["space"].as_table();
    for (const auto& [param, values] : space.dims)
        if (!engine_has_tunable(kind, param)) {
            const toml::node* node = dims ? dims->get(param_info(param).name) : nullptr;
            ck.fail("space",
                    "'" + std::string(param_info(param).name) + "': engine " + std::string(engine_name(kind)) +
                        " has no such tunable (it has " + engine_tunable_names(kind) + ")",
                    node ? &node->source() : nullptr);
        }
    for (const SystemDescriptor& system : space.systems)
        if (!system.from_files() || system.mdp.empty())
            ck.fail("system",
                    "engine " + std::string(engine_name(kind)) + " runs a GROMACS input: give gro, top and mdp",
                    nullptr);
}

}  // namespace

namespace {
// a * b, or kMaxSpacePoints when the product reaches it.
std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b) {
    std::uint64_t p = 0;
    if (__builtin_mul_overflow(a, b, &p) || p >= kMaxSpacePoints) return kMaxSpacePoints;
    return p;
}
}  // namespace

std::uint64_t SearchSpace::config_count() const {
    std::uint64_t n = 1;
    for (const auto& dim : dims) n = saturating_product(n, dim.second.size());
    return n;
}

std::uint64_t SearchSpace::size() const { return saturating_product(systems.size(), config_count()); }

Config SearchSpace::config_at(std::uint64_t k) const {
    if (k >= config_count()) throw std::out_of_range("config index " + std::to_string(k) + " is outside the space");
    Config c;
    // Last dim fastest, as in configs(): peel digits off from the back.
    for (auto dim = dims.rbegin(); dim != dims.rend(); ++dim) {
        const std::uint64_t radix = dim->second.size();
        c.set(dim->first, dim->second[k % radix]);
        k /= radix;
    }
    return c;
}

SpacePoint SearchSpace::point_at(std::uint64_t k) const {
    if (k >= size()) throw std::out_of_range("point index " + std::to_string(k) + " is outside the space");
    const std::uint64_t per_system = config_count();
    return SpacePoint{static_cast<std::size_t>(k / per_system), config_at(k % per_system)};
}

std::vector<Config> SearchSpace::configs() const {
    std::vector<Config> out{Config{}};
    // First dim outermost: the product reads like nested loops in file order.
    for (const auto& [param, values] : dims) {
        std::vector<Config> next;
        next.reserve(out.size() * values.size());
        for (const Config& base : out)
            for (const ParamValue& v : values) {
                Config c = base;
                c.set(param, v);
                next.push_back(std::move(c));
            }
        out = std::move(next);
    }
    return out;
}

std::string SearchSpace::infeasible_reason(const SystemDescriptor& system, const Config& config,
                                           const HardwareCaps& hw) const {
    HardwareCaps caps = hw;
    caps.oversubscribe = caps.oversubscribe || launch.oversubscribe;
    // mdcore's rules (resolve_config) bind mdcore; another engine has its own (engine_rules).
    std::string reason = engine.kind == EngineKind::Mdcore ? mdtune::infeasible_reason(system, config, caps)
                                                           : machine_infeasible_reason(config, caps);
    if (reason.empty() && engine_rules) reason = engine_rules(system, config);
    return reason;
}

SearchSpace parse_space(const std::string& toml_text, const std::string& source) {
    const Checker ck(source);
    if (const std::size_t line = mdcore::first_long_line(toml_text))
        throw SpaceError(source + ":" + std::to_string(line) + ": line is longer than the limit of " +
                         mdcore::size_text(mdcore::kMaxInputLineBytes));
    toml::table root;
    try {
        root = toml::parse(toml_text, source);
    } catch (const toml::parse_error& e) {
        const auto& b = e.source().begin;
        throw SpaceError(source + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) + ": " +
                         mdcore::printable_excerpt(e.description(), 200));
    }
    SearchSpace space;
    space.source = source;
    space.text = toml_text;
    bool have_system = false;
    for (const auto& [key, node] : in_file_order(root)) {
        const toml::table* t = node->as_table();
        if (key != "system" && key != "space" && key != "measure" && key != "launch" && key != "engine")
            ck.fail("", "unknown section [" + key + "] (system, space, measure, launch, engine)", &node->source());
        if (!t) ck.fail("", "'" + key + "' must be a section [" + key + "]", &node->source());
        if (key == "system") {
            parse_system(ck, *t, space);
            have_system = true;
        } else if (key == "space") {
            parse_dims(ck, *t, space);
        } else if (key == "launch") {
            parse_launch(ck, *t, space.launch);
        } else if (key == "engine") {
            parse_engine(ck, *t, space.engine);
        } else {
            parse_measure(ck, *t, space.measure);
        }
    }
    if (!have_system) ck.fail("", "missing section [system] (kind, natoms)", nullptr);
    for (const auto& [param, values] : space.dims)
        if (param == Param::Ranks)
            for (const ParamValue& v : values) space.launch.ranks = std::max(space.launch.ranks, static_cast<int>(std::get<long>(v)));
    if (space.launch.nodes > space.launch.ranks)
        ck.fail("launch",
                "nodes (" + std::to_string(space.launch.nodes) + ") must not exceed the most ranks a trial uses (" +
                    std::to_string(space.launch.ranks) + ")",
                nullptr);
    if (space.systems.empty()) ck.fail("system", "no systems to run", nullptr);
    check_engine(ck, root, space);
    if (space.size() >= kMaxSpacePoints)
        ck.fail("space",
                "the space has 2^63 or more (system, config) points (the product of the list lengths); "
                "split it into smaller spaces",
                nullptr);
    return space;
}

SearchSpace load_space(const std::string& path) {
    const FileText file = read_file_text(path);
    if (!file.ok()) throw SpaceError(path + ": cannot read the space file: it " + file.error);
    return parse_space(file.text, path);
}

}  // namespace mdtune::tuner
