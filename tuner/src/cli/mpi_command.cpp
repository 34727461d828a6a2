// `mdtune mpi`: benchmark Open MPI's collective algorithms, learn the best one
// per (nodes, ranks per node, message size), write and check a rules file. The
// work is in tuner/mpi (mdtune/mpi/commands.h, sweep.h); this file parses flags
// (parse_*_args) and prints results (print_*), kept apart.
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <sstream>

#include "cli/commands.h"
#include "mdcore/cli_args.h"
#include "mdtune/hardware.h"
#include "mdtune/models/mpi_catalog.h"
#include "mdtune/models/mpi_selection.h"
#include "mdtune/mpi/commands.h"
#include "mdtune/mpi/rules_file.h"
#include "mdtune/mpi/sweep.h"
#include "mdtune/mpi_store.h"
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

struct RulesArgs {
    std::string db;
    mpi::RulesRequest request;
};

RulesArgs parse_rules_args(const Args& args) {
    const mdcore::cli::ArgMap opts(join_list_flags(args, {"collectives", "comm-sizes"}),
                                   {{"out", true}, {"collectives", true}, {"db", true}, {"hardware", true},
                                    {"comm-sizes", true}, {"ppn", true}, {"ridge", true}, {"cv", true},
                                    {"features", true}, {"prefer-default", true}, {"no-guard", false}});
    if (!opts.has("out")) throw UsageError("mpi rules needs --out FILE");
    const std::string cv_group = opts.text("cv").value_or("layout");
    if (cv_group != "layout" && cv_group != "size") throw UsageError("--cv: '" + cv_group + "' (layout, size)");
    RulesArgs a;
    a.db = opts.text("db").value_or("mdtune.db");
    mpi::RulesRequest& r = a.request;
    r.out = *opts.text("out");
    r.collectives = collectives_opt(opts);
    r.hardware = opts.text("hardware").value_or("this");
    r.cv_group = cv_group == "size" ? mpi::CvGroup::Size : mpi::CvGroup::Layout;
    r.fit = fit_opts(opts);
    r.guard = !opts.has("no-guard");
    if (opts.has("comm-sizes")) r.comm_sizes = parse_int_list("comm-sizes", *opts.text("comm-sizes"), 1, 1 << 24);
    r.ppn = static_cast<int>(opts.integer("ppn", 1, 100000).value_or(0));
    return a;
}

void print_note(const mpi::Dataset& d) {
    if (!d.note.empty()) std::fprintf(stderr, "mdtune: note: %s\n", d.note.c_str());
}

void print_rules(const mpi::RulesResult& r, const mpi::RulesRequest& request) {
    if (std::none_of(r.guard.begin(), r.guard.end(), [](const auto& g) { return g.kept; }))
        std::printf("note: no collective's model beats Open MPI's default on held-out sizes; the file has no rules\n");
    std::printf("mdtune mpi rules: hardware %s, %s, %zu measurements\n", r.data.hardware_id.c_str(),
                r.data.mpi_library.c_str(), r.data.rows.size());
    std::printf("model: %s, %s, default kept within %.0f%% of the predicted best\n", mpi::describe(r.fit.features).c_str(),
                mpi::describe_ridge(r.model, request.collectives).c_str(), 100 * r.fit.prefer_default);
    print_cv(request.cv_group == mpi::CvGroup::Size ? "held-out regret, one message size left out at a time"
                                                    : "held-out regret, one (nodes, ranks per node) layout left out at a time",
             r.cv);
    for (const auto& g : r.guard) std::printf("guard (sizes held out): %s\n", g.note().c_str());
    std::printf("wrote %s: %zu collectives, %zu communicator sizes, %zu message rules\n", request.out.c_str(),
                r.file.collectives.size(), r.comm_sizes, r.message_rules);
    std::printf("use:   mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename %s ...\n",
                request.out.c_str());
    std::printf("check: mdtune mpi evaluate --rules %s\n", request.out.c_str());
}

int rules(const Args& args) {
    const RulesArgs a = parse_rules_args(args);
    if (access(a.db.c_str(), F_OK) != 0)
        throw UsageError("--db: no database at '" + a.db + "' (run `mdtune mpi sweep` first)");
    Store store(a.db);
    const mpi::RulesResult r = mpi::write_rules(store, detect_hardware(), a.request);
    print_note(r.data);
    print_rules(r, a.request);
    return 0;
}

// ---- show -------------------------------------------------------------------

struct ShowArgs {
    std::string db;
    mpi::ShowRequest request;
};

ShowArgs parse_show_args(const Args& args) {
    const mdcore::cli::ArgMap opts(join_list_flags(args, {"collectives", "np"}),
                                   {{"db", true}, {"hardware", true}, {"collectives", true}, {"np", true},
                                    {"rules", true}, {"ridge", true}, {"features", true}, {"prefer-default", true},
                                    {"worst", true}});
    ShowArgs a;
    a.db = opts.text("db").value_or("mdtune.db");
    mpi::ShowRequest& r = a.request;
    r.collectives = collectives_opt(opts);
    r.hardware = opts.text("hardware").value_or("this");
    if (opts.has("np")) r.only_ranks = parse_int_list("np", *opts.text("np"), 1, 1 << 20);
    r.fit = fit_opts(opts);
    if (opts.has("rules")) r.rules = mpi::read_rules_file(*opts.text("rules"));
    r.worst = static_cast<std::size_t>(opts.integer("worst", 1, 100000).value_or(0));
    return a;
}

void print_show_row(const mpi::ShowRow& row, bool with_rules) {
    const mpi::Collective c = row.collective;
    if (!row.best) {
        std::printf("    %-9s all variants failed\n", mpi::format_bytes(row.site.bytes).c_str());
        return;
    }
    std::string pred_text = "-";
    if (row.predicted)
        pred_text = mpi::variant_label(c, row.predicted->variant) + " " +
                    (row.predicted_measured_us ? fmt_us(*row.predicted_measured_us)
                                               : row.predicted_failed ? "FAILED" : "n/a") +
                    (row.predicted->variant == row.best->first ? "" : " *");
    std::string def_text = "-", gain_best = "-", gain_pred = "-";
    if (row.default_us) {
        def_text = fmt_us(*row.default_us);
        char b[32];
        std::snprintf(b, sizeof b, "%.2fx", *row.default_us / row.best->second);
        gain_best = b;
        if (row.predicted_measured_us) {
            std::snprintf(b, sizeof b, "%.2fx", *row.default_us / *row.predicted_measured_us);
            gain_pred = b;
        }
    }
    std::string rules_text;
    if (with_rules) rules_text = "  " + (row.rules_choice ? mpi::variant_label(c, *row.rules_choice) : "(none)");
    std::printf("    %-9s %-32s %-34s %10s %9s %9s%s\n", mpi::format_bytes(row.site.bytes).c_str(),
                (mpi::variant_label(c, row.best->first) + " " + fmt_us(row.best->second)).c_str(), pred_text.c_str(),
                def_text.c_str(), gain_best.c_str(), gain_pred.c_str(), rules_text.c_str());
}

void print_show(const mpi::ShowResult& r, bool with_rules) {
    std::printf("hardware %s, %s, %zu measurements; latency = 10th percentile over iterations of the slowest rank\n",
                r.data.hardware_id.c_str(), r.data.mpi_library.c_str(), r.data.rows.size());
    std::printf("predicted = argmin of the model fitted on all measurements (what `mpi rules` writes)\n");
    std::optional<mpi::Collective> current;
    std::optional<mpi::Site> layout;
    for (const mpi::ShowRow& row : r.rows) {
        const mpi::Site& site = row.site;
        if (!current || *current != row.collective) {
            std::printf("\n%s\n", std::string(mpi::name(row.collective)).c_str());
            current = row.collective;
            layout.reset();
        }
        if (!layout || layout->nodes != site.nodes || layout->ppn != site.ppn) {
            std::printf("  %d ranks (%d node%s x %d)\n", site.ranks(), site.nodes, site.nodes > 1 ? "s" : "", site.ppn);
            std::printf("    %-9s %-32s %-34s %10s %9s %9s%s\n", "size", "measured best (us)", "predicted best (us measured)",
                        "default us", "best/def", "pred/def", with_rules ? "  rules file" : "");
            layout = site;
        }
        print_show_row(row, with_rules);
    }
    std::printf("\n* predicted differs from the measured best.  best/def, pred/def: Open MPI default latency over that "
                "variant's (above 1 = faster than the default)\n");
    std::printf("geometric-mean speed-up over Open MPI's default, measured:\n");
    for (const auto& [c, g] : r.measured_best) {
        const auto p = r.predicted_best.find(c);
        std::printf("  %-15s measured best %.3fx   predicted best %.3fx   (%zu sizes)\n",
                    std::string(mpi::name(c)).c_str(), g.geomean(),
                    p == r.predicted_best.end() ? 1.0 : p->second.geomean(), g.sizes);
    }
    std::printf("\n");
    print_cv("held-out regret, one (nodes, ranks per node) layout left out at a time", r.cv);
    if (r.worst.empty()) return;
    std::printf("worst held-out points:\n");
    for (const auto& p : r.worst)
        std::printf("  %-14s %d ranks %-9s predicted %-26s %10s us, best %-26s %10s us, regret %.2f\n",
                    std::string(mpi::name(p.collective)).c_str(), p.site.ranks(), mpi::format_bytes(p.site.bytes).c_str(),
                    mpi::variant_label(p.collective, p.predicted).c_str(),
                    std::isinf(p.regret) ? "FAILED" : fmt_us(p.predicted_us).c_str(),
                    mpi::variant_label(p.collective, p.best).c_str(), fmt_us(p.best_us).c_str(), p.regret);
}

int show(const Args& args) {
    const ShowArgs a = parse_show_args(args);
    Store store(a.db, Store::Mode::ReadOnly);
    const mpi::ShowResult r = mpi::show_selection(store, detect_hardware(), a.request);
    print_note(r.data);
    print_show(r, a.request.rules.has_value());
    return 0;
}

// ---- evaluate ---------------------------------------------------------------

struct EvaluateArgs {
    std::string db, rules_path;
    mpi::EvalOptions options;
    mpi::LaunchContext launch;
};

EvaluateArgs parse_evaluate_args(const Args& args) {
    const mdcore::cli::ArgMap opts(join_list_flags(args, {"np", "collectives", "sizes"}),
                                   {{"rules", true}, {"np", true}, {"collectives", true}, {"sizes", true},
                                    {"rounds", true}, {"quick", false}, {"db", true}, {"launcher", true},
                                    {"hostfile", true}, {"ppn", true}, {"timeout", true}, {"binary", true},
                                    {"mca", true}});
    if (!opts.has("rules")) throw UsageError("mpi evaluate needs --rules FILE");
    const bool quick = opts.has("quick");
    EvaluateArgs a;
    a.rules_path = *opts.text("rules");
    a.db = opts.text("db").value_or("mdtune.db");
    mpi::EvalOptions& eo = a.options;
    eo.ranks = opts.has("np") ? parse_int_list("np", *opts.text("np"), 1, 1 << 20)
                              : (quick ? std::vector<int>{2, 4, 8} : std::vector<int>{2, 3, 4, 5, 6, 7, 8});
    eo.collectives = collectives_opt(opts);
    eo.measure = mpi::default_measure(quick);
    eo.measure.sizes = sizes_opt(opts, quick);
    eo.rounds = static_cast<int>(opts.integer("rounds", 1, 100).value_or(2));
    eo.timeout_s = opts.real("timeout", 0, 86400).value_or(quick ? 120 : 300);
    eo.binary = opts.text("binary").value_or(default_binary());
    a.launch = launch_opts(opts);
    return a;
}

void print_evaluation(const mpi::EvaluateResult& r, const EvaluateArgs& a, const Store& store) {
    const mpi::EvalReport& rep = r.report;
    std::size_t slower = 0, faster = 0;
    for (const auto& p : rep.points) {
        slower += p.speedup() < 1 / 1.05;
        faster += p.speedup() > 1.05;
    }
    std::printf("\ngeometric-mean speed-up of the rules file over Open MPI's defaults (measured, %zu points)\n"
                "  latency: 10th percentile (median in brackets) over iterations of the slowest rank\n",
                rep.points.size());
    for (const auto c : a.options.collectives)
        std::printf("  %-15s %.3fx  (%.3fx)\n", std::string(mpi::name(c)).c_str(), rep.geomean_speedup(c),
                    rep.geomean_speedup(c, true));
    std::printf("  %-15s %.3fx  (%.3fx)   %zu points >5%% faster, %zu >5%% slower\n", "all", rep.geomean_speedup(),
                rep.geomean_speedup(std::nullopt, true), faster, slower);
    if (rep.rules_failures || rep.default_failures)
        std::printf("failed or wrong sizes: %zu under the rules file, %zu under the defaults\n", rep.rules_failures,
                    rep.default_failures);
    std::printf("stored as rules file %s in %s\n", r.digest.c_str(), store.path().c_str());
}

int evaluate(const Args& args) {
    const EvaluateArgs a = parse_evaluate_args(args);
    const HardwareInfo hw = detect_hardware();
    Store store(a.db);
    store.put_hardware(hw.id, hw.to_json());
    process::stop_on_signals();
    std::printf("mdtune mpi evaluate %s: Open MPI's defaults against the rules file, %d alternating rounds\n",
                a.rules_path.c_str(), a.options.rounds);
    std::fflush(stdout);
    const auto log = [](const std::string& s) {
        std::printf("  %s\n", s.c_str());
        std::fflush(stdout);
    };
    const mpi::EvaluateResult r =
        mpi::evaluate_and_store(store, hw.id, a.rules_path, a.launch, a.options, log, process::stop_requested);
    if (!r.report.canary_applied) std::printf("warning: %s\n", r.report.canary_note.c_str());
    if (!r.stored) {
        std::fprintf(stderr, "mdtune: error: no size was measured both ways\n");
        return r.report.interrupted ? 130 : 1;
    }
    print_evaluation(r, a, store);
    return r.report.interrupted ? 130 : 0;
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
    } catch (const mpi::InputError& e) {
        throw UsageError(e.what());
    }
    throw UsageError("unknown mpi command '" + args[0] + "' (sweep, rules, show, evaluate)\n" + kMpiUsage);
}

}  // namespace mdtune::cli
