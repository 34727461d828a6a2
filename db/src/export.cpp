// Export of stored trials for people and other tools: CSV (RFC 4180) and JSON,
// written one trial at a time, so an export of any size holds one row in memory.
#include <charconv>
#include <functional>
#include <ostream>
#include <sstream>
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

// The trial's identifying columns, then the repeat's.
std::vector<Field> sample_row(const StoredTrial& t, const RepeatSample& r) {
    std::vector<Field> row;
    for (Field& f : fields(t))
        for (const char* keep : {"id", "hardware_id", "system_kind", "natoms", "seed", "config", "build_id"})
            if (std::string_view(f.name) == keep) row.push_back({f.name, std::move(f.value)});
    row.front().name = "trial_id";
    for (Field& f : sample_fields(r)) row.push_back(std::move(f));
    return row;
}

nlohmann::json json_row(const StoredTrial& t) {
    nlohmann::json row = nlohmann::json::object();
    for (Field& f : fields(t)) row[f.name] = std::move(f.value);
    row["timings"] = t.result.timings;
    // The report's pairlist object as the store writes it; null without a report.
    const ReportColumns columns = report_columns(t.result.report);
    row["pairlist"] = columns.pairlist_json.empty() ? nlohmann::json(nullptr) : nlohmann::json::parse(columns.pairlist_json);
    nlohmann::json samples = nlohmann::json::array();  // empty for trials not measured in rounds
    for (const RepeatSample& r : t.result.samples) {
        nlohmann::json sample = nlohmann::json::object();
        for (Field& f : sample_fields(r)) sample[f.name] = std::move(f.value);
        samples.push_back(std::move(sample));
    }
    row["samples"] = std::move(samples);
    return row;
}

// One element of the array as nlohmann's dump(2) of the whole array writes it:
// the element's own dump, every line indented two more spaces (strings hold no
// raw line breaks, JSON escapes them).
void write_json_element(std::ostream& out, const nlohmann::json& row) {
    std::string text = row.dump(2);
    out << "  ";
    std::size_t from = 0;
    for (std::size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
        out.write(text.data() + from, static_cast<std::streamsize>(nl + 1 - from)) << "  ";
    out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

}  // namespace

void write_export(std::ostream& out, ExportLayout layout, const TrialSource& trials) {
    std::string line;
    switch (layout) {
        case ExportLayout::TrialsCsv:
            append_csv_row(fields(StoredTrial{}), line, true);
            out << line;
            trials([&](const StoredTrial& t) {
                line.clear();
                append_csv_row(fields(t), line, false);
                out << line;
            });
            return;
        case ExportLayout::SamplesCsv:
            append_csv_row(sample_row(StoredTrial{}, RepeatSample{}), line, true);
            out << line;
            trials([&](const StoredTrial& t) {
                for (const RepeatSample& r : t.result.samples) {
                    line.clear();
                    append_csv_row(sample_row(t, r), line, false);
                    out << line;
                }
            });
            return;
        case ExportLayout::TrialsJson: {
            bool first = true;
            out << "[";
            trials([&](const StoredTrial& t) {
                out << (first ? "\n" : ",\n");
                write_json_element(out, json_row(t));
                first = false;
            });
            out << (first ? "]\n" : "\n]\n");
            return;
        }
    }
}

namespace {

std::string export_vector(ExportLayout layout, const std::vector<StoredTrial>& trials) {
    std::ostringstream out;
    write_export(out, layout, [&trials](const std::function<void(const StoredTrial&)>& each) {
        for (const StoredTrial& t : trials) each(t);
    });
    return out.str();
}

}  // namespace

std::string export_samples_csv(const std::vector<StoredTrial>& trials) {
    return export_vector(ExportLayout::SamplesCsv, trials);
}

std::string export_trials_csv(const std::vector<StoredTrial>& trials) {
    return export_vector(ExportLayout::TrialsCsv, trials);
}

std::string export_trials_json(const std::vector<StoredTrial>& trials) {
    return export_vector(ExportLayout::TrialsJson, trials);
}

}  // namespace mdtune::db
