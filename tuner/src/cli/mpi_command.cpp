// `mdtune mpi`: benchmark Open MPI's collective algorithms, learn the best one
// per (nodes, ranks per node, message size), write and check a rules file.
#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "mdcore/cli_args.h"
#include "mdtune/hardware.h"
#include "mdtune/models/mpi_catalog.h"
#include "mdtune/mpi/rules_builder.h"
#include "mdtune/mpi/rules_file.h"
#include "mdtune/models/mpi_selection.h"
#include "mdtune/mpi/sweep.h"
#include "mdtune/mpi_store.h"
#include "mdtune/process/digest.h"
#include "mdtune/process/stop_signals.h"

namespace mdtune::cli {

using mdcore::cli::UsageError;
namespace mpi = mdtune::mpi;

namespace {

constexpr const char* kMpiUsage =
    "usage: mdtune mpi <command> [options]\n"
    "  sweep    [--np N...] [--hostfile F] [--ppn P] [--sizes 8-4M|8,64K,...] [--collectives a,b] [--db F]\n"
    "           [--quick] [--segsizes 0,65536] [--launcher auto|mpirun|srun] [--timeout S] [--remeasure]\n"
    "           [--binary PATH] [--mca NAME=VALUE,...] [--rounds R]\n"
    "           one launch per (ranks, collective, algorithm); rows go to the database, finished ones are reused;\n"
    "           --rounds R measures everything R times and keeps the fastest (for machines with background load)\n"
    "  rules    --out rules.conf [--collectives allreduce,alltoall,bcast,allgather] [--db F] [--hardware ID]\n"
    "           [--comm-sizes 2-8|2,4,8] [--ppn P] [--features spline|poly] [--ridge X] [--prefer-default X]\n"
    "           [--cv layout|size] [--no-guard]\n"
    "           fits the model, reports held-out regret, writes an Open MPI 4.1 rules file; a collective whose\n"
    "           model does not beat Open MPI's default on held-out sizes gets no rules (unless --no-guard)\n"
    "  show     [--db F] [--hardware ID] [--collectives ...] [--np N] [--rules F] [--features ...] [--ridge X]\n"
    "           [--prefer-default X] [--worst K]\n"
    "           per collective and size: measured best, predicted best, Open MPI's default, speed-ups\n"
    "  evaluate --rules rules.conf [--np N...] [--collectives ...] [--sizes ...] [--rounds R] [--quick] [--db F]\n"
    "           [--launcher ...] [--hostfile F] [--ppn P] [--timeout S] [--binary PATH]\n"
    "           measures the rules file against Open MPI's defaults (alternating runs)\n";


// "--np 2 4 8" and "--np 2,4,8" both work: words after a list flag are joined.
Args join_list_flags(const Args& args, const std::set<std::string>& list_flags) {
    Args out;
    for (std::size_t k = 0; k < args.size(); ++k) {
        out.push_back(args[k]);
        const std::string& a = args[k];
        if (a.rfind("--", 0) != 0 || a.find('=') != std::string::npos || !list_flags.count(a.substr(2))) continue;
        std::string joined;
        while (k + 1 < args.size() && args[k + 1].rfind("--", 0) != 0) {
            if (!joined.empty()) joined += ",";
            joined += args[++k];
        }
        if (!joined.empty()) out.push_back(joined);
    }
    return out;
}

std::vector<int> parse_int_list(const std::string& flag, const std::string& text, int lo, int hi) {
    std::vector<int> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        if (item.empty()) continue;
        const auto to_int = [&](const std::string& s) {
            try {
                std::size_t used = 0;
                const long v = std::stol(s, &used);
                if (used != s.size()) throw std::invalid_argument(s);
                if (v < lo || v > hi)
                    throw UsageError("--" + flag + ": " + s + " is out of range [" + std::to_string(lo) + ", " +
                                     std::to_string(hi) + "]");
                return static_cast<int>(v);
            } catch (const UsageError&) {
                throw;
            } catch (const std::exception&) {
                throw UsageError("--" + flag + ": '" + s + "' is not an integer");
            }
        };
        const auto dash = item.find('-', 1);
        if (dash != std::string::npos) {
            const int a = to_int(item.substr(0, dash)), b = to_int(item.substr(dash + 1));
            if (a > b) throw UsageError("--" + flag + ": empty range '" + item + "'");
            for (int v = a; v <= b; ++v) out.push_back(v);
        } else {
            out.push_back(to_int(item));
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    if (out.empty()) throw UsageError("--" + flag + " needs at least one value");
    return out;
}

std::vector<mpi::Collective> collectives_opt(const mdcore::cli::ArgMap& opts) {
    if (!opts.has("collectives")) return mpi::default_collectives();
    try {
        return mpi::parse_collectives(*opts.text("collectives"));
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--collectives: ") + e.what());
    }
}

std::vector<std::uint64_t> sizes_opt(const mdcore::cli::ArgMap& opts, bool quick) {
    if (!opts.has("sizes")) return mpi::default_measure(quick).sizes;
    try {
        return mpi::parse_sizes(*opts.text("sizes"));
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--sizes: ") + e.what());
    }
}

std::string default_binary() {
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        const std::string self(buf, static_cast<std::size_t>(n));
        const std::string candidate = self.substr(0, self.rfind('/') + 1) + "mpi_collectives";
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return "mpi_collectives";
}

mpi::LaunchContext launch_opts(const mdcore::cli::ArgMap& opts) {
    try {
        mpi::LaunchContext ctx =
            mpi::detect_launch_context(opts.text("launcher").value_or("auto"), opts.text("hostfile").value_or(""),
                                       static_cast<int>(opts.integer("ppn", 1, 100000).value_or(0)));
        if (!ctx.hostfile.empty() && access(ctx.hostfile.c_str(), R_OK) != 0)
            throw UsageError("--hostfile: cannot read '" + ctx.hostfile + "'");
        if (const auto mca = opts.text("mca")) {
            std::stringstream in(*mca);
            for (std::string kv; std::getline(in, kv, ',');) {
                const auto eq = kv.find('=');
                if (eq == std::string::npos || eq == 0) throw UsageError("--mca: '" + kv + "' is not NAME=VALUE");
                ctx.extra_mca.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
            }
        }
        return ctx;
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

std::string fmt_us(double us) {
    char b[32];
    if (us < 10) std::snprintf(b, sizeof b, "%.2f", us);
    else if (us < 1000) std::snprintf(b, sizeof b, "%.1f", us);
    else std::snprintf(b, sizeof b, "%.0f", us);
    return b;
}

std::string pct(double share) {
    char b[16];
    std::snprintf(b, sizeof b, "%.1f%%", 100 * share);
    return b;
}

// The data one hardware id has, with the MPI library chosen: this machine's when
// it has rows for it, else the one with the most rows.
struct Dataset {
    std::string hardware_id, mpi_library;
    int cores_per_node = 0;  // from the stored hardware record
    std::vector<MpiMeasurement> rows;
    std::vector<mpi::Observation> obs;
};

Dataset load_dataset(Store& store, const std::string& hardware, const std::vector<mpi::Collective>& colls) {
    if (store.schema_version() < 4)
        throw UsageError(store.path() + " has no MPI tables yet (schema " + std::to_string(store.schema_version()) +
                         "); run `mdtune mpi sweep --db " + store.path() + "` first");
    MpiStore ms(store);
    const HardwareInfo hw = detect_hardware();
    Dataset d;
    d.hardware_id = hardware == "this" ? hw.id : hardware;
    MpiFilter f;
    f.hardware_id = d.hardware_id;
    std::vector<MpiMeasurement> all = ms.measurements(f);
    if (all.empty() && hardware == "this") {
        // The fingerprint can drift (memory size on a VM): a database of one machine is still that machine.
        std::set<std::string> ids;
        for (const auto& m : ms.measurements()) ids.insert(m.hardware_id);
        if (ids.size() == 1) {
            std::fprintf(stderr, "mdtune: note: no MPI rows for this machine's id %s; using the only hardware in %s, %s\n",
                         d.hardware_id.c_str(), store.path().c_str(), ids.begin()->c_str());
            d.hardware_id = *ids.begin();
            f.hardware_id = d.hardware_id;
            all = ms.measurements(f);
        }
    }
    std::map<std::string, std::size_t> per_library;
    for (const auto& m : all) ++per_library[m.mpi_library];
    if (per_library.empty())
        throw UsageError("no MPI measurements for hardware " + d.hardware_id + " in " + store.path() +
                         " (run `mdtune mpi sweep` first, or pass --hardware ID)");
    d.mpi_library = per_library.begin()->first;
    for (const auto& [lib, n] : per_library)
        if (n > per_library[d.mpi_library]) d.mpi_library = lib;
    if (per_library.count(hw.mpi_library)) d.mpi_library = hw.mpi_library;
    for (auto& m : all) {
        if (m.mpi_library != d.mpi_library) continue;
        const auto c = mpi::parse_collective(m.collective);
        if (!c || std::find(colls.begin(), colls.end(), *c) == colls.end()) continue;
        d.rows.push_back(m);
    }
    d.obs = mpi::observations_from(d.rows);
    // Cores of the measured machine (what oversubscription is relative to).
    if (const auto json = store.hardware_json(d.hardware_id)) {
        try {
            d.cores_per_node = nlohmann::json::parse(*json).value("physical_cores", 0);
        } catch (const std::exception&) {
        }
    }
    if (d.cores_per_node == 0 && d.hardware_id == hw.id) d.cores_per_node = hw.physical_cores;
    return d;
}

void print_cv(const char* title, const mpi::CvReport& cv) {
    std::printf("%s (%zu folds):\n", title, cv.folds);
    std::printf("  %-15s %7s %10s %12s %10s %14s %12s\n", "collective", "points", "within 5%", "geo regret",
                "max regret", "default w/in5", "default geo");
    const auto row = [](const std::string& name, const mpi::CvSummary& s) {
        char maxr[32];
        if (std::isinf(s.max_regret)) std::snprintf(maxr, sizeof maxr, "fails");
        else std::snprintf(maxr, sizeof maxr, "%.3f", s.max_regret);
        std::printf("  %-15s %7zu %10s %12.3f %10s %14s %12.3f\n", name.c_str(), s.points, pct(s.share_within5()).c_str(),
                    s.geomean_regret, maxr, pct(s.default_share_within5()).c_str(), s.default_geomean_regret);
    };
    for (const auto& [c, s] : cv.per_collective) row(std::string(mpi::name(c)), s);
    row("all", cv.overall);
}

std::string ridge_text(const mpi::SelectionModel& m, const std::vector<mpi::Collective>& colls) {
    std::string s = "ridge";
    for (const auto c : colls) {
        char b[64];
        std::snprintf(b, sizeof b, " %s %g", std::string(mpi::name(c)).c_str(), m.ridge(c));
        s += b;
    }
    return s;
}

mpi::FitOptions fit_opts(const mdcore::cli::ArgMap& opts) {
    mpi::FitOptions fit;
    fit.ridge = opts.real("ridge", 0, 1e6).value_or(fit.ridge);  // absent: chosen by cross-validation
    if (opts.has("prefer-default")) fit.prefer_default = *opts.real("prefer-default", -1e-12, 10);
    if (const auto f = opts.text("features")) {
        const auto set = mpi::parse_feature_set(*f);
        if (!set) throw UsageError("--features: '" + *f + "' (spline, poly)");
        fit.features = *set;
    }
    return fit;
}

// ---- sweep ------------------------------------------------------------------

int sweep(const Args& args) {
    const mdcore::cli::ArgMap opts(join_list_flags(args, {"np", "collectives", "sizes", "segsizes"}),
                                   {{"np", true}, {"hostfile", true}, {"ppn", true}, {"sizes", true},
                                    {"collectives", true}, {"db", true}, {"quick", false}, {"segsizes", true},
                                    {"launcher", true}, {"timeout", true}, {"remeasure", false}, {"binary", true},
                                    {"mca", true}, {"rounds", true}});
    const bool quick = opts.has("quick");
    mpi::SweepOptions so;
    // Default: 2-8 ranks without 5 and 7, which the rules file then predicts.
    so.ranks = opts.has("np") ? parse_int_list("np", *opts.text("np"), 1, 1 << 20)
                              : (quick ? std::vector<int>{2, 4, 8} : std::vector<int>{2, 3, 4, 6, 8});
    so.collectives = collectives_opt(opts);
    so.measure = mpi::default_measure(quick);
    so.measure.sizes = sizes_opt(opts, quick);
    if (opts.has("segsizes")) {
        so.segsizes.clear();
        for (int s : parse_int_list("segsizes", *opts.text("segsizes"), 0, 1 << 30)) so.segsizes.push_back(s);
    }
    so.timeout_s = opts.real("timeout", 0, 86400).value_or(quick ? 120 : 300);
    so.remeasure = opts.has("remeasure");
    so.rounds = static_cast<int>(opts.integer("rounds", 1, 100).value_or(1));
    so.binary = opts.text("binary").value_or(default_binary());
    const mpi::LaunchContext ctx = launch_opts(opts);

    const HardwareInfo hw = detect_hardware();
    Store store(opts.text("db").value_or("mdtune.db"));
    store.put_hardware(hw.id, hw.to_json());
    MpiStore ms(store);
    process::stop_on_signals();

    std::string colls;
    for (auto c : so.collectives) colls += (colls.empty() ? "" : ",") + std::string(mpi::name(c));
    std::string ranks;
    for (int r : so.ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
    std::printf("mdtune mpi sweep: %s ranks, %s, %zu sizes (%s .. %s), %s, db %s, hardware %s\n", ranks.c_str(),
                colls.c_str(), so.measure.sizes.size(), mpi::format_bytes(so.measure.sizes.front()).c_str(),
                mpi::format_bytes(so.measure.sizes.back()).c_str(),
                ctx.kind == mpi::LauncherKind::Srun ? "srun" : "mpirun", store.path().c_str(), hw.id.c_str());
    std::fflush(stdout);
    const mpi::SweepReport rep = mpi::run_sweep(
        ms, hw.id, ctx, so,
        [](const mpi::SweepProgress& p) {
            if (!p.job) {
                std::printf("%s\n", p.message.c_str());
            } else {
                std::printf("[%zu/%zu] %d ranks %-14s %-28s %s\n", p.done, p.planned, p.job->ranks,
                            std::string(mpi::name(p.job->collective)).c_str(),
                            mpi::variant_label(p.job->collective, p.job->variant).c_str(), p.message.c_str());
            }
            std::fflush(stdout);
        },
        process::stop_requested);
    if (rep.sweep_id == 0) {
        std::fprintf(stderr, "mdtune: error: no MPI run could start (see above); is %s built and mpirun on PATH?\n",
                     so.binary.c_str());
        return 1;
    }
    std::printf("mpi sweep %ld %s: %zu launches, %zu reused from the database, %zu failed launches, %.0f s, %s\n",
                rep.sweep_id, rep.interrupted ? "interrupted" : "done", rep.launches, rep.reused, rep.failed_launches,
                rep.seconds, rep.mpi_library.c_str());
    std::printf("next: mdtune mpi rules --out rules.conf --db %s\n", store.path().c_str());
    return rep.interrupted ? 130 : (rep.failed_launches && !rep.launches ? 1 : 0);
}

// ---- rules ------------------------------------------------------------------

int rules(const Args& args) {
    const mdcore::cli::ArgMap opts(join_list_flags(args, {"collectives", "comm-sizes"}),
                                   {{"out", true}, {"collectives", true}, {"db", true}, {"hardware", true},
                                    {"comm-sizes", true}, {"ppn", true}, {"ridge", true}, {"cv", true},
                                    {"features", true}, {"prefer-default", true}, {"no-guard", false}});
    if (!opts.has("out")) throw UsageError("mpi rules needs --out FILE");
    const std::string cv_group = opts.text("cv").value_or("layout");
    if (cv_group != "layout" && cv_group != "size") throw UsageError("--cv: '" + cv_group + "' (layout, size)");
    const auto colls = collectives_opt(opts);
    mpi::FitOptions fit = fit_opts(opts);

    const std::string db = opts.text("db").value_or("mdtune.db");
    if (access(db.c_str(), F_OK) != 0) throw UsageError("--db: no database at '" + db + "' (run `mdtune mpi sweep` first)");
    Store store(db);
    const Dataset d = load_dataset(store, opts.text("hardware").value_or("this"), colls);
    if (d.obs.empty()) throw UsageError("no measurements of the requested collectives for hardware " + d.hardware_id);
    fit.cores_per_node = d.cores_per_node;
    const mpi::SelectionModel model = mpi::SelectionModel::fit(d.obs, fit);
    const mpi::CvReport cv =
        mpi::cross_validate(d.obs, cv_group == "size" ? mpi::CvGroup::Size : mpi::CvGroup::Layout, fit);

    // Guard: a collective whose model does not beat Open MPI's default on held-out
    // message sizes is left to Open MPI (no rules for it) rather than shipped.
    const mpi::CvReport guard_cv =
        cv_group == "size" ? cv : mpi::cross_validate(d.obs, mpi::CvGroup::Size, fit);
    std::vector<std::string> guard_notes;
    mpi::RulesOptions ro;
    for (const auto c : colls) {
        const auto it = guard_cv.per_collective.find(c);
        if (it == guard_cv.per_collective.end()) continue;
        const mpi::CvSummary& s = it->second;
        char note[200];
        std::snprintf(note, sizeof note, "%s: held-out geometric-mean regret %.3f, Open MPI's default %.3f",
                      std::string(mpi::name(c)).c_str(), s.geomean_regret, s.default_geomean_regret);
        const bool keep =
            opts.has("no-guard") || s.default_points == 0 || s.geomean_regret < s.default_geomean_regret;
        if (keep) ro.collectives.push_back(c);
        guard_notes.push_back(std::string(note) + (keep ? "" : ": left to Open MPI's default (no rules)"));
    }
    if (ro.collectives.empty())
        std::printf("note: no collective's model beats Open MPI's default on held-out sizes; the file has no rules\n");
    if (opts.has("comm-sizes")) ro.comm_sizes = parse_int_list("comm-sizes", *opts.text("comm-sizes"), 1, 1 << 24);
    ro.ppn = static_cast<int>(opts.integer("ppn", 1, 100000).value_or(0));
    char held[256];
    std::snprintf(held, sizeof held,
                  "held-out regret (%s groups): %s of %zu points within 5%% of the best, geometric mean %.3f; "
                  "Open MPI's default %s, %.3f",
                  cv_group.c_str(), pct(cv.overall.share_within5()).c_str(), cv.overall.points,
                  cv.overall.geomean_regret, pct(cv.overall.default_share_within5()).c_str(),
                  cv.overall.default_geomean_regret);
    ro.header = {
        "Open MPI coll_tuned dynamic rules (classic format of Open MPI 4.1), written by mdtune mpi rules",
        "use: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename THIS_FILE ...",
        "hardware " + d.hardware_id + ", " + d.mpi_library + ", " + std::to_string(d.rows.size()) + " measurements",
        "model: per (collective, algorithm) ridge regression of log latency on features of (nodes, ranks per "
        "node, message size), " + ridge_text(model, colls) + "; " + mpi::describe(fit.features),
        held,
        "format: counts, then per collective: id, number of communicator sizes; per size: size, number of",
        "message rules; per rule: message size, algorithm (0 = Open MPI's default), fan-in/out, segment size.",
        "Message sizes are Open MPI's: bytes of the buffer for allreduce/bcast/reduce_scatter, bytes per rank",
        "times ranks for allgather/alltoall. '#' starts a comment (Open MPI's reader skips to the line end)."};
    for (const auto& n : guard_notes) ro.header.push_back("guard, one message size held out at a time: " + n);
    const mpi::RulesFile file = mpi::build_rules(model, d.obs, ro);
    const std::string out = *opts.text("out");
    mpi::write_rules_file(out, file);
    mpi::read_rules_file(out);  // what we wrote must parse back

    MpiStore ms(store);
    for (const auto c : model.collectives()) {
        MpiModelRow row;
        row.hardware_id = d.hardware_id;
        row.mpi_library = d.mpi_library;
        row.collective = std::string(mpi::name(c));
        row.feature_set = mpi::describe(fit.features);
        row.model_json = model.to_json(c);
        row.cv_json = cv.to_json();
        row.training_rows = static_cast<long>(model.training_rows(c));
        ms.put_model(row);
    }

    std::printf("mdtune mpi rules: hardware %s, %s, %zu measurements\n", d.hardware_id.c_str(), d.mpi_library.c_str(),
                d.rows.size());
    std::printf("model: %s, %s, default kept within %.0f%% of the predicted best\n", mpi::describe(fit.features).c_str(),
                ridge_text(model, colls).c_str(), 100 * fit.prefer_default);
    print_cv(cv_group == "size" ? "held-out regret, one message size left out at a time"
                                : "held-out regret, one (nodes, ranks per node) layout left out at a time",
             cv);
    for (const auto& n : guard_notes) std::printf("guard (sizes held out): %s\n", n.c_str());
    std::size_t n_rules = 0, n_comm = 0;
    for (const auto& c : file.collectives) {
        n_comm += c.comm_rules.size();
        for (const auto& cr : c.comm_rules) n_rules += cr.rules.size();
    }
    std::printf("wrote %s: %zu collectives, %zu communicator sizes, %zu message rules\n", out.c_str(),
                file.collectives.size(), n_comm, n_rules);
    std::printf("use:   mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename %s ...\n",
                out.c_str());
    std::printf("check: mdtune mpi evaluate --rules %s\n", out.c_str());
    return 0;
}

// ---- show -------------------------------------------------------------------

int show(const Args& args) {
    const mdcore::cli::ArgMap opts(join_list_flags(args, {"collectives", "np"}),
                                   {{"db", true}, {"hardware", true}, {"collectives", true}, {"np", true},
                                    {"rules", true}, {"ridge", true}, {"features", true}, {"prefer-default", true},
                                    {"worst", true}});
    const auto colls = collectives_opt(opts);
    std::optional<std::vector<int>> only_ranks;
    if (opts.has("np")) only_ranks = parse_int_list("np", *opts.text("np"), 1, 1 << 20);
    mpi::FitOptions fit = fit_opts(opts);
    std::optional<mpi::RulesFile> rules_file;
    if (opts.has("rules")) rules_file = mpi::read_rules_file(*opts.text("rules"));

    Store store(opts.text("db").value_or("mdtune.db"), Store::Mode::ReadOnly);
    const Dataset d = load_dataset(store, opts.text("hardware").value_or("this"), colls);
    fit.cores_per_node = d.cores_per_node;
    const mpi::SelectionModel model = mpi::SelectionModel::fit(d.obs, fit);
    const auto table = mpi::tabulate(d.obs);
    std::printf("hardware %s, %s, %zu measurements; latency = 10th percentile over iterations of the slowest rank\n",
                d.hardware_id.c_str(), d.mpi_library.c_str(), d.rows.size());
    std::printf("predicted = argmin of the model fitted on all measurements (what `mpi rules` writes)\n");

    std::map<mpi::Collective, std::pair<double, std::size_t>> best_gain, pred_gain;
    std::optional<mpi::Collective> current;
    std::optional<mpi::Site> layout;
    for (const auto& [key, t] : table) {
        const auto& [c, site] = key;
        if (only_ranks && std::find(only_ranks->begin(), only_ranks->end(), site.ranks()) == only_ranks->end()) continue;
        if (!current || *current != c) {
            std::printf("\n%s\n", std::string(mpi::name(c)).c_str());
            current = c;
            layout.reset();
        }
        if (!layout || layout->nodes != site.nodes || layout->ppn != site.ppn) {
            std::printf("  %d ranks (%d node%s x %d)\n", site.ranks(), site.nodes, site.nodes > 1 ? "s" : "", site.ppn);
            std::printf("    %-9s %-32s %-34s %10s %9s %9s%s\n", "size", "measured best (us)", "predicted best (us measured)",
                        "default us", "best/def", "pred/def", rules_file ? "  rules file" : "");
            layout = site;
        }
        const auto best = t.best();
        if (!best) {
            std::printf("    %-9s all variants failed\n", mpi::format_bytes(site.bytes).c_str());
            continue;
        }
        const auto pred = model.best(c, site);
        const auto def = t.ok.find(mpi::Variant{});
        std::string pred_text = "-";
        std::optional<double> pred_us;
        if (pred) {
            const auto it = t.ok.find(pred->variant);
            if (it != t.ok.end()) pred_us = it->second;
            pred_text = mpi::variant_label(c, pred->variant) + " " +
                        (pred_us ? fmt_us(*pred_us) : t.failed.count(pred->variant) ? "FAILED" : "n/a") +
                        (pred->variant == best->first ? "" : " *");
        }
        std::string def_text = "-", gain_best = "-", gain_pred = "-";
        if (def != t.ok.end()) {
            def_text = fmt_us(def->second);
            char b[32];
            std::snprintf(b, sizeof b, "%.2fx", def->second / best->second);
            gain_best = b;
            best_gain[c].first += std::log(def->second / best->second);
            ++best_gain[c].second;
            if (pred_us) {
                std::snprintf(b, sizeof b, "%.2fx", def->second / *pred_us);
                gain_pred = b;
                pred_gain[c].first += std::log(def->second / *pred_us);
                ++pred_gain[c].second;
            }
        }
        std::string rules_text;
        if (rules_file) {
            const auto dec = mpi::lookup(*rules_file, mpi::info(c).rules_id, site.ranks(),
                                         mpi::rule_message_size(c, site.bytes, site.ranks()));
            rules_text = "  " + (dec ? mpi::variant_label(c, {dec->algorithm, dec->segsize, dec->faninout}) : "(none)");
        }
        std::printf("    %-9s %-32s %-34s %10s %9s %9s%s\n", mpi::format_bytes(site.bytes).c_str(),
                    (mpi::variant_label(c, best->first) + " " + fmt_us(best->second)).c_str(), pred_text.c_str(),
                    def_text.c_str(), gain_best.c_str(), gain_pred.c_str(), rules_text.c_str());
    }
    std::printf("\n* predicted differs from the measured best.  best/def, pred/def: Open MPI default latency over that "
                "variant's (above 1 = faster than the default)\n");
    std::printf("geometric-mean speed-up over Open MPI's default, measured:\n");
    for (const auto& [c, g] : best_gain) {
        const auto p = pred_gain[c];
        std::printf("  %-15s measured best %.3fx   predicted best %.3fx   (%zu sizes)\n",
                    std::string(mpi::name(c)).c_str(), std::exp(g.first / double(g.second)),
                    p.second ? std::exp(p.first / double(p.second)) : 1.0, g.second);
    }
    const mpi::CvReport cv = mpi::cross_validate(d.obs, mpi::CvGroup::Layout, fit);
    std::printf("\n");
    print_cv("held-out regret, one (nodes, ranks per node) layout left out at a time", cv);
    if (const long worst = opts.integer("worst", 1, 100000).value_or(0)) {
        auto pts = cv.points;
        std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.regret > b.regret; });
        std::printf("worst held-out points:\n");
        for (std::size_t i = 0; i < pts.size() && i < static_cast<std::size_t>(worst); ++i) {
            const auto& p = pts[i];
            std::printf("  %-14s %d ranks %-9s predicted %-26s %10s us, best %-26s %10s us, regret %.2f\n",
                        std::string(mpi::name(p.collective)).c_str(), p.site.ranks(),
                        mpi::format_bytes(p.site.bytes).c_str(), mpi::variant_label(p.collective, p.predicted).c_str(),
                        std::isinf(p.regret) ? "FAILED" : fmt_us(p.predicted_us).c_str(),
                        mpi::variant_label(p.collective, p.best).c_str(), fmt_us(p.best_us).c_str(), p.regret);
        }
    }
    return 0;
}

// ---- evaluate ---------------------------------------------------------------

int evaluate(const Args& args) {
    const mdcore::cli::ArgMap opts(join_list_flags(args, {"np", "collectives", "sizes"}),
                                   {{"rules", true}, {"np", true}, {"collectives", true}, {"sizes", true},
                                    {"rounds", true}, {"quick", false}, {"db", true}, {"launcher", true},
                                    {"hostfile", true}, {"ppn", true}, {"timeout", true}, {"binary", true},
                                    {"mca", true}});
    if (!opts.has("rules")) throw UsageError("mpi evaluate needs --rules FILE");
    const bool quick = opts.has("quick");
    const std::string rules_path = *opts.text("rules");
    std::string text;
    {
        std::ifstream in(rules_path, std::ios::binary);
        if (!in) throw UsageError("--rules: cannot read '" + rules_path + "'");
        std::ostringstream s;
        s << in.rdbuf();
        text = s.str();
    }
    mpi::parse_rules(text, rules_path);  // a file Open MPI would drop silently is refused here

    mpi::EvalOptions eo;
    eo.ranks = opts.has("np") ? parse_int_list("np", *opts.text("np"), 1, 1 << 20)
                              : (quick ? std::vector<int>{2, 4, 8} : std::vector<int>{2, 3, 4, 5, 6, 7, 8});
    eo.collectives = collectives_opt(opts);
    eo.measure = mpi::default_measure(quick);
    eo.measure.sizes = sizes_opt(opts, quick);
    eo.rounds = static_cast<int>(opts.integer("rounds", 1, 100).value_or(2));
    eo.timeout_s = opts.real("timeout", 0, 86400).value_or(quick ? 120 : 300);
    eo.binary = opts.text("binary").value_or(default_binary());
    const mpi::LaunchContext ctx = launch_opts(opts);
    const HardwareInfo hw = detect_hardware();
    Store store(opts.text("db").value_or("mdtune.db"));
    store.put_hardware(hw.id, hw.to_json());
    process::stop_on_signals();

    std::printf("mdtune mpi evaluate %s: Open MPI's defaults against the rules file, %d alternating rounds\n",
                rules_path.c_str(), eo.rounds);
    std::fflush(stdout);
    const mpi::EvalReport rep = mpi::evaluate_rules(
        rules_path, ctx, eo,
        [](const std::string& s) {
            std::printf("  %s\n", s.c_str());
            std::fflush(stdout);
        },
        process::stop_requested);
    if (!rep.canary_applied) std::printf("warning: %s\n", rep.canary_note.c_str());
    if (rep.points.empty()) {
        std::fprintf(stderr, "mdtune: error: no size was measured both ways\n");
        return rep.interrupted ? 130 : 1;
    }
    const std::string dig = process::fnv1a_hex(text);  // identifies the rules file in the database
    std::vector<MpiRulesEval> rows;
    for (const auto& p : rep.points) {
        MpiRulesEval r;
        r.hardware_id = hw.id;
        r.mpi_library = rep.mpi_library;
        r.nodes = p.site.nodes;
        r.ppn = p.site.ppn;
        r.ranks = p.site.ranks();
        r.collective = std::string(mpi::name(p.collective));
        r.bytes = static_cast<long>(p.site.bytes);
        r.rounds = eo.rounds;
        r.default_us = p.default_us;
        r.rules_us = p.rules_us;
        r.default_median_us = p.default_median_us;
        r.rules_median_us = p.rules_median_us;
        rows.push_back(r);
    }
    MpiStore(store).put_rules_evaluation(dig, text, rows);

    std::size_t slower = 0, faster = 0;
    for (const auto& p : rep.points) {
        slower += p.speedup() < 1 / 1.05;
        faster += p.speedup() > 1.05;
    }
    std::printf("\ngeometric-mean speed-up of the rules file over Open MPI's defaults (measured, %zu points)\n"
                "  latency: 10th percentile (median in brackets) over iterations of the slowest rank\n",
                rep.points.size());
    for (const auto c : eo.collectives)
        std::printf("  %-15s %.3fx  (%.3fx)\n", std::string(mpi::name(c)).c_str(), rep.geomean_speedup(c),
                    rep.geomean_speedup(c, true));
    std::printf("  %-15s %.3fx  (%.3fx)   %zu points >5%% faster, %zu >5%% slower\n", "all", rep.geomean_speedup(),
                rep.geomean_speedup(std::nullopt, true), faster, slower);
    if (rep.rules_failures || rep.default_failures)
        std::printf("failed or wrong sizes: %zu under the rules file, %zu under the defaults\n", rep.rules_failures,
                    rep.default_failures);
    std::printf("stored as rules file %s in %s\n", dig.c_str(), store.path().c_str());
    return rep.interrupted ? 130 : 0;
}

}  // namespace

int mpi_command(const Args& args) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::printf("%s", kMpiUsage);
        return args.empty() ? 2 : 0;
    }
    const Args rest(args.begin() + 1, args.end());
    try {
        if (args[0] == "sweep") return sweep(rest);
        if (args[0] == "rules") return rules(rest);
        if (args[0] == "show") return show(rest);
        if (args[0] == "evaluate") return evaluate(rest);
    } catch (const mpi::RulesError& e) {
        std::fprintf(stderr, "mdtune: error: %s\n", e.what());
        return 2;
    }
    throw UsageError("unknown mpi command '" + args[0] + "' (sweep, rules, show, evaluate)\n" + kMpiUsage);
}

}  // namespace mdtune::cli
