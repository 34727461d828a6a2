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
        {"system_kind", t.system.kind_name()},
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

// One repeat of a trial measured in rounds; the reference time and ratio are null without a reference.
std::vector<Field> sample_fields(const RepeatSample& r) {
    const auto or_null = [](double v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
    return {
        {"round", r.round},
        {"position", r.position},
        {"ms_per_step", r.ms_per_step},
        {"ref_ms_per_step", or_null(r.ref_ms_per_step)},
        {"ratio", or_null(r.ratio())},
        {"wall_s", r.wall_s},
        {"measured_s", r.measured_s},
        {"cpu_s", r.cpu_s},
        {"threads", r.threads},
        {"cpu_share", r.cpu_share()},
        {"load_avg", r.load_avg},
        {"noisy", r.noisy ? 1 : 0},
    };
}

std::string csv_text(const nlohmann::json& v) {
    if (v.is_null()) return "";
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_float()) return number(v.get<double>());
    return v.dump();  // integers
}

}  // namespace

namespace {

void append_csv_row(const std::vector<Field>& row, std::string& out, bool names) {
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (i) out += ',';
        out += names ? std::string(row[i].name) : csv_field(csv_text(row[i].value));
    }
    out += "\r\n";
}

}  // namespace

std::string export_samples_csv(const std::vector<StoredTrial>& trials) {
    // The trial's identifying columns, then the repeat's.
    auto row_of = [](const StoredTrial& t, const RepeatSample& r) {
        std::vector<Field> row;
        for (Field& f : fields(t))
            for (const char* keep : {"id", "hardware_id", "system_kind", "natoms", "seed", "config", "build_id"})
                if (std::string_view(f.name) == keep) row.push_back({f.name, std::move(f.value)});
        row.front().name = "trial_id";
        for (Field& f : sample_fields(r)) row.push_back(std::move(f));
        return row;
    };
    std::string out;
    append_csv_row(row_of(StoredTrial{}, RepeatSample{}), out, true);
    for (const StoredTrial& t : trials)
        for (const RepeatSample& r : t.result.samples) append_csv_row(row_of(t, r), out, false);
    return out;
}

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
        nlohmann::json samples = nlohmann::json::array();  // empty for trials not measured in rounds
        for (const RepeatSample& r : t.result.samples) {
            nlohmann::json sample = nlohmann::json::object();
            for (Field& f : sample_fields(r)) sample[f.name] = std::move(f.value);
            samples.push_back(std::move(sample));
        }
        row["samples"] = std::move(samples);
        out.push_back(std::move(row));
    }
    return out.dump(2) + "\n";
}

}  // namespace mdtune::db
