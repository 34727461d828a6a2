// The tunable table and the one parser/checker of tunable values.
#include "mdcore/tunables.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace mdcore {
namespace {

constexpr std::array<std::string_view, 4> kShapeNames{"4x4", "4x8", "8x4", "1x1"};
constexpr std::array<std::string_view, 4> kSimdNames{"auto", "none", "avx2", "avx512"};
constexpr std::array<std::string_view, 2> kOffloadNames{"cpu", "gpu"};

template <class T>
T as(const TunableValue& v) {
    return std::get<T>(v);
}
int as_int(const TunableValue& v) { return static_cast<int>(std::get<long>(v)); }

// The table. Ranges are mdcore's flag ranges; defaults are resolve_config's.
const std::array<TunableInfo, 17> kTunables{{
    {Tunable::Cluster, "cluster", "--cluster", TunableKind::Choice, "4x4|4x8|8x4|1x1", 0, 0, false, kShapeNames,
     "with AVX-512 4x8 for charged systems, 8x4 without charges; else 4x4", "nonbonded cluster shape (i x j atoms)",
     [](RunConfig& c, const TunableValue& v) { c.cluster = as<ClusterShape>(v); },
     [](const EffectiveConfig& e) { return TunableValue{e.cluster}; }},
    {Tunable::Nstlist, "nstlist", "--nstlist", TunableKind::Integer, "N", 1, 100000, false, {},
     "with a thermostat: the largest of 20, 25, 40, 50, 80, 100 that grows the list at most 1.25x (--nb gpu: 1.4x) over nstlist 10's (GROMACS' rule; decomposed: 20 when the longer list's halo does not fit the cells); else 20",
     "steps between pair searches",
     [](RunConfig& c, const TunableValue& v) { c.nstlist = as_int(v); },
     [](const EffectiveConfig& e) { return TunableValue{long{e.nstlist}}; }},
    {Tunable::Nstprune, "nstprune", "--nstprune", TunableKind::Integer, "N", 1, 100000, false, {},
     "the longest interval (>= 4) whose inner list needs no buffer (--nb gpu: pruned on the GPU, one rolling part per step); with --rlist or the decomposed fallback nstlist / 2 when nstlist > 5, else no pruning",
     "steps between list prunes (>= nstlist: no pruning)",
     [](RunConfig& c, const TunableValue& v) { c.nstprune = as_int(v); },
     [](const EffectiveConfig& e) { return TunableValue{long{e.nstprune}}; }},
    {Tunable::Rlist, "rlist", "--rlist", TunableKind::Real, "NM", 0, 1e3, false, {},
     "Verlet-buffer estimate for the drift tolerance", "outer pair-list radius, nm (>= rc)",
     [](RunConfig& c, const TunableValue& v) { c.rlist = as<double>(v); },
     [](const EffectiveConfig& e) { return TunableValue{e.rlist}; }},
    {Tunable::PmeScale, "pme_scale", "--pme-scale", TunableKind::Real, "S", 0, 10, false, {},
     "1", "scales rc and the PME spacing together (constant accuracy)",
     [](RunConfig& c, const TunableValue& v) { c.pme_scale = as<double>(v); },
     [](const EffectiveConfig& e) { return TunableValue{e.pme_scale}; }},
    {Tunable::PmeSpacing, "pme_spacing", "--pme-spacing", TunableKind::Real, "NM", 0, 10, false, {},
     "0.12 nm (GROMACS' fourierspacing)", "PME grid spacing before scaling, nm",
     [](RunConfig& c, const TunableValue& v) { c.pme_spacing = as<double>(v); },
     [](const EffectiveConfig& e) { return TunableValue{e.pme_spacing}; }},
    {Tunable::PmeOrder, "pme_order", "--pme-order", TunableKind::Integer, "4|5|6", 4, 6, false, {},
     "4", "PME interpolation order",
     [](RunConfig& c, const TunableValue& v) { c.pme_order = as_int(v); },
     [](const EffectiveConfig& e) { return TunableValue{long{e.pme_order}}; }},
    {Tunable::Threads, "threads", "--threads", TunableKind::Integer, "N", 1, 4096, true, {},
     "all available cores", "OpenMP threads",
     [](RunConfig& c, const TunableValue& v) { c.threads = as_int(v); },
     [](const EffectiveConfig& e) { return TunableValue{long{e.threads}}; }},
    {Tunable::Simd, "simd", "--simd", TunableKind::Choice, "auto|none|avx2|avx512", 0, 0, true, kSimdNames,
     "auto: the widest level the CPU supports", "SIMD level of the nonbonded kernels",
     [](RunConfig& c, const TunableValue& v) { c.simd = as<SimdLevel>(v); },
     [](const EffectiveConfig& e) { return TunableValue{e.simd}; }},
    {Tunable::PmeGrid, "pme_grid", "--pme-grid", TunableKind::Grid, "NXxNYxNZ", 0, 0, false, {},
     "from the box and pme_spacing", "PME grid size (overrides the spacing)",
     [](RunConfig& c, const TunableValue& v) { c.pme_grid = as<std::array<int, 3>>(v); },
     [](const EffectiveConfig& e) { return TunableValue{e.pme_grid}; }},
    // Offload modes (GROMACS -nb/-pme/-update); the rules between them are resolve_config's.
    {Tunable::NbOffload, "nb_offload", "--nb", TunableKind::Choice, "cpu|gpu", 0, 0, true, kOffloadNames,
     "cpu", "where the nonbonded task runs (gpu: CUDA build and a GPU)",
     [](RunConfig& c, const TunableValue& v) { c.nb = as<Offload>(v); },
     [](const EffectiveConfig& e) { return TunableValue{e.nb}; }},
    {Tunable::PmeOffload, "pme_offload", "--pme", TunableKind::Choice, "cpu|gpu", 0, 0, true, kOffloadNames,
     "cpu", "where PME runs (gpu needs --nb gpu)",
     [](RunConfig& c, const TunableValue& v) { c.pme = as<Offload>(v); },
     [](const EffectiveConfig& e) { return TunableValue{e.pme_offload}; }},
    {Tunable::UpdateOffload, "update_offload", "--update", TunableKind::Choice, "cpu|gpu", 0, 0, true, kOffloadNames,
     "cpu", "where leap-frog and SETTLE run (gpu: needs --nb gpu, and --pme gpu on a charged system; the state stays on the GPU)",
     [](RunConfig& c, const TunableValue& v) { c.update = as<Offload>(v); },
     [](const EffectiveConfig& e) { return TunableValue{e.update}; }},
    {Tunable::GpuId, "gpu_id", "--gpu-id", TunableKind::Integer, "N", 0, 63, true, {},
     "0", "CUDA device of the GPU tasks",
     [](RunConfig& c, const TunableValue& v) { c.gpu_id = as_int(v); },
     [](const EffectiveConfig& e) { return TunableValue{long{e.gpu_id}}; }},
    {Tunable::Dd, "dd", "--dd", TunableKind::Grid, "NXxNYxNZ|auto", 0, 0, false, {},
     "auto: the grid of PP cells with the least halo volume", "domain-decomposition grid of the PP ranks (mpirun -np N)",
     [](RunConfig& c, const TunableValue& v) {
         const auto& grid = as<std::array<int, 3>>(v);
         if (grid == std::array<int, 3>{0, 0, 0}) c.dd.reset();
         else c.dd = grid;
     },
     [](const EffectiveConfig& e) { return TunableValue{e.dd}; }, true},
    {Tunable::Npme, "npme", "--npme", TunableKind::Integer, "K|auto", 0, 4096, true, {},
     "auto: 0 below 19 ranks (GROMACS' rule), else a quarter of the ranks", "MPI ranks that do only PME",
     [](RunConfig& c, const TunableValue& v) { c.npme = as_int(v); },
     [](const EffectiveConfig& e) { return TunableValue{long{e.npme}}; }, true},
    {Tunable::Ranks, "ranks", "--ranks", TunableKind::Integer, "N", 1, 100000, true, {},
     "the ranks mpirun started", "MPI ranks of the run: refused unless mpirun -np N started that many",
     [](RunConfig& c, const TunableValue& v) { c.ranks = as_int(v); },
     [](const EffectiveConfig& e) { return TunableValue{long{e.ranks}}; }},
}};

bool is_offload(Tunable t) {
    return t == Tunable::NbOffload || t == Tunable::PmeOffload || t == Tunable::UpdateOffload;
}

std::string label_of(const TunableInfo& info, std::string_view label) {
    return std::string(label.empty() ? info.flag : label);
}

std::string g(double v, const char* format = "%.6g") {
    char buf[40];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// "4, 5 or 6" for short integer ranges, else empty.
std::string spelled_range(const TunableInfo& info) {
    if (info.max - info.min > 3) return {};
    std::string out;
    for (long v = static_cast<long>(info.min); v <= static_cast<long>(info.max); ++v)
        out += (out.empty() ? "" : v == static_cast<long>(info.max) ? " or " : ", ") + std::to_string(v);
    return out;
}

// The range rules; `shown` is the value as the user wrote it.
void check_range(const TunableInfo& info, const TunableValue& value, const std::string& label, const std::string& shown) {
    auto fail = [&](const std::string& problem) { throw TunableError(label + ": " + problem); };
    switch (info.kind) {
        case TunableKind::Integer: {
            const long* v = std::get_if<long>(&value);
            if (!v) fail("'" + shown + "' is not an integer");
            if (info.accepts_auto && *v == -1) return;
            const std::string spelled = spelled_range(info);
            if (!spelled.empty() && (*v < info.min || *v > info.max)) fail(shown + " is not " + spelled);
            if (*v < info.min)
                fail(shown + (info.min == 1 ? " must be positive" : " is below the minimum of " + g(info.min, "%.15g")));
            if (*v > info.max) fail(shown + " is above the limit of " + g(info.max, "%.15g"));
            return;
        }
        case TunableKind::Real: {
            double v = 0;
            if (const double* d = std::get_if<double>(&value)) v = *d;
            else if (const long* i = std::get_if<long>(&value)) v = static_cast<double>(*i);
            else fail("'" + shown + "' is not a number");
            if (std::isnan(v)) fail(shown + " is not a number");
            if (!(v > info.min)) fail(shown + (info.min == 0 ? " must be positive" : " must be above " + g(info.min)));
            if (v > info.max) fail(shown + " is above the limit of " + g(info.max, "%.15g"));
            return;
        }
        case TunableKind::Choice: {
            const bool typed = info.id == Tunable::Cluster ? std::holds_alternative<ClusterShape>(value)
                               : is_offload(info.id)   ? std::holds_alternative<Offload>(value)
                                                       : std::holds_alternative<SimdLevel>(value);
            if (!typed) fail("'" + shown + "' is not one of " + tunable_choices(info.id));
            return;
        }
        case TunableKind::Grid: {
            const auto* grid = std::get_if<std::array<int, 3>>(&value);
            if (grid && info.accepts_auto && *grid == std::array<int, 3>{0, 0, 0}) return;
            if (!grid || (*grid)[0] <= 0 || (*grid)[1] <= 0 || (*grid)[2] <= 0)
                fail("'" + shown + "' is not NXxNYxNZ with positive sizes");
            return;
        }
    }
}

std::optional<long> parse_long(std::string_view text) {
    long v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || p != text.data() + text.size() || text.empty()) return std::nullopt;
    return v;
}

constexpr long kMaxGridSize = 1'000'000;

// NXxNYxNZ. A size of digits too large (also beyond a long) is out of range, said
// as such in `problem`; anything else that is no grid, "".
std::optional<std::array<int, 3>> parse_grid(std::string_view text, std::string& problem) {
    std::array<int, 3> grid{};
    for (int d = 0; d < 3; ++d) {
        const std::size_t x = d < 2 ? text.find('x') : text.size();
        if (x == std::string_view::npos) return std::nullopt;
        const std::string_view size = text.substr(0, x);
        const auto n = parse_long(size);
        if (!n && !size.empty() && size.find_first_not_of("0123456789") == std::string_view::npos) {
            problem = std::string(size) + " is out of range (each size is 1 to " + std::to_string(kMaxGridSize) + ")";
            return std::nullopt;
        }
        if (n && *n > kMaxGridSize) {
            problem = std::to_string(*n) + " is out of range (each size is 1 to " + std::to_string(kMaxGridSize) + ")";
            return std::nullopt;
        }
        if (!n || *n <= 0) return std::nullopt;
        grid[d] = static_cast<int>(*n);
        text = d < 2 ? text.substr(x + 1) : std::string_view{};
    }
    return grid;
}

}  // namespace

std::span<const TunableInfo> tunables() { return kTunables; }

const TunableInfo& tunable_info(Tunable t) { return kTunables[static_cast<std::size_t>(t)]; }

std::optional<Tunable> tunable_by_name(std::string_view name) {
    for (const TunableInfo& info : kTunables)
        if (info.name == name) return info.id;
    return std::nullopt;
}

std::string tunable_choices(Tunable t) {
    std::string out;
    for (std::string_view c : tunable_info(t).choices) out += (out.empty() ? "" : ", ") + std::string(c);
    return out;
}

TunableValue parse_tunable(Tunable t, std::string_view text, std::string_view label) {
    const TunableInfo& info = tunable_info(t);
    const std::string name = label_of(info, label);
    const std::string shown(text);
    std::optional<TunableValue> value;
    if (info.accepts_auto && text == "auto") {
        if (info.kind == TunableKind::Grid) return std::array<int, 3>{0, 0, 0};
        return -1L;
    }
    switch (info.kind) {
        case TunableKind::Integer:
            value = parse_long(text);
            if (!value) throw TunableError(name + ": '" + shown + "' is not an integer");
            // -1 is how "auto" is held: typed, it is a number below the range, not auto.
            if (info.accepts_auto && std::get<long>(*value) == -1)
                throw TunableError(
                    name + ": -1 " +
                    (info.min == 1 ? "must be positive" : "is below the minimum of " + g(info.min, "%.15g")) +
                    " ('auto' lets mdcore choose)");
            break;
        case TunableKind::Real: {
            char* end = nullptr;
            const double v = std::strtod(shown.c_str(), &end);
            if (shown.empty() || end != shown.c_str() + shown.size())
                throw TunableError(name + ": '" + shown + "' is not a number");
            value = v;
            break;
        }
        case TunableKind::Choice:
            if (t == Tunable::Cluster) {
                if (const auto s = parse_cluster_shape(text)) value = *s;
            } else if (is_offload(t)) {
                if (const auto o = parse_offload(text)) value = *o;
            } else if (const auto l = parse_simd_level(text)) {
                value = *l;
            }
            if (!value) throw TunableError(name + ": '" + shown + "' is not one of " + tunable_choices(t));
            break;
        case TunableKind::Grid: {
            std::string problem;
            if (const auto grid = parse_grid(text, problem))
                value = *grid;
            else if (!problem.empty())
                throw TunableError(name + ": '" + shown + "': " + problem);
            else throw TunableError(name + ": '" + shown + "' is not NXxNYxNZ with positive sizes");
            break;
        }
    }
    check_range(info, *value, name, shown);
    return *value;
}

void check_tunable(Tunable t, const TunableValue& value, std::string_view label) {
    const TunableInfo& info = tunable_info(t);
    check_range(info, value, label_of(info, label), format_tunable(value));
}

std::string format_tunable(const TunableValue& value) {
    if (const long* i = std::get_if<long>(&value)) return std::to_string(*i);
    if (const double* d = std::get_if<double>(&value)) return g(*d);
    if (const auto* s = std::get_if<ClusterShape>(&value)) return std::string(to_string(*s));
    if (const auto* l = std::get_if<SimdLevel>(&value)) return std::string(to_string(*l));
    if (const auto* o = std::get_if<Offload>(&value)) return std::string(to_string(*o));
    const auto& grid = std::get<std::array<int, 3>>(value);
    if (grid == std::array<int, 3>{0, 0, 0}) return "auto";
    return std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" + std::to_string(grid[2]);
}

void set_tunable(RunConfig& config, Tunable t, const TunableValue& value) {
    check_tunable(t, value);
    tunable_info(t).set(config, value);
}

ClusterShape default_cluster_shape(SimdLevel resolved) {
    return resolved == SimdLevel::Avx512 ? ClusterShape::k8x4 : ClusterShape::k4x4;
}

ClusterShape default_cluster_shape(SimdLevel resolved, Offload nb, bool charged) {
    if (nb == Offload::Gpu) return ClusterShape::k8x4;
    if (charged && resolved == SimdLevel::Avx512) return ClusterShape::k4x8;
    return default_cluster_shape(resolved);
}

}  // namespace mdcore
