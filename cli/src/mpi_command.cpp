// `mdtune mpi`: benchmark Open MPI's collective algorithms, learn the best one
// per (nodes, ranks per node, message size), write and check a rules file. The
// work is in tuner/mpi (mdtune/mpi/commands.h, sweep.h); this file registers the
// CLI11 subcommands (add_*), turns their flags into requests and prints results
// (print_*), kept apart.
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <sstream>

#include "cli_options.h"
#include "commands.h"
#include "mdtune/core/hardware.h"
#include "mdtune/models/mpi_catalog.h"
#include "mdtune/models/mpi_selection.h"
#include "mdtune/mpi/commands.h"
#include "mdtune/mpi/rules_file.h"
#include "mdtune/mpi/sweep.h"
#include "mdtune/db/mpi_store.h"
#include "mdtune/mpi/rank_cap.h"
#include "mdtune/process/stop_signals.h"

namespace mdtune::cli {

namespace mpi = mdtune::mpi;

namespace {

// ---- flags ------------------------------------------------------------------

// A list flag: "--np 2 4 8", "--np 2,4,8" and "--np 2-8" all work.
CLI::Option* add_list(CLI::App& cmd, const std::string& name, const std::string& help) {
    return cmd.add_option(name, help)->type_name("LIST")->expected(1, 1 << 20);
}

// The words given to a list flag, joined by commas; nullopt when absent.
std::optional<std::string> list_text(const CLI::App& cmd, const std::string& name) {
    const CLI::Option* o = cmd.get_option_no_throw(name);
    if (!o || o->count() == 0) return std::nullopt;
    std::string joined;
    for (const auto& word : o->results()) joined += (joined.empty() ? "" : ",") + word;
    return joined;
}

// --prefer-default: a share in [0, 10] ("0.05" keeps the default within 5%).
CLI::Validator share_in_0_10() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
                return "'" + text + "' is not a number";
            return v < 0 || v > 10 ? text + " must be at least 0 and at most 10" : "";
        },
        "NUMBER in [0, 10]");
}

std::vector<int> parse_int_list(const std::string& flag, const std::string& text, int lo, int hi) {
    const auto to_int = [&](const std::string& s) {
        long v = 0;
        std::size_t used = 0;
        try {
            v = std::stol(s, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != s.size()) throw mpi::InputError("--" + flag + ": '" + s + "' is not an integer");
        if (v < lo || v > hi)
            throw mpi::InputError("--" + flag + ": " + s + " is out of range [" + std::to_string(lo) + ", " +
                             std::to_string(hi) + "]");
        return static_cast<int>(v);
    };
    std::vector<int> out;
    for (const std::string& item : split_list(text)) {
        const auto dash = item.find('-', 1);
        if (dash == std::string::npos) {
            out.push_back(to_int(item));
            continue;
        }
        const int a = to_int(item.substr(0, dash)), b = to_int(item.substr(dash + 1));
        if (a > b) throw mpi::InputError("--" + flag + ": empty range '" + item + "'");
        for (int v = a; v <= b; ++v) out.push_back(v);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    if (out.empty()) throw mpi::InputError("--" + flag + " needs at least one value");
    return out;
}

std::vector<models::mpi::Collective> collectives_opt(const CLI::App& cmd) {
    const auto text = list_text(cmd, "--collectives");
    if (!text) return models::mpi::default_collectives();
    try {
        return models::mpi::parse_collectives(*text);
    } catch (const std::invalid_argument& e) {
        throw mpi::InputError(std::string("--collectives: ") + e.what());
    }
}

std::vector<std::uint64_t> sizes_opt(const CLI::App& cmd, bool quick) {
    const auto text = list_text(cmd, "--sizes");
    if (!text) return mpi::default_measure(quick).sizes;
    try {
        return mpi::parse_sizes(*text);
    } catch (const std::invalid_argument& e) {
        throw mpi::InputError(std::string("--sizes: ") + e.what());
    }
}

std::vector<int> ranks_opt(const CLI::App& cmd, std::vector<int> fallback) {
    const auto text = list_text(cmd, "--np");
    return text ? parse_int_list("np", *text, 1, 1 << 20) : fallback;
}

// The rank counts this machine (or Slurm allocation) can start, unless
// --no-rank-cap; the ones left out are said, and none left is a usage error.
std::vector<int> capped_ranks(const std::vector<int>& ranks, const mpi::LaunchContext& ctx, bool no_cap) {
    const char* tasks = std::getenv("SLURM_NTASKS");
    const mpi::RankCap cap = mpi::rank_cap(ctx, tasks ? std::atoi(tasks) : 0);
    if (no_cap || cap.most == 0) return ranks;
    std::vector<int> dropped;
    std::vector<int> kept = mpi::within_cap(ranks, cap, dropped);
    if (dropped.empty()) return kept;
    std::string list;
    for (int r : dropped) list += (list.empty() ? "" : ",") + std::to_string(r);
    const std::string why = "--np " + list + ": more than " + std::to_string(cap.most) + " ranks, the most " +
                            cap.where + " can start; --no-rank-cap runs them anyway";
    if (kept.empty()) throw mpi::InputError(why);
    std::fprintf(stderr, "mdtune: note: left out %s\n", why.c_str());
    return kept;
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

void add_launch_flags(CLI::App& cmd) {
    cmd.add_option("--launcher", "auto (default), mpirun or srun")->type_name("TEXT");
    cmd.add_option("--hostfile", "Open MPI hostfile")->type_name("FILE");
    cmd.add_option("--ppn", "Ranks per node (default: from the hostfile or Slurm)")
        ->type_name("INT")
        ->check(integer_in(1, 100000));
    cmd.add_option("--timeout", "Seconds one launch may take (default 300, --quick 120)")
        ->type_name("SECONDS")
        ->check(real_in(0, 86400));
    cmd.add_option("--binary", "The mpi_collectives program (default: next to mdtune)")->type_name("PATH");
    cmd.add_option("--mca", "Extra Open MPI parameters NAME=VALUE,...")->type_name("TEXT");
    cmd.add_option("--db", "Database (default mdtune.db)")->type_name("FILE");
    cmd.add_flag("--no-rank-cap")
        ->description("Launch rank counts beyond what this machine (" + std::to_string(mpi::kRanksPerCore) +
                      " ranks per core) or the Slurm allocation holds");
}

mpi::LaunchContext launch_opts(const GivenFlags& opts) {
    try {
        mpi::LaunchContext ctx =
            mpi::detect_launch_context(opts.text("launcher").value_or("auto"), opts.text("hostfile").value_or(""),
                                       static_cast<int>(opts.integer("ppn").value_or(0)));
        if (!ctx.hostfile.empty() && access(ctx.hostfile.c_str(), R_OK) != 0)
            throw mpi::InputError("--hostfile: cannot read '" + ctx.hostfile + "'");
        for (const std::string& kv : split_list(opts.text("mca").value_or(""))) {
            const auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0) throw mpi::InputError("--mca: '" + kv + "' is not NAME=VALUE");
            ctx.extra_mca.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
        }
        return ctx;
    } catch (const mpi::InputError&) {
        throw;
    } catch (const std::invalid_argument& e) {
        throw mpi::InputError(e.what());
    }
}

void add_fit_flags(CLI::App& cmd) {
    cmd.add_option("--features", "spline (default) or poly")->type_name("TEXT")->check(word_in({"spline", "poly"}));
    cmd.add_option("--ridge", "Ridge penalty (default: chosen by cross-validation)")
        ->type_name("NUMBER")
        ->check(real_in(0, 1e6));
    cmd.add_option("--prefer-default", "Keep Open MPI's default within this share of the predicted best")
        ->type_name("NUMBER")
        ->check(share_in_0_10());
    cmd.add_option("--hardware", "Hardware id of the measurements (default: this machine)")->type_name("ID");
}

models::mpi::FitOptions fit_opts(const GivenFlags& opts) {
    models::mpi::FitOptions fit;
    fit.ridge = opts.real("ridge").value_or(fit.ridge);  // absent: chosen by cross-validation
    fit.prefer_default = opts.real("prefer-default").value_or(fit.prefer_default);
    if (const auto f = opts.text("features")) fit.features = *models::mpi::parse_feature_set(*f);
    return fit;
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

void print_cv(const char* title, const models::mpi::CvReport& cv) {
    std::printf("%s (%zu folds):\n", title, cv.folds);
    std::printf("  %-15s %7s %10s %12s %10s %14s %12s\n", "collective", "points", "within 5%", "geo regret",
                "max regret", "default w/in5", "default geo");
    const auto row = [](const std::string& name, const models::mpi::CvSummary& s) {
        char maxr[32];
        if (std::isinf(s.max_regret)) std::snprintf(maxr, sizeof maxr, "fails");
        else std::snprintf(maxr, sizeof maxr, "%.3f", s.max_regret);
        std::printf("  %-15s %7zu %10s %12.3f %10s %14s %12.3f\n", name.c_str(), s.points, pct(s.share_within5()).c_str(),
                    s.geomean_regret, maxr, pct(s.default_share_within5()).c_str(), s.default_geomean_regret);
    };
    for (const auto& [c, s] : cv.per_collective) row(std::string(models::mpi::name(c)), s);
    row("all", cv.overall);
}


// Runs a command, turning the library's input errors into mdtune's one-line usage error.
int guarded(const std::function<int()>& command) {
    try {
        return command();
    } catch (const mpi::RulesError& e) {  // a rules file Open MPI would reject: names its file and line
        std::fprintf(stderr, "mdtune: error: %s\n", e.what());
        return 2;
    } catch (const mpi::InputError& e) {
        throw mpi::InputError(e.what());
    }
}

// ---- sweep ------------------------------------------------------------------

void print_sweep_plan(const mpi::SweepOptions& so, const mpi::LaunchContext& ctx, const db::Store& store,
                      const std::string& hw) {
    std::string colls;
    for (auto c : so.collectives) colls += (colls.empty() ? "" : ",") + std::string(models::mpi::name(c));
    std::string ranks;
    for (int r : so.ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
    std::printf("mdtune mpi sweep: %s ranks, %s, %zu sizes (%s .. %s), %s, db %s, hardware %s\n", ranks.c_str(),
                colls.c_str(), so.measure.sizes.size(), models::mpi::format_bytes(so.measure.sizes.front()).c_str(),
                models::mpi::format_bytes(so.measure.sizes.back()).c_str(),
                ctx.kind == mpi::LauncherKind::Srun ? "srun" : "mpirun", store.path().c_str(), hw.c_str());
    std::fflush(stdout);
}

void print_sweep_progress(const mpi::SweepProgress& p) {
    if (!p.job) {
        std::printf("%s\n", p.message.c_str());
    } else {
        std::printf("[%zu/%zu] %d ranks %-14s %-28s %s\n", p.done, p.planned, p.job->ranks,
                    std::string(models::mpi::name(p.job->collective)).c_str(),
                    models::mpi::variant_label(p.job->collective, p.job->variant).c_str(), p.message.c_str());
    }
    std::fflush(stdout);
}

int sweep(const CLI::App& cmd) {
    const GivenFlags opts(cmd);
    const bool quick = opts.has("quick");
    mpi::SweepOptions so;
    // Default: 2-8 ranks without 5 and 7, which the rules file then predicts.
    so.ranks = ranks_opt(cmd, quick ? std::vector<int>{2, 4, 8} : std::vector<int>{2, 3, 4, 6, 8});
    so.collectives = collectives_opt(cmd);
    so.measure = mpi::default_measure(quick);
    so.measure.sizes = sizes_opt(cmd, quick);
    if (const auto seg = list_text(cmd, "--segsizes")) {
        so.segsizes.clear();
        for (int s : parse_int_list("segsizes", *seg, 0, 1 << 30)) so.segsizes.push_back(s);
    }
    so.timeout_s = opts.real("timeout").value_or(quick ? 120 : 300);
    so.remeasure = opts.has("remeasure");
    so.rounds = static_cast<int>(opts.integer("rounds").value_or(1));
    so.binary = opts.text("binary").value_or(default_binary());
    const mpi::LaunchContext ctx = launch_opts(opts);
    so.ranks = capped_ranks(so.ranks, ctx, opts.has("no-rank-cap"));
    const std::string db = opts.text("db").value_or("mdtune.db");
    check_output_file("--db", db);

    const HardwareInfo hw = detect_hardware();
    db::Store store(db);
    store.put_hardware(hw.id, hw.to_json());
    db::MpiStore ms(store);
    process::stop_on_signals();
    print_sweep_plan(so, ctx, store, hw.id);
    const mpi::SweepReport rep = mpi::run_sweep(ms, hw.id, ctx, so, print_sweep_progress, process::stop_requested);
    if (rep.sweep_id == 0) {
        std::fprintf(stderr, "mdtune: error: no MPI run could start (see above); is %s built and mpirun on PATH?\n",
                     so.binary.c_str());
        return 1;
    }
    std::printf("mpi sweep %ld %s: %zu launches, %zu reused from the database, %zu failed launches, %.0f s, %s\n",
                rep.sweep_id, rep.interrupted ? "interrupted" : "done", rep.launches, rep.reused, rep.failed_launches,
                rep.seconds, rep.mpi_library.c_str());
    std::printf("next: mdtune mpi rules --out rules.conf --db %s\n", store.path().c_str());
    return rep.interrupted ? process::stop_exit_code() : (rep.failed_launches && !rep.launches ? 1 : 0);
}

void add_sweep(CLI::App& mpi_cmd, int& exit_code) {
    CLI::App* cmd = mpi_cmd.add_subcommand(
        "sweep", "One launch per (ranks, collective, algorithm); rows go to the database, finished ones are reused");
    add_list(*cmd, "--np", "Rank counts: 2 4 8, 2,4,8 or 2-8 (default 2,3,4,6,8; --quick 2,4,8)");
    add_list(*cmd, "--sizes", "Message sizes: 8-4M or 8,64K,... (default: the standard set)");
    add_list(*cmd, "--collectives", "allreduce,alltoall,bcast,allgather (default: all)");
    add_list(*cmd, "--segsizes", "Segment sizes of the segmented algorithms, bytes (e.g. 0,65536)");
    add_launch_flags(*cmd);
    cmd->add_flag("--quick")->description("Fewer ranks, sizes and iterations");
    cmd->add_flag("--remeasure")->description("Measure again what the database already has");
    cmd->add_option("--rounds", "Measure everything R times and keep the fastest (for machines with background load)")
        ->type_name("INT")
        ->check(integer_in(1, 100));
    cmd->callback([cmd, &exit_code] { exit_code = guarded([cmd] { return sweep(*cmd); }); });
}

// ---- rules ------------------------------------------------------------------

void print_note(const mpi::Dataset& d) {
    if (!d.note.empty()) std::fprintf(stderr, "mdtune: note: %s\n", d.note.c_str());
}

void print_rules(const mpi::RulesResult& r, const mpi::RulesRequest& request) {
    if (std::none_of(r.guard.begin(), r.guard.end(), [](const auto& g) { return g.kept; }))
        std::printf("note: no collective's model beats Open MPI's default on held-out sizes; the file has no rules\n");
    std::printf("mdtune mpi rules: hardware %s, %s, %zu measurements\n", r.data.hardware_id.c_str(),
                r.data.mpi_library.c_str(), r.data.rows.size());
    std::printf("model: %s, %s, default kept within %.0f%% of the predicted best\n", models::mpi::describe(r.fit.features).c_str(),
                mpi::describe_ridge(r.model, request.collectives).c_str(), 100 * r.fit.prefer_default);
    print_cv(request.cv_group == models::mpi::CvGroup::Size ? "held-out regret, one message size left out at a time"
                                                    : "held-out regret, one (nodes, ranks per node) layout left out at a time",
             r.cv);
    for (const auto& g : r.guard) std::printf("guard (sizes held out): %s\n", g.note().c_str());
    std::printf("wrote %s: %zu collectives, %zu communicator sizes, %zu message rules\n", request.out.c_str(),
                r.file.collectives.size(), r.comm_sizes, r.message_rules);
    std::printf("use:   mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename %s ...\n",
                request.out.c_str());
    std::printf("check: mdtune mpi evaluate --rules %s\n", request.out.c_str());
}


int rules(const CLI::App& cmd) {
    const GivenFlags opts(cmd);
    if (!opts.has("out")) throw mpi::InputError("mpi rules needs --out FILE");
    mpi::RulesRequest r;
    r.out = *opts.text("out");
    check_output_file("--out", r.out);
    const std::string db = opts.text("db").value_or("mdtune.db");
    if (access(db.c_str(), F_OK) != 0) throw mpi::InputError("--db: no database at '" + db + "'; run `mdtune mpi sweep` first");
    r.collectives = collectives_opt(cmd);
    r.hardware = opts.text("hardware").value_or("this");
    r.cv_group = opts.text("cv").value_or("layout") == "size" ? models::mpi::CvGroup::Size : models::mpi::CvGroup::Layout;
    r.fit = fit_opts(opts);
    r.guard = !opts.has("no-guard");
    if (const auto sizes = list_text(cmd, "--comm-sizes")) r.comm_sizes = parse_int_list("comm-sizes", *sizes, 1, 1 << 24);
    r.ppn = static_cast<int>(opts.integer("ppn").value_or(0));

    db::Store store(db);
    const mpi::RulesResult result = mpi::write_rules(store, detect_hardware(), r);
    print_note(result.data);
    print_rules(result, r);
    return 0;
}

void add_rules(CLI::App& mpi_cmd, int& exit_code) {
    CLI::App* cmd = mpi_cmd.add_subcommand("rules", "Fit the model, report held-out regret, write an Open MPI 4.1 rules file");
    cmd->footer("A collective whose model does not beat Open MPI's default on held-out sizes gets no rules\n"
                "(unless --no-guard).");
    cmd->add_option("--out", "The rules file to write (required)")->type_name("FILE");
    add_list(*cmd, "--collectives", "allreduce,alltoall,bcast,allgather (default: all)");
    cmd->add_option("--db", "Database (default mdtune.db)")->type_name("FILE");
    add_list(*cmd, "--comm-sizes", "Communicator sizes to write rules for: 2-8 or 2,4,8");
    cmd->add_option("--ppn", "Ranks per node of the rules (default: as measured)")
        ->type_name("INT")
        ->check(integer_in(1, 100000));
    add_fit_flags(*cmd);
    cmd->add_option("--cv", "Cross-validation groups: layout (default) or size")
        ->type_name("TEXT")
        ->check(word_in({"layout", "size"}));
    cmd->add_flag("--no-guard")->description("Write rules even where the model does not beat the default on held-out sizes");
    cmd->callback([cmd, &exit_code] { exit_code = guarded([cmd] { return rules(*cmd); }); });
}

// ---- show -------------------------------------------------------------------

void print_show_row(const mpi::ShowRow& row, bool with_rules) {
    const models::mpi::Collective c = row.collective;
    if (!row.best) {
        std::printf("    %-9s all variants failed\n", models::mpi::format_bytes(row.site.bytes).c_str());
        return;
    }
    std::string pred_text = "-";
    if (row.predicted)
        pred_text = models::mpi::variant_label(c, row.predicted->variant) + " " +
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
    if (with_rules) rules_text = "  " + (row.rules_choice ? models::mpi::variant_label(c, *row.rules_choice) : "(none)");
    std::printf("    %-9s %-32s %-34s %10s %9s %9s%s\n", models::mpi::format_bytes(row.site.bytes).c_str(),
                (models::mpi::variant_label(c, row.best->first) + " " + fmt_us(row.best->second)).c_str(), pred_text.c_str(),
                def_text.c_str(), gain_best.c_str(), gain_pred.c_str(), rules_text.c_str());
}

void print_show(const mpi::ShowResult& r, bool with_rules) {
    std::printf("hardware %s, %s, %zu measurements; latency = 10th percentile over iterations of the slowest rank\n",
                r.data.hardware_id.c_str(), r.data.mpi_library.c_str(), r.data.rows.size());
    std::printf("predicted = argmin of the model fitted on all measurements (what `mpi rules` writes)\n");
    std::optional<models::mpi::Collective> current;
    std::optional<models::mpi::Site> layout;
    for (const mpi::ShowRow& row : r.rows) {
        const models::mpi::Site& site = row.site;
        if (!current || *current != row.collective) {
            std::printf("\n%s\n", std::string(models::mpi::name(row.collective)).c_str());
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
                    std::string(models::mpi::name(c)).c_str(), g.geomean(),
                    p == r.predicted_best.end() ? 1.0 : p->second.geomean(), g.sizes);
    }
    std::printf("\n");
    print_cv("held-out regret, one (nodes, ranks per node) layout left out at a time", r.cv);
    if (r.worst.empty()) return;
    std::printf("worst held-out points:\n");
    for (const auto& p : r.worst)
        std::printf("  %-14s %d ranks %-9s predicted %-26s %10s us, best %-26s %10s us, regret %.2f\n",
                    std::string(models::mpi::name(p.collective)).c_str(), p.site.ranks(), models::mpi::format_bytes(p.site.bytes).c_str(),
                    models::mpi::variant_label(p.collective, p.predicted).c_str(),
                    std::isinf(p.regret) ? "FAILED" : fmt_us(p.predicted_us).c_str(),
                    models::mpi::variant_label(p.collective, p.best).c_str(), fmt_us(p.best_us).c_str(), p.regret);
}


int show(const CLI::App& cmd) {
    const GivenFlags opts(cmd);
    mpi::ShowRequest r;
    r.collectives = collectives_opt(cmd);
    r.hardware = opts.text("hardware").value_or("this");
    if (const auto np = list_text(cmd, "--np")) r.only_ranks = parse_int_list("np", *np, 1, 1 << 20);
    r.fit = fit_opts(opts);
    if (const auto rules_path = opts.text("rules")) r.rules = mpi::read_rules_file(*rules_path);
    r.worst = static_cast<std::size_t>(opts.integer("worst").value_or(0));

    db::Store store(opts.text("db").value_or("mdtune.db"), db::Store::Mode::ReadOnly);
    const mpi::ShowResult result = mpi::show_selection(store, detect_hardware(), r);
    print_note(result.data);
    print_show(result, r.rules.has_value());
    return 0;
}

void add_show(CLI::App& mpi_cmd, int& exit_code) {
    CLI::App* cmd = mpi_cmd.add_subcommand(
        "show", "Per collective and size: measured best, predicted best, Open MPI's default, speed-ups");
    cmd->add_option("--db", "Database (default mdtune.db)")->type_name("FILE");
    add_list(*cmd, "--collectives", "allreduce,alltoall,bcast,allgather (default: all)");
    add_list(*cmd, "--np", "Only these rank counts");
    cmd->add_option("--rules", "Also show what this rules file chooses")->type_name("FILE");
    add_fit_flags(*cmd);
    cmd->add_option("--worst", "List the K worst held-out points")->type_name("INT")->check(integer_in(1, 100000));
    cmd->callback([cmd, &exit_code] { exit_code = guarded([cmd] { return show(*cmd); }); });
}

// ---- evaluate ---------------------------------------------------------------

struct EvaluateArgs {
    std::string db, rules_path;
    mpi::EvalOptions options;
    mpi::LaunchContext launch;
};

void print_evaluation(const mpi::EvaluateResult& r, const EvaluateArgs& a, const db::Store& store) {
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
        std::printf("  %-15s %.3fx  (%.3fx)\n", std::string(models::mpi::name(c)).c_str(), rep.geomean_speedup(c),
                    rep.geomean_speedup(c, true));
    std::printf("  %-15s %.3fx  (%.3fx)   %zu points >5%% faster, %zu >5%% slower\n", "all", rep.geomean_speedup(),
                rep.geomean_speedup(std::nullopt, true), faster, slower);
    if (rep.rules_failures || rep.default_failures)
        std::printf("failed or wrong sizes: %zu under the rules file, %zu under the defaults\n", rep.rules_failures,
                    rep.default_failures);
    std::printf("stored as rules file %s in %s\n", r.digest.c_str(), store.path().c_str());
}


EvaluateArgs evaluate_args(const CLI::App& cmd) {
    const GivenFlags opts(cmd);
    if (!opts.has("rules")) throw mpi::InputError("mpi evaluate needs --rules FILE");
    const bool quick = opts.has("quick");
    EvaluateArgs a;
    a.rules_path = *opts.text("rules");
    a.db = opts.text("db").value_or("mdtune.db");
    check_output_file("--db", a.db);
    mpi::EvalOptions& eo = a.options;
    eo.ranks = ranks_opt(cmd, quick ? std::vector<int>{2, 4, 8} : std::vector<int>{2, 3, 4, 5, 6, 7, 8});
    eo.collectives = collectives_opt(cmd);
    eo.measure = mpi::default_measure(quick);
    eo.measure.sizes = sizes_opt(cmd, quick);
    eo.rounds = static_cast<int>(opts.integer("rounds").value_or(2));
    eo.timeout_s = opts.real("timeout").value_or(quick ? 120 : 300);
    eo.binary = opts.text("binary").value_or(default_binary());
    a.launch = launch_opts(opts);
    eo.ranks = capped_ranks(eo.ranks, a.launch, opts.has("no-rank-cap"));
    return a;
}

int evaluate(const CLI::App& cmd) {
    const EvaluateArgs a = evaluate_args(cmd);
    const HardwareInfo hw = detect_hardware();
    db::Store store(a.db);
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
        return r.report.interrupted ? process::stop_exit_code() : 1;
    }
    print_evaluation(r, a, store);
    return r.report.interrupted ? process::stop_exit_code() : 0;
}

void add_evaluate(CLI::App& mpi_cmd, int& exit_code) {
    CLI::App* cmd = mpi_cmd.add_subcommand(
        "evaluate", "Measure a rules file against Open MPI's defaults (alternating runs) and store the result");
    cmd->add_option("--rules", "The rules file to check (required)")->type_name("FILE");
    add_list(*cmd, "--np", "Rank counts: 2 4 8, 2,4,8 or 2-8 (default 2-8; --quick 2,4,8)");
    add_list(*cmd, "--collectives", "allreduce,alltoall,bcast,allgather (default: all)");
    add_list(*cmd, "--sizes", "Message sizes: 8-4M or 8,64K,... (default: the standard set)");
    cmd->add_option("--rounds", "Alternating rounds (default 2)")->type_name("INT")->check(integer_in(1, 100));
    cmd->add_flag("--quick")->description("Fewer ranks, sizes and iterations");
    add_launch_flags(*cmd);
    cmd->callback([cmd, &exit_code] { exit_code = guarded([cmd] { return evaluate(*cmd); }); });
}

}  // namespace

void add_mpi_command(CLI::App& app, int& exit_code) {
    add_command_group(app, "mpi", "MPI collective tuning: sweep, rules, show, evaluate", exit_code,
                      {add_sweep, add_rules, add_show, add_evaluate});
}

}  // namespace mdtune::cli
