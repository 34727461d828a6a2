// Export of stored trials for people and other tools: CSV (RFC 4180) and JSON.
#include <charconv>
#include <nlohmann/json.hpp>

#include "mdtune/db/store.h"
#include "report_columns.h"

namespace mdtune::db {
namespace {

// Shortest text that reads back as the same double.
std::string number(double v) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

// The exported columns, in order, with their text; shared by both formats so they agree.
struct Field {
    const char* name;
    nlohmann::json value;
};

std::vector<Field> fields(const StoredTrial& t) {
    const TrialResult& r = t.result;
    return {
        {"id", t.id},
        {"sweep_id", t.sweep_id},
        {"hardware_id", t.hardware_id},
        {"system_kind", t.system.kind},
        {"natoms", t.system.natoms},
        {"seed", t.system.seed},
        {"config", t.config.canonical()},
        {"build_id", t.build_id},
        {"steps", t.measure.steps},
        {"warmup", t.measure.warmup},
        {"repeats", r.repeats},
        {"status", std::string(to_string(r.status))},
        {"ms_median", r.ms_median},
        {"ms_min", r.ms_min},
        {"ms_max", r.ms_max},
        {"ns_per_day", r.ns_per_day},
        {"drift", r.drift},
        {"load_avg", r.load_avg},
        {"created_at", t.created_at},
    };
}

std::string csv_text(const nlohmann::json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_float()) return number(v.get<double>());
    return v.dump();  // integers
}

}  // namespace

std::string export_trials_csv(const std::vector<StoredTrial>& trials) {
    std::string out;
    const std::vector<Field> header = fields(StoredTrial{});
    for (std::size_t i = 0; i < header.size(); ++i) {
        if (i) out += ',';
        out += header[i].name;
    }
    out += "\r\n";
    for (const StoredTrial& t : trials) {
        const std::vector<Field> row = fields(t);
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (i) out += ',';
            out += csv_field(csv_text(row[i].value));
        }
        out += "\r\n";
    }
    return out;
}

std::string export_trials_json(const std::vector<StoredTrial>& trials) {
    nlohmann::json out = nlohmann::json::array();
    for (const StoredTrial& t : trials) {
        nlohmann::json row = nlohmann::json::object();
        for (Field& f : fields(t)) row[f.name] = std::move(f.value);
        row["timings"] = t.result.timings;
        // The report's pairlist object as the store writes it; null without a report.
        const ReportColumns columns = report_columns(t.result.report);
        row["pairlist"] = columns.pairlist_json.empty() ? nlohmann::json(nullptr)
                                                        : nlohmann::json::parse(columns.pairlist_json);
        out.push_back(std::move(row));
    }
    return out.dump(2) + "\n";
}

}  // namespace mdtune::db
