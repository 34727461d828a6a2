#include "mdtune/bench/ingest.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace mdtune::bench {

Converted to_run_row(const GbenchReport& report, const RunMeta& meta) {
    Converted out;
    db::BenchRunRow& row = out.row;
    row.label = meta.label;
    row.git_commit = meta.git_commit;
    row.hardware_id = meta.hardware_id;
    row.metric = meta.metric;
    row.build_flags = build_flags_of(report);
    row.context_json = report.context_json;
    const bool instructions = meta.metric == db::BenchMetric::Instructions;
    for (const GbenchRun& r : report.runs) {
        if (r.type != RunType::Iteration) continue;
        if (r.error) {
            out.skipped.push_back(r.run_name + ": " + (r.error_message.empty() ? "error" : r.error_message));
            continue;
        }
        db::BenchResultRow res;
        res.name = r.run_name;
        res.repetition = r.repetition_index;
        res.iterations = r.iterations;
        if (instructions) {
            const auto it = r.counters.find(kInstructionsCounter);
            if (it == r.counters.end() || !std::isfinite(it->second) || it->second < 0)
                throw GbenchError(report.source + ": '" + r.run_name + "' repetition " +
                                  std::to_string(r.repetition_index) +
                                  " has no valid \"instructions\" counter (instruction results come from "
                                  "`mdtune bench run --metric instructions --out DIR`)");
            res.value = it->second;
            res.unit = "instructions";
        } else {
            res.value = r.real_time;
            res.unit = r.time_unit;
        }
        nlohmann::json extra = {{"cpu_time", r.cpu_time}, {"time_unit", r.time_unit}, {"threads", r.threads}};
        if (!r.label.empty()) extra["label"] = r.label;
        nlohmann::json counters = nlohmann::json::object();
        for (const auto& [k, v] : r.counters) counters[k] = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
        if (!counters.empty()) extra["counters"] = counters;
        res.extra_json = extra.dump();
        row.results.push_back(std::move(res));
    }
    if (row.results.empty()) {
        std::string why = report.iteration_runs() == 0
                              ? "has no per-repetition results (only aggregates? run without "
                                "--benchmark_report_aggregates_only)"
                              : "has no result without an error";
        throw GbenchError(report.source + ": " + why);
    }
    return out;
}

Samples samples_of(const std::vector<db::BenchRunRow>& runs) {
    Samples s;
    for (const db::BenchRunRow& run : runs)
        for (const db::BenchResultRow& r : run.results) {
            const double scale = run.metric == db::BenchMetric::Instructions ? 1.0 : seconds_per_unit(r.unit);
            s[r.name].push_back(r.value * scale);
        }
    return s;
}

}  // namespace mdtune::bench
