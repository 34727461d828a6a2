#include "mdtune/bench/gbench_json.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>

namespace mdtune::bench {
namespace {

using nlohmann::json;

// Google Benchmark writes non-finite doubles as bare NaN / Infinity (not JSON).
// They become null here; `shifts` maps offsets in the result back to the input.
struct Sanitized {
    std::string text;
    std::vector<std::pair<std::size_t, long>> shifts;  // (offset in text after a replacement, cumulative growth)
    std::size_t original_offset(std::size_t pos) const {
        long growth = 0;
        for (const auto& [at, g] : shifts)
            if (at <= pos) growth = g;
        return static_cast<std::size_t>(std::max<long>(0, static_cast<long>(pos) - growth));
    }
};

Sanitized sanitize_non_finite(std::string_view in) {
    Sanitized s;
    s.text.reserve(in.size());
    bool in_string = false;
    long growth = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (in_string) {
            s.text += c;
            if (c == '\\' && i + 1 < in.size()) s.text += in[++i];
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
            s.text += c;
            continue;
        }
        std::size_t len = 0;
        for (std::string_view tok : {"-Infinity", "Infinity", "-NaN", "NaN"})
            if (in.substr(i, tok.size()) == tok) {
                len = tok.size();
                break;
            }
        if (len == 0) {
            s.text += c;
            continue;
        }
        s.text += "null";
        growth += 4 - static_cast<long>(len);
        s.shifts.emplace_back(s.text.size(), growth);
        i += len - 1;
    }
    return s;
}

std::string line_column(std::string_view text, std::size_t offset) {
    long line = 1, col = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

std::string type_of(const json& v) {
    if (v.is_null()) return "null";
    return v.type_name();
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
        if (!v.is_string()) fail(path + "." + key, "expected a string, got " + type_of(v));
        return v.get<std::string>();
    }
    long integer(const json& obj, const std::string& path, const char* key, long min) const {
        const json& v = field(obj, path, key);
        if (!v.is_number_integer()) fail(path + "." + key, "expected an integer, got " + type_of(v) + " " + v.dump());
        const long x = v.get<long>();
        if (x < min) fail(path + "." + key, std::to_string(x) + " is below " + std::to_string(min));
        return x;
    }
    double number(const json& obj, const std::string& path, const char* key) const {
        const json& v = field(obj, path, key);
        if (v.is_null()) fail(path + "." + key, "is NaN");
        if (!v.is_number()) fail(path + "." + key, "expected a number, got " + type_of(v) + " " + v.dump());
        const double x = v.get<double>();
        if (!std::isfinite(x) || x < 0) fail(path + "." + key, "must be a finite non-negative number, got " + v.dump());
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
    const Sanitized clean = sanitize_non_finite(text);
    json doc;
    try {
        doc = json::parse(clean.text);
    } catch (const json::parse_error& e) {
        // e.byte is 1-based: the character at which parsing failed.
        const std::size_t at = clean.original_offset(e.byte > 0 ? e.byte - 1 : 0);
        const bool truncated = e.byte >= clean.text.size();
        std::string what = e.what();
        const auto colon = what.find(": ", what.find("parse error"));
        if (colon != std::string::npos) what = what.substr(colon + 2);
        throw GbenchError(source + ": invalid JSON at byte offset " + std::to_string(at) + " (" +
                          line_column(text, at) + ")" + (truncated ? ", the file is truncated" : "") + ": " + what);
    }

    const Checker check(source);
    if (!doc.is_object()) check.fail("(top level)", "expected an object with \"context\" and \"benchmarks\", got " + type_of(doc));
    const json& context = check.field(doc, "(top level)", "context");
    if (!context.is_object()) check.fail("context", "expected an object, got " + type_of(context));
    report.context_json = context.dump();
    for (const auto& [k, v] : context.items())
        if (v.is_string()) report.context[k] = v.get<std::string>();
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
        if (b.contains("repetitions")) r.repetitions = static_cast<int>(check.integer(b, path, "repetitions", 0));
        if (b.contains("threads")) r.threads = static_cast<int>(check.integer(b, path, "threads", 1));
        if (b.contains("label")) r.label = check.text(b, path, "label");
        if (r.type == RunType::Aggregate) {
            r.aggregate_name = b.contains("aggregate_name") ? check.text(b, path, "aggregate_name") : "";
            report.runs.push_back(std::move(r));  // not used by the gate: no further checks
            continue;
        }
        r.iterations = check.integer(b, path, "iterations", 0);
        r.time_unit = check.text(b, path, "time_unit");
        try {
            seconds_per_unit(r.time_unit);
        } catch (const GbenchError& e) {
            check.fail(path + ".time_unit", e.what());
        }
        if (!r.error) {
            r.real_time = check.number(b, path, "real_time");
            r.cpu_time = check.number(b, path, "cpu_time");
            if (r.iterations == 0) check.fail(path + ".iterations", "is 0 for a run without error");
        }
        if (b.contains("repetition_index")) {
            r.repetition_index = static_cast<int>(check.integer(b, path, "repetition_index", 0));
        } else {
            r.repetition_index = next_index[r.run_name];
        }
        next_index[r.run_name] = r.repetition_index + 1;
        if (!seen.insert({r.run_name, r.repetition_index}).second)
            check.fail(path + ".repetition_index",
                       "repetition " + std::to_string(r.repetition_index) + " of '" + r.run_name + "' appears twice");
        for (const auto& [k, v] : b.items()) {
            if (reserved_keys().count(k)) continue;
            if (v.is_null()) r.counters[k] = std::nan("");
            else if (v.is_number()) r.counters[k] = v.get<double>();
            // Other types (future string fields) are not counters: ignored.
        }
        report.runs.push_back(std::move(r));
    }
    return report;
}

GbenchReport read_gbench_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw GbenchError(path + ": cannot open");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_gbench_json(ss.str(), path);
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
