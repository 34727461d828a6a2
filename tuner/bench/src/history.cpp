#include "mdtune/bench/history.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "mdtune/bench/gbench_json.h"
#include "mdtune/models/statistics.h"

namespace mdtune::bench {

std::vector<HistoryEntry> build_history(const std::vector<db::BenchSeriesPoint>& points, const GateOptions& options) {
    std::vector<HistoryEntry> out;
    for (const db::BenchSeriesPoint& p : points) {
        const double scale = options.exact_counts ? 1.0 : seconds_per_unit(p.unit);
        const std::string key = p.git_commit.empty() ? p.label : p.git_commit;
        const bool same = !out.empty() && (out.back().commit.empty() ? out.back().label : out.back().commit) == key;
        if (!same) {
            HistoryEntry e;
            e.commit = p.git_commit;
            e.label = p.label;
            e.first_seen = p.created_at;
            out.push_back(std::move(e));
        }
        HistoryEntry& e = out.back();
        ++e.runs;
        for (double v : p.values) e.values.push_back(v * scale);
    }
    for (std::size_t i = 0; i < out.size(); ++i) {
        HistoryEntry& e = out[i];
        e.median = models::stats::median(e.values);
        e.spread = models::stats::relative_spread(e.values);
        if (i == 0) continue;
        e.has_previous = true;
        e.vs_previous = compare_benchmark("", out[i - 1].values, e.values, options);
        e.step = e.vs_previous.verdict == Verdict::Regression || e.vs_previous.verdict == Verdict::Improvement;
    }
    return out;
}

std::string format_history(const std::string& name, const std::vector<HistoryEntry>& history,
                           const GateOptions& options) {
    std::ostringstream s;
    s << name << " (" << history.size() << " commit(s), oldest first)\n";
    char line[512];
    std::snprintf(line, sizeof line, "%-12s  %-20s  %-24s  %4s  %12s  %7s  %9s  %9s  %s\n", "commit", "label",
                  "first run", "n", "median", "spread", "vs prev", "p", "");
    s << line;
    std::size_t steps = 0;
    for (const HistoryEntry& e : history) {
        const std::string commit = e.commit.empty() ? "-" : e.commit.substr(0, 12);
        std::string change = "", p = "", flag = "";
        if (e.has_previous) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%+.2f%%", 100.0 * e.vs_previous.change);
            change = buf;
            std::snprintf(buf, sizeof buf, e.vs_previous.p_value < 1e-4 ? "%.1e" : "%.4f", e.vs_previous.p_value);
            p = buf;
            if (e.step) {
                flag = e.vs_previous.verdict == Verdict::Regression ? "<-- STEP: slower" : "<-- STEP: faster";
                ++steps;
            } else if (e.vs_previous.verdict == Verdict::TooNoisy) {
                flag = "(too noisy to tell)";
            }
        }
        std::snprintf(line, sizeof line, "%-12s  %-20.20s  %-24.24s  %4zu  %12s  %6.1f%%  %9s  %9s  %s\n",
                      commit.c_str(), e.label.c_str(), e.first_seen.c_str(), e.values.size(),
                      format_value(e.median, options.exact_counts).c_str(), 100.0 * e.spread, change.c_str(),
                      p.c_str(), flag.c_str());
        s << line;
    }
    s << steps << " step change(s) (consecutive commits differing significantly by more than "
      << 100.0 * options.threshold << "%)\n";
    return s.str();
}

}  // namespace mdtune::bench
