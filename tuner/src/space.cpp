// Search spaces from TOML: [system] (what to run), [space] (parameters to sweep),
// [measure] (how to time it). Everything is checked here so a sweep never starts
// on a file it will choke on halfway through.
#include "mdtune/space.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "mdcore/generators.h"
#include "mdcore/units.h"

namespace mdtune {
namespace {

constexpr const char* kKinds[] = {"lj", "argon", "lammps-lj", "water", "water-ions"};
constexpr const char* kClusters[] = {"4x4", "4x8", "8x4", "1x1"};
constexpr const char* kSimd[] = {"auto", "none", "avx2", "avx512"};
constexpr double kWaterMass = 15.9994 + 2 * 1.008;  // amu, SPC/E (mdcore's masses)

// mdcore's own ranges for the flags a space sets (engine/src/cli/mdcore_main.cpp):
// a value outside them would fail every trial, so the space is refused up front.
// (threads is bounded by the machine instead: infeasible_reason says how many it has.)
constexpr long kMaxSteps = 1'000'000'000;
constexpr long kMaxRepeats = 1000;
constexpr long kMaxAtoms = 100'000'000;
constexpr long kMaxWaterAtoms = 3 * 10'000'000;  // --nwater up to 10^7

double max_value(Param p) {
    switch (p) {
        case Param::Nstlist:
        case Param::Nstprune: return 100000;
        case Param::Rlist: return 1e3;
        case Param::PmeScale:
        case Param::PmeSpacing: return 10;
        default: return std::numeric_limits<double>::infinity();
    }
}

std::string above_limit(double max) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " is above the limit of %.15g", max);
    return buf;
}

bool is_water(const std::string& kind) { return kind == "water" || kind == "water-ions"; }

template <std::size_t N>
bool one_of(const std::string& s, const char* const (&set)[N]) {
    return std::any_of(std::begin(set), std::end(set), [&](const char* v) { return s == v; });
}

template <std::size_t N>
std::string join(const char* const (&set)[N]) {
    std::string out;
    for (const char* v : set) out += (out.empty() ? "" : ", ") + std::string(v);
    return out;
}

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

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

ParamValue parse_value(const Checker& ck, const ParamInfo& info, const toml::node& node) {
    const std::string key(info.name);
    const toml::source_region* where = &node.source();
    switch (info.id) {
        case Param::Cluster: {
            const std::string v = ck.text("space", key, node);
            if (!one_of(v, kClusters)) ck.fail("space", key + ": '" + v + "' is not one of " + join(kClusters), where);
            return v;
        }
        case Param::Simd: {
            const std::string v = ck.text("space", key, node);
            if (!one_of(v, kSimd)) ck.fail("space", key + ": '" + v + "' is not one of " + join(kSimd), where);
            return v;
        }
        case Param::PmeOrder: {
            const long v = ck.integer("space", key, node);
            if (v < 4 || v > 6) ck.fail("space", key + ": " + std::to_string(v) + " is not 4, 5 or 6", where);
            return v;
        }
        default: break;
    }
    switch (info.kind) {
        case ValueKind::Integer: {
            const long v = ck.integer("space", key, node);
            if (v <= 0) ck.fail("space", key + ": " + std::to_string(v) + " must be positive", where);
            if (static_cast<double>(v) > max_value(info.id))
                ck.fail("space", key + ": " + std::to_string(v) + above_limit(max_value(info.id)), where);
            return v;
        }
        case ValueKind::Real: {
            const double v = ck.real("space", key, node);
            if (std::isnan(v)) ck.fail("space", key + ": nan is not a number", where);
            if (!(v > 0)) ck.fail("space", key + ": " + fmt(v) + " must be positive", where);
            if (v > max_value(info.id)) ck.fail("space", key + ": " + fmt(v) + above_limit(max_value(info.id)), where);
            return v;
        }
        case ValueKind::Text: return ck.text("space", key, node);
    }
    return {};
}

void parse_system(const Checker& ck, const toml::table& t, SearchSpace& space) {
    const toml::node* kind_node = nullptr;
    const toml::node* natoms_node = nullptr;
    unsigned long seed = 1;
    for (const auto& [key, node] : in_file_order(t)) {
        if (key == "kind") kind_node = node;
        else if (key == "natoms") natoms_node = node;
        else if (key == "seed") {
            const long s = ck.integer("system", key, *node);
            if (s < 0) ck.fail("system", "seed: " + std::to_string(s) + " must not be negative", &node->source());
            seed = static_cast<unsigned long>(s);
        } else {
            ck.fail("system", "unknown key '" + key + "' (kind, natoms, seed)", &node->source());
        }
    }
    if (!kind_node) ck.fail("system", "missing key 'kind'", &t.source());
    if (!natoms_node) ck.fail("system", "missing key 'natoms'", &t.source());
    const std::string kind = ck.text("system", "kind", *kind_node);
    if (!one_of(kind, kKinds))
        ck.fail("system", "kind: unknown system '" + kind + "' (" + join(kKinds) + ")", &kind_node->source());
    std::set<long> seen;
    for (const toml::node* n : ck.items("system", "natoms", *natoms_node)) {
        const long natoms = ck.integer("system", "natoms", *n);
        const long max_atoms = is_water(kind) ? kMaxWaterAtoms : kMaxAtoms;
        if (natoms <= 0) ck.fail("system", "natoms: " + std::to_string(natoms) + " must be positive", &n->source());
        if (natoms > max_atoms)
            ck.fail("system", "natoms: " + std::to_string(natoms) + above_limit(static_cast<double>(max_atoms)),
                    &n->source());
        if (is_water(kind) && natoms % 3 != 0)
            ck.fail("system",
                    "natoms: " + std::to_string(natoms) + " is not a multiple of 3 (" + kind +
                        " counts atoms as 3 x nwater)",
                    &n->source());
        if (!seen.insert(natoms).second)
            ck.fail("system", "natoms: " + std::to_string(natoms) + " is listed twice", &n->source());
        space.systems.push_back(SystemDescriptor{kind, natoms, seed});
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
            if (!(m.timeout_s > 0)) ck.fail("measure", "timeout_s: " + fmt(m.timeout_s) + " must be positive", where);
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

// [launch] nodes, ranks. mdcore runs one rank until domain decomposition lands,
// so more ranks are refused here rather than failing every trial.
void parse_launch(const Checker& ck, const toml::table& t, LaunchSettings& l) {
    for (const auto& [key, node] : in_file_order(t)) {
        const toml::source_region* where = &node->source();
        if (key != "nodes" && key != "ranks") ck.fail("launch", "unknown key '" + key + "' (nodes, ranks)", where);
        const long v = ck.integer("launch", key, *node);
        if (v < 1 || v > 100000) ck.fail("launch", key + ": " + std::to_string(v) + " must be 1 to 100000", where);
        (key == "nodes" ? l.nodes : l.ranks) = static_cast<int>(v);
        if (key == "ranks" && v > 1)
            ck.fail("launch",
                    "ranks: " + std::to_string(v) + ": mdcore trials run one rank (the engine is not MPI-parallel "
                    "yet); MPI benchmarks with more ranks: mdtune mpi sweep",
                    where);
    }
    if (l.nodes > l.ranks)
        ck.fail("launch", "nodes (" + std::to_string(l.nodes) + ") must not exceed ranks (" + std::to_string(l.ranks) + ")",
                &t.source());
}

// Box edge (nm) and physics cut-off (nm) of a generated system, from the same
// specs mdcore's generators use, without building the system.
struct Geometry {
    double box = 0, rc = 0;
};

std::optional<Geometry> geometry(const SystemDescriptor& s) {
    if (s.natoms <= 0) return std::nullopt;
    if (is_water(s.kind)) {
        const mdcore::WaterSpec spec;
        const double nwater = static_cast<double>(s.natoms / 3);
        const double volume = nwater * kWaterMass * mdcore::units::kAmuPerNm3ToGPerCm3 / spec.density;
        return Geometry{std::cbrt(volume), spec.rc};
    }
    mdcore::LjFluidSpec spec;
    if (s.kind == "lj") spec = mdcore::lj_spec();
    else if (s.kind == "argon") spec = mdcore::argon_spec();
    else if (s.kind == "lammps-lj") spec = mdcore::lammps_lj_spec();
    else return std::nullopt;
    const double number_density = spec.reduced_density / (spec.sigma * spec.sigma * spec.sigma);
    return Geometry{std::cbrt(static_cast<double>(s.natoms) / number_density), spec.rc};
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
    const auto geo = geometry(system);
    if (!geo) return "unknown system '" + system.kind + "' or no atoms";

    if (const auto t = config.value<long>(Param::Threads)) {
        if (*t <= 0) return "threads = " + std::to_string(*t) + " is not positive";
        if (*t > hw.cores)
            return "threads = " + std::to_string(*t) + " exceeds the " + std::to_string(hw.cores) + " hardware threads";
    }
    if (const auto s = config.value<std::string>(Param::Simd); s && *s != "auto") {
        if (std::find(hw.simd_levels.begin(), hw.simd_levels.end(), *s) == hw.simd_levels.end())
            return "simd = " + *s + " is not available on this machine";
    }
    const auto nstlist = config.value<long>(Param::Nstlist);
    const auto nstprune = config.value<long>(Param::Nstprune);
    // Only when both are set: mdcore's default nstlist is a heuristic we don't mirror.
    if (nstlist && nstprune && *nstprune > *nstlist)
        return "nstprune = " + std::to_string(*nstprune) + " exceeds nstlist = " + std::to_string(*nstlist);
    if (const auto o = config.value<long>(Param::PmeOrder); o && (*o < 4 || *o > 6))
        return "pme_order = " + std::to_string(*o) + " is not 4, 5 or 6";

    // mdcore scales rc by pme_scale for every system (a no-op only in the sense that
    // LJ-only systems have no mesh), so the half-box rule applies to all kinds.
    const double scale = config.value<double>(Param::PmeScale).value_or(1.0);
    const double rc = geo->rc * scale;
    if (rc >= 0.5 * geo->box)
        return "rc x pme_scale = " + fmt(rc) + " nm is not below half the box (" + fmt(0.5 * geo->box) + " nm)";
    if (const auto rlist = config.value<double>(Param::Rlist)) {
        if (*rlist < rc) return "rlist = " + fmt(*rlist) + " nm is below rc x pme_scale (" + fmt(rc) + " nm)";
        if (*rlist >= 2.0 * geo->box)
            return "rlist = " + fmt(*rlist) + " nm is not below twice the box (" + fmt(2.0 * geo->box) + " nm)";
    }

    // GPU-only choices: none exist yet. When a GPU parameter (offload mode, 8x8
    // super-cluster shape, ...) joins the registry, reject it here unless hw.has_gpu.
    (void)hw.has_gpu;
    return "";
}

SearchSpace parse_space(const std::string& toml_text, const std::string& source) {
    const Checker ck(source);
    toml::table root;
    try {
        root = toml::parse(toml_text, source);
    } catch (const toml::parse_error& e) {
        const auto& b = e.source().begin;
        throw SpaceError(source + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) + ": " +
                         std::string(e.description()));
    }
    SearchSpace space;
    space.source = source;
    space.text = toml_text;
    bool have_system = false;
    for (const auto& [key, node] : in_file_order(root)) {
        const toml::table* t = node->as_table();
        if (key != "system" && key != "space" && key != "measure" && key != "launch")
            ck.fail("", "unknown section [" + key + "] (system, space, measure, launch)", &node->source());
        if (!t) ck.fail("", "'" + key + "' must be a section [" + key + "]", &node->source());
        if (key == "system") {
            parse_system(ck, *t, space);
            have_system = true;
        } else if (key == "space") {
            parse_dims(ck, *t, space);
        } else if (key == "launch") {
            parse_launch(ck, *t, space.launch);
        } else {
            parse_measure(ck, *t, space.measure);
        }
    }
    if (!have_system) ck.fail("", "missing section [system] (kind, natoms)", nullptr);
    if (space.systems.empty()) ck.fail("system", "no systems to run", nullptr);
    if (space.size() >= kMaxSpacePoints)
        ck.fail("space",
                "the space has 2^63 or more (system, config) points (the product of the list lengths); "
                "split it into smaller spaces",
                nullptr);
    return space;
}

SearchSpace load_space(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw SpaceError(path + ": cannot open the space file");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw SpaceError(path + ": cannot read the space file");
    return parse_space(text.str(), path);
}

}  // namespace mdtune
