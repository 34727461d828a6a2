// Evaluating a rules file: a canary shows whether Open MPI applies rules files
// of this format, then default and rules runs alternate per collective and size.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "mdtune/mpi/rules_file.h"
#include "mdtune/mpi/sweep.h"
#include "sweep_text.h"

namespace mdtune::mpi {

double EvalReport::geomean_speedup(std::optional<models::mpi::Collective> c, bool median) const {
    double s = 0;
    std::size_t n = 0;
    for (const auto& p : points) {
        if (c && p.collective != *c) continue;
        s += std::log(median ? p.speedup_median() : p.speedup());
        ++n;
    }
    return n ? std::exp(s / double(n)) : 1.0;
}

namespace {

// A rules file from the same writer that makes allgather fail at 3 ranks: tells
// whether this Open MPI applies rules files of this format at all.
void run_canary(const std::string& abs_rules, const LaunchContext& ctx, const EvalOptions& opt, EvalReport& rep,
                const std::function<bool()>& stop) {
    RulesFile canary;
    canary.header = {"mdtune canary: allgather forced to two_proc, which fails above 2 ranks"};
    canary.collectives.push_back({info(models::mpi::Collective::Allgather).rules_id, {{0, {{0, 6, 0, 0, ""}}, ""}}});
    const std::string path = abs_rules + ".canary";
    write_rules_file(path, canary);
    BenchSettings m = opt.measure;
    m.sizes = {8};
    const LaunchResult r =
        launch(make_command(ctx, opt.binary, {3, models::mpi::Collective::Allgather, Selection::Rules, {}, path}, m),
               std::min(opt.timeout_s, 120.0), stop);
    std::remove(path.c_str());
    if (!r.usable()) {
        rep.canary_note = "canary could not run: " + launch_problem(r);
    } else if (!r.output.results.empty() && r.output.results.front().status == "failed") {
        rep.canary_applied = true;
        rep.canary_note = "Open MPI applied a canary rules file (" + r.output.results.front().error + ")";
    } else {
        rep.canary_note = "Open MPI ignored a canary rules file of this format: is coll/tuned in use?";
    }
}

// Latencies per message size under Open MPI's default decisions and under the rules file.
struct PairedLatencies {
    std::map<long, std::vector<double>> def, rul, def_med, rul_med;
    LaunchOutput layout;
};

// Runs one collective at one communicator size, default and rules alternating
// (ABBA: neither side always runs first on a machine that drifts). False when interrupted.
bool measure_pairs(int ranks, models::mpi::Collective c, const std::string& abs_rules, const LaunchContext& ctx,
                   const EvalOptions& opt, EvalReport& rep, PairedLatencies& lat,
                   const std::function<void(const std::string&)>& say, const std::function<bool()>& stop) {
    for (int round = 0; round < opt.rounds; ++round) {
        const bool default_first = round % 2 == 0;
        for (int k = 0; k < 2; ++k) {
            const bool is_default = (k == 0) == default_first;
            const Job job{ranks, c, is_default ? Selection::Default : Selection::Rules, {}, abs_rules};
            const LaunchResult r = launch(make_command(ctx, opt.binary, job, opt.measure), opt.timeout_s, stop);
            if (r.interrupted) return false;
            if (!r.usable()) {
                ++rep.failed_launches;
                say(std::to_string(ranks) + " ranks " + std::string(name(c)) + ": " + launch_problem(r));
                continue;
            }
            lat.layout = r.output;
            rep.mpi_library = r.output.mpi_library;
            for (const auto& m : r.output.results) {
                if (m.status == "ok") {
                    (is_default ? lat.def : lat.rul)[m.bytes].push_back(m.lat_p10_us);
                    (is_default ? lat.def_med : lat.rul_med)[m.bytes].push_back(m.lat_median_us);
                } else {
                    // Under the rules file this is a regression the speed-up cannot show.
                    (is_default ? rep.default_failures : rep.rules_failures)++;
                    say(std::to_string(ranks) + " ranks " + std::string(name(c)) + " " + std::to_string(m.bytes) +
                        " B " + (is_default ? "default" : "rules") + ": " + m.status + " " + m.error);
                }
            }
        }
    }
    return true;
}

// Adds a point per message size both sides measured; returns how many.
std::size_t add_points(models::mpi::Collective c, PairedLatencies& lat, EvalReport& rep) {
    std::size_t n = 0;
    for (const auto& [bytes, d] : lat.def) {
        const auto it = lat.rul.find(bytes);
        if (it == lat.rul.end()) continue;
        // Best of the rounds for the 10th percentile (load only adds time), median for the medians.
        rep.points.push_back({c, {lat.layout.nodes, lat.layout.ppn, static_cast<std::uint64_t>(bytes)},
                              *std::min_element(d.begin(), d.end()),
                              *std::min_element(it->second.begin(), it->second.end()), median_of(lat.def_med[bytes]),
                              median_of(lat.rul_med[bytes])});
        ++n;
    }
    return n;
}

}  // namespace

EvalReport evaluate_rules(const std::string& rules_path, const LaunchContext& ctx, const EvalOptions& opt,
                          const std::function<void(const std::string&)>& log, const std::function<bool()>& stop) {
    EvalReport rep;
    const auto say = [&](const std::string& s) {
        if (log) log(s);
    };
    const std::string abs_rules = std::filesystem::absolute(rules_path).string();
    read_rules_file(abs_rules);  // refuse a file Open MPI would drop silently
    run_canary(abs_rules, ctx, opt, rep, stop);
    say(rep.canary_note);

    for (const int ranks : opt.ranks) {
        for (const models::mpi::Collective c : opt.collectives) {
            PairedLatencies lat;
            if ((stop && stop()) || !measure_pairs(ranks, c, abs_rules, ctx, opt, rep, lat, say, stop)) {
                rep.interrupted = true;
                return rep;
            }
            const std::size_t n = add_points(c, lat, rep);
            double s = 0;
            for (std::size_t i = rep.points.size() - n; i < rep.points.size(); ++i) s += std::log(rep.points[i].speedup());
            say(std::to_string(ranks) + " ranks " + std::string(name(c)) + ": " + std::to_string(n) +
                " sizes, geometric-mean speed-up " + fmt(n ? std::exp(s / double(n)) : 1.0, "%.3f"));
        }
    }
    return rep;
}

}  // namespace mdtune::mpi
