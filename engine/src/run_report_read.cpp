// Reads a RunReport back from the JSON run_report_to_json writes: the one typed
// reader the tuner, the store and the models share. Tolerant of what older
// builds did not write and of fields newer ones add; strict about types.
#include <nlohmann/json.hpp>

#include "mdcore/run_report.h"
#include "run_report_fields.h"

namespace mdcore {

RunReportError::RunReportError(std::string field, const std::string& problem)
    : std::runtime_error(field.empty() ? "RunReport: " + problem : "RunReport field '" + field + "': " + problem),
      field_(std::move(field)) {}

namespace {

using nlohmann::json;

template <class T>
struct is_std_array : std::false_type {};
template <class T, std::size_t N>
struct is_std_array<std::array<T, N>> : std::true_type {};

// One JSON object and the path it sits at, for error messages.
class Block {
public:
    Block(const json& j, std::string path) : j_(j), path_(std::move(path)) {}

    bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }
    std::string field(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

    // A required field of type T.
    template <class T>
    T need(const char* key) const {
        if (!has(key)) throw RunReportError(field(key), "missing (or null)");
        return as<T>(key);
    }
    // An optional field: `fallback` when absent (or null), an error when of the wrong type.
    template <class T>
    void read(const char* key, T& out) const {
        if (has(key)) out = as<T>(key);
    }
    // A nested object; an empty one when absent.
    Block child(const char* key) const {
        if (!has(key)) return Block(empty(), field(key));
        if (!j_.at(key).is_object()) throw RunReportError(field(key), "not an object");
        return Block(j_.at(key), field(key));
    }
    const json& raw() const { return j_; }

private:
    static const json& empty() {
        static const json e = json::object();
        return e;
    }
    template <class T>
    T as(const char* key) const {
        const json& v = j_.at(key);
        // nlohmann converts between number kinds silently; a bool or a string is an error.
        if constexpr (std::is_same_v<T, bool>) {
            if (!v.is_boolean()) throw RunReportError(field(key), "expected true or false, got " + v.dump());
        } else if constexpr (std::is_integral_v<T>) {
            if (!v.is_number_integer()) throw RunReportError(field(key), "expected an integer, got " + v.dump());
        } else if constexpr (std::is_floating_point_v<T>) {
            if (!v.is_number()) throw RunReportError(field(key), "expected a number, got " + v.dump());
        } else if constexpr (std::is_same_v<T, std::string>) {
            if (!v.is_string()) throw RunReportError(field(key), "expected a string, got " + v.dump());
        } else if constexpr (is_std_array<T>::value) {
            if (!v.is_array() || v.size() != std::tuple_size_v<T>)
                throw RunReportError(field(key), "expected " + std::to_string(std::tuple_size_v<T>) +
                                                     " numbers, got " + v.dump());
        }
        try {
            return v.get<T>();
        } catch (const json::exception& e) {
            throw RunReportError(field(key), e.what());
        }
    }

    const json& j_;
    std::string path_;
};

// A visitor for report_fields: reads each field that is present in `b` (a wrong type is an error).
auto read_from(const Block& b) {
    return [b](const char* key, auto& value) { b.read(key, value); };
}

template <class Enum, class Parse>
Enum parse_enum(const Block& b, const char* key, Enum fallback, bool required, Parse parse) {
    if (!b.has(key)) {
        if (required) throw RunReportError(b.field(key), "missing");
        return fallback;
    }
    const std::string text = b.need<std::string>(key);
    const std::optional<Enum> value = parse(text);
    if (!value) throw RunReportError(b.field(key), "unknown value '" + text + "'");
    return *value;
}

std::optional<Thermostat> parse_thermostat(std::string_view text) {
    for (Thermostat t : {Thermostat::None, Thermostat::VRescale})
        if (to_string(t) == text) return t;
    return std::nullopt;
}

std::optional<bool> parse_rlist_source(std::string_view text) {
    if (text == "estimate") return true;
    if (text == "override") return false;
    return std::nullopt;
}

EffectiveConfig read_config(const Block& b) {
    EffectiveConfig c;
    c.cluster = parse_enum(b, "cluster", c.cluster, true, parse_cluster_shape);
    c.simd = parse_enum(b, "simd", c.simd, true, parse_simd_level);
    report_fields::config_required(c, [&b](const char* key, auto& value) {
        value = b.need<std::remove_reference_t<decltype(value)>>(key);
    });
    c.rlist_from_estimate = parse_enum(b, "rlist_source", c.rlist_from_estimate, false, parse_rlist_source);
    c.thermostat = parse_enum(b, "thermostat", c.thermostat, false, parse_thermostat);
    report_fields::config_optional(c, read_from(b));
    c.nb = parse_enum(b, "nb_offload", c.nb, false, parse_offload);
    c.pme_offload = parse_enum(b, "pme_offload", c.pme_offload, false, parse_offload);
    c.update = parse_enum(b, "update_offload", c.update, false, parse_offload);
    c.vdw_modifier = parse_enum(b, "vdw_modifier", c.vdw_modifier, false, parse_vdw_modifier);
    c.coulomb_type = parse_enum(b, "coulomb_type", c.coulomb_type, false, parse_coulomb_type);
    c.dispcorr = parse_enum(b, "dispcorr", c.dispcorr, false, parse_dispcorr);
    return c;
}

// Version 2's "parallel" block; absent (version 1, one rank) it stays at its defaults.
ParallelStats read_parallel(const Block& b, EffectiveConfig& c) {
    ParallelStats p;
    b.read("comm_distance", c.dd_comm_distance);
    b.read("dd_reason", c.dd_reason);
    report_fields::parallel_stats(p, read_from(b));
    return p;
}

BuildInfo read_build(const Block& top) {
    BuildInfo b;
    top.read("engine_version", b.engine_version);
    const Block build = top.child("build");
    build.read("compiler", b.compiler);
    build.read("flags", b.flags);
    build.read("simd_available", b.simd_available);
    build.read("git_commit", b.git_commit);
    build.read("build_id", b.build_id);
    return b;
}

PairlistStats read_pairlist(const Block& b) {
    PairlistStats p;
    report_fields::pairlist_stats(p, read_from(b));
    return p;
}

EnergySample read_energies(const Block& b) {
    EnergySample e;
    report_fields::energies(e, read_from(b));
    return e;
}

std::map<std::string, std::string> read_strings(const Block& b) {
    std::map<std::string, std::string> out;
    for (const auto& [name, text] : b.raw().items()) {
        if (!text.is_string()) throw RunReportError(b.field(name.c_str()), "expected a string, got " + text.dump());
        out[name] = text.get<std::string>();
    }
    return out;
}

std::map<std::string, double> read_timings(const Block& b) {
    std::map<std::string, double> out;
    for (const auto& [task, seconds] : b.raw().items()) {
        if (!seconds.is_number()) throw RunReportError(b.field(task.c_str()), "expected a number, got " + seconds.dump());
        out[task] = seconds.get<double>();
    }
    return out;
}

}  // namespace

RunReport run_report_from_json(std::string_view text) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        throw RunReportError("", std::string("not JSON: ") + e.what());
    }
    if (!j.is_object()) throw RunReportError("", "not a JSON object");
    const Block top(j, "");
    int version = 1;  // reports of the first builds carried no version
    top.read("schema_version", version);
    if (version < 1 || version > kRunReportSchemaVersion)
        throw RunReportError("schema_version", std::to_string(version) + " is not a version this reader knows (1.." +
                                                   std::to_string(kRunReportSchemaVersion) + ")");
    RunReport r;
    r.build = read_build(top);
    top.read("status", r.status);
    top.read("error", r.error);
    top.read("failed_step", r.failed_step);
    report_fields::system(r, read_from(top.child("system")));
    if (!top.has("config")) throw RunReportError("config", "missing");
    r.config = read_config(top.child("config"));
    top.read("steps", r.steps);
    top.read("warmup", r.warmup);
    r.ns_per_day = top.need<double>("ns_per_day");
    r.ms_per_step = top.need<double>("ms_per_step");
    r.timings = read_timings(top.child("timings"));
    r.pairlist = read_pairlist(top.child("pairlist"));
    const Block energies = top.child("energies");
    r.start = read_energies(energies.child("start"));
    r.end = read_energies(energies.child("end"));
    r.drift_per_atom_per_ps = top.need<double>("drift_per_atom_per_ps");
    top.read("drift_stderr_per_atom_per_ps", r.drift_stderr_per_atom_per_ps);
    top.read("energy_samples", r.energy_samples);
    top.read("max_constraint_deviation", r.max_constraint_deviation);
    r.parallel = read_parallel(top.child("parallel"), r.config);
    const Block threads = top.child("threads");  // absent in reports before it existed
    r.threads.pin = parse_enum(threads, "pin", r.threads.pin, false, parse_pin_mode);
    report_fields::thread_stats(r.threads, read_from(threads));
    const Block gpu = top.child("gpu");  // only in runs with a GPU task
    gpu.read("name", r.gpu.name);
    gpu.read("memory_bytes", r.gpu.memory_bytes);
    gpu.read("compute_capability", r.gpu.compute_capability);
    r.gpu.kernel_seconds = read_timings(gpu.child("kernel_seconds"));
    gpu.read("cpu_wait_seconds", r.gpu.cpu_wait_seconds);
    r.setting_sources = read_strings(top.child("setting_sources"));  // absent before it existed
    return r;
}

}  // namespace mdcore
