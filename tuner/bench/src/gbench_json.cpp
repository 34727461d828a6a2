#include "mdtune/bench/gbench_json.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "json_text.h"
#include "mdtune/core/file_text.h"

namespace mdtune::bench {
namespace {

using nlohmann::json;

// A bare Infinity of the input (see sanitize_json).
bool is_infinity(const json& v) {
    return v.is_string() &&
           (v.get_ref<const std::string&>() == kPlusInfinity || v.get_ref<const std::string&>() == kMinusInfinity);
}

std::string type_of(const json& v) {
    if (v.is_null()) return "null";
    if (is_infinity(v)) return v.get_ref<const std::string&>().substr(1);
    return v.type_name();
}

// A value for a message: short, and with invalid UTF-8 replaced rather than thrown on.
std::string dump(const json& v) {
    std::string out = v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (out.size() > 80) out = out.substr(0, 77) + "...";
    return out;
}

// Parses the sanitized text; every nlohmann error becomes a GbenchError naming the
// file and the place (parse errors carry a byte offset, number overflows the token).
json parse_document(std::string_view text, const SanitizedJson& clean, const std::string& source) {
    if (clean.too_deep_at)
        throw GbenchError(source + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels at byte offset " +
                          std::to_string(*clean.too_deep_at) + " (" + line_column(text, *clean.too_deep_at) +
                          "); Google Benchmark output nests 3 levels");
    try {
        return json::parse(clean.text);
    } catch (const json::parse_error& e) {
        // e.byte is 1-based: the character at which parsing failed.
        const std::size_t at = clean.original_offset(e.byte > 0 ? e.byte - 1 : 0);
        const bool truncated = e.byte >= clean.text.size();
        std::string what = e.what();
        const auto colon = what.find(": ", what.find("parse error"));
        if (colon != std::string::npos) what = what.substr(colon + 2);
        throw GbenchError(source + ": invalid JSON at byte offset " + std::to_string(at) + " (" +
                          line_column(text, at) + ")" + (truncated ? ", the file is truncated" : "") + ": " + what);
    } catch (const json::out_of_range& e) {
        // "[json.exception.out_of_range.406] number overflow parsing '1e999'"
        const std::string what = e.what();
        const auto q = what.find('\'');
        const std::string token = q == std::string::npos ? "" : what.substr(q + 1, what.rfind('\'') - q - 1);
        const std::size_t at = token.empty() ? std::string_view::npos : text.find(token);
        throw GbenchError(source + ": number " + (token.empty() ? "" : "'" + token + "' ") +
                          (at == std::string_view::npos ? "" : "at " + line_column(text, at) + " ") +
                          "is out of range: JSON numbers here must fit a double (magnitude below 1.8e308)");
    } catch (const json::exception& e) {
        throw GbenchError(source + ": invalid JSON: " + e.what());
    }
}

class Checker {
public:
    explicit Checker(const std::string& source) : source_(source) {}

    [[noreturn]] void fail(const std::string& path, const std::string& what) const {
        throw GbenchError(source_ + ": " + path + ": " + what);
    }
    const json& field(const json& obj, const std::string& path, const char* key) const {
        const auto it = obj.find(key);
        if (it == obj.end()) fail(path, std::string("missing field \"") + key + "\"");
        return *it;
    }
    std::string text(const json& obj, const std::string& path, const char* key) const {
        const json& v = field(obj, path, key);
        if (!v.is_string() || is_infinity(v)) fail(path + "." + key, "expected a string, got " + type_of(v));
        const std::string& s = v.get_ref<const std::string&>();
        // Names are stored and printed as C strings: a NUL would cut them short.
        if (const auto nul = s.find('\0'); nul != std::string::npos)
            fail(path + "." + key, "contains a NUL character (\\u0000) at position " + std::to_string(nul) +
                                       "; text fields must not contain NUL");
        return s;
    }
    // An integer in [min, max]; nlohmann keeps integers above INT64_MAX as unsigned.
    long integer(const json& obj, const std::string& path, const char* key, long min, long max) const {
        const json& v = field(obj, path, key);
        if (!v.is_number_integer()) fail(path + "." + key, "expected an integer, got " + type_of(v) + " " + dump(v));
        if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max))
            fail(path + "." + key, std::to_string(v.get<std::uint64_t>()) + " is above the limit " + std::to_string(max));
        const long x = v.get<long>();
        if (x < min) fail(path + "." + key, std::to_string(x) + " is below " + std::to_string(min));
        if (x > max) fail(path + "." + key, std::to_string(x) + " is above the limit " + std::to_string(max));
        return x;
    }
    double number(const json& obj, const std::string& path, const char* key) const {
        const json& v = field(obj, path, key);
        if (v.is_null()) fail(path + "." + key, "is NaN; it must be a finite non-negative number");
        if (is_infinity(v))
            fail(path + "." + key, "is " + v.get<std::string>().substr(1) + "; it must be a finite non-negative number");
        if (!v.is_number()) fail(path + "." + key, "expected a number, got " + type_of(v) + " " + dump(v));
        const double x = v.get<double>();
        if (!std::isfinite(x) || x < 0) fail(path + "." + key, "must be a finite non-negative number, got " + dump(v));
        return x;
    }
private:
    const std::string& source_;
};

// Fields of a benchmark entry that are not user counters.
const std::set<std::string>& reserved_keys() {
    static const std::set<std::string> k{"name", "family_index", "per_family_instance_index", "run_name", "run_type",
                                         "repetitions", "repetition_index", "threads", "iterations", "real_time",
                                         "cpu_time", "time_unit", "label", "error_occurred", "error_message",
                                         "aggregate_name", "aggregate_unit", "big_o", "rms", "cpu_coefficient",
                                         "real_coefficient"};
    return k;
}

}  // namespace

std::size_t GbenchReport::iteration_runs() const {
    std::size_t n = 0;
    for (const auto& r : runs) n += r.type == RunType::Iteration;
    return n;
}

double seconds_per_unit(std::string_view unit) {
    if (unit == "ns") return 1e-9;
    if (unit == "us") return 1e-6;
    if (unit == "ms") return 1e-3;
    if (unit == "s") return 1.0;
    throw GbenchError("unknown time unit '" + std::string(unit) + "' (ns, us, ms, s)");
}

GbenchReport parse_gbench_json(std::string_view text, const std::string& source) {
    GbenchReport report;
    report.source = source;
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
        throw GbenchError(source + ": empty file (no Google Benchmark JSON; did the benchmark run crash?)");
    const json doc = parse_document(text, sanitize_json(text), source);

    const Checker check(source);
    if (!doc.is_object()) check.fail("(top level)", "expected an object with \"context\" and \"benchmarks\", got " + type_of(doc));
    const json& context = check.field(doc, "(top level)", "context");
    if (!context.is_object()) check.fail("context", "expected an object, got " + type_of(context));
    report.context_json = context.dump();
    for (const auto& [k, v] : context.items())
        if (v.is_string() && !is_infinity(v)) report.context[k] = v.get<std::string>();
    const json& benchmarks = check.field(doc, "(top level)", "benchmarks");
    if (!benchmarks.is_array()) check.fail("benchmarks", "expected an array, got " + type_of(benchmarks));

    std::map<std::string, int> next_index;                  // for files without repetition_index
    std::set<std::pair<std::string, int>> seen;             // (run_name, repetition) of iteration runs
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
        const json& b = benchmarks[i];
        std::string path = "benchmarks[" + std::to_string(i) + "]";
        if (!b.is_object()) check.fail(path, "expected an object, got " + type_of(b));
        GbenchRun r;
        r.name = check.text(b, path, "name");
        if (r.name.empty()) check.fail(path + ".name", "is empty");
        path += " (\"" + r.name + "\")";
        r.run_name = b.contains("run_name") ? check.text(b, path, "run_name") : r.name;
        const std::string type = b.contains("run_type") ? check.text(b, path, "run_type") : "iteration";
        if (type == "iteration") r.type = RunType::Iteration;
        else if (type == "aggregate") r.type = RunType::Aggregate;
        else check.fail(path + ".run_type", "'" + type + "' is neither \"iteration\" nor \"aggregate\"");
        if (b.contains("error_occurred")) {
            const json& e = b["error_occurred"];
            if (!e.is_boolean()) check.fail(path + ".error_occurred", "expected a boolean, got " + type_of(e));
            r.error = e.get<bool>();
            if (r.error && b.contains("error_message")) r.error_message = check.text(b, path, "error_message");
        }
        if (b.contains("repetitions")) r.repetitions = static_cast<int>(check.integer(b, path, "repetitions", 0, INT_MAX));
        if (b.contains("threads")) r.threads = static_cast<int>(check.integer(b, path, "threads", 1, INT_MAX));
        if (b.contains("label")) r.label = check.text(b, path, "label");
        if (r.type == RunType::Aggregate) {
            r.aggregate_name = b.contains("aggregate_name") ? check.text(b, path, "aggregate_name") : "";
            report.runs.push_back(std::move(r));  // not used by the gate: no further checks
            continue;
        }
        r.iterations = check.integer(b, path, "iterations", 0, LONG_MAX);
        r.time_unit = check.text(b, path, "time_unit");
        try {
            seconds_per_unit(r.time_unit);
        } catch (const GbenchError& e) {
            check.fail(path + ".time_unit", e.what());
        }
        if (!r.error) {
            r.real_time = check.number(b, path, "real_time");
            // A time of 0 is no measurement: against it every change would compare as "+0.00 %".
            if (!(r.real_time > 0))
                check.fail(path + ".real_time",
                           "is 0; a run's time must be positive (a benchmark that measured nothing)");
            r.cpu_time = check.number(b, path, "cpu_time");
            if (r.iterations == 0) check.fail(path + ".iterations", "is 0 for a run without error");
        }
        if (b.contains("repetition_index")) {
            r.repetition_index = static_cast<int>(check.integer(b, path, "repetition_index", 0, INT_MAX - 1));
        } else {
            r.repetition_index = next_index[r.run_name];
        }
        next_index[r.run_name] = r.repetition_index + 1;
        if (!seen.insert({r.run_name, r.repetition_index}).second)
            check.fail(path + ".repetition_index",
                       "repetition " + std::to_string(r.repetition_index) + " of '" + r.run_name + "' appears twice");
        for (const auto& [k, v] : b.items()) {
            if (reserved_keys().count(k)) continue;
            if (v.is_null() || is_infinity(v)) r.counters[k] = std::nan("");
            else if (v.is_number()) r.counters[k] = v.get<double>();
            // Other types (future string fields) are not counters: ignored.
        }
        report.runs.push_back(std::move(r));
    }
    return report;
}

GbenchReport read_gbench_file(const std::string& path) {
    const FileText file = read_file_text(path);
    if (!file.ok()) throw GbenchError(path + ": cannot open: it " + file.error);
    return parse_gbench_json(file.text, path);
}

std::string to_gbench_json(const GbenchReport& report) {
    json doc;
    doc["context"] = report.context_json.empty() ? json::object() : json::parse(report.context_json);
    json list = json::array();
    for (const GbenchRun& r : report.runs) {
        json b;
        b["name"] = r.name;
        b["run_name"] = r.run_name;
        b["run_type"] = r.type == RunType::Iteration ? "iteration" : "aggregate";
        b["repetitions"] = r.repetitions;
        if (r.type == RunType::Iteration) b["repetition_index"] = r.repetition_index;
        else b["aggregate_name"] = r.aggregate_name;
        b["threads"] = r.threads;
        b["iterations"] = r.iterations;
        b["real_time"] = r.real_time;
        b["cpu_time"] = r.cpu_time;
        b["time_unit"] = r.time_unit;
        for (const auto& [k, v] : r.counters) b[k] = std::isfinite(v) ? json(v) : json(nullptr);
        if (!r.label.empty()) b["label"] = r.label;
        if (r.error) {
            b["error_occurred"] = true;
            b["error_message"] = r.error_message;
        }
        list.push_back(std::move(b));
    }
    doc["benchmarks"] = std::move(list);
    return doc.dump(2) + "\n";
}

std::string build_flags_of(const GbenchReport& report) {
    const auto get = [&](const char* k) {
        const auto it = report.context.find(k);
        if (it == report.context.end()) return std::string();
        const auto first = it->second.find_first_not_of(' ');
        return first == std::string::npos ? std::string() : it->second.substr(first);
    };
    std::string flags = get("mdcore_compiler");
    const std::string f = get("mdcore_flags");
    if (!f.empty()) flags += (flags.empty() ? "" : " ") + f;
    if (flags.empty()) flags = "library_build_type=" + get("library_build_type");
    return flags;
}

}  // namespace mdtune::bench
