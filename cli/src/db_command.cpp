// mdtune db merge | export: shards joined into one database, trials out as CSV or JSON.
#include <iostream>
#include <limits>

#include "cli_options.h"
#include "commands.h"
#include "mdtune/db/store.h"

namespace mdtune::cli {

namespace {

int merge(const std::string& out_path, const std::vector<std::string>& inputs) {
    // Every input is opened (and so checked) before OUT.db is created or touched.
    for (const auto& in : inputs) const db::Store check(in, db::Store::Mode::ReadOnly);
    db::Store out(out_path);
    long total = 0;
    for (const auto& in : inputs) {
        const long added = out.merge_from(in);
        std::cout << in << ": " << added << " trial(s) added\n";
        total += added;
    }
    std::cout << "merged into " << out_path << ": " << total << " new trial(s)\n";
    return 0;
}

struct ExportOptions {
    std::string db = "mdtune.db";
    std::string format = "csv";
    long sweep = 0, natoms = 0;  // 0: any
    std::string kind, status, hardware;
    bool samples = false;  // CSV: one row per repeat instead of per trial
};

int export_trials(const ExportOptions& opts) {
    db::TrialFilter f;
    if (opts.sweep > 0) f.sweep_id = opts.sweep;
    if (opts.natoms > 0) f.natoms = opts.natoms;
    if (!opts.kind.empty()) f.system_kind = opts.kind;
    if (!opts.hardware.empty()) f.hardware_id = opts.hardware;
    if (!opts.status.empty()) f.status = parse_trial_status(opts.status);
    if (opts.samples && opts.format != "csv")
        throw InputError("--samples is a CSV layout; JSON export already lists each trial's \"samples\"");
    const db::Store store(opts.db, db::Store::Mode::ReadOnly);
    // Row by row from SQLite to stdout: a database of any size exports in constant memory.
    const db::ExportLayout layout = opts.format == "json" ? db::ExportLayout::TrialsJson
                                    : opts.samples        ? db::ExportLayout::SamplesCsv
                                                          : db::ExportLayout::TrialsCsv;
    db::write_export(std::cout, layout, [&](const std::function<void(const db::StoredTrial&)>& each) {
        store.for_each_trial(f, each);
    });
    if (opts.format == "json") std::cout << "\n";
    std::cout.flush();
    if (!std::cout) throw std::runtime_error("db export: writing to stdout failed");
    return 0;
}

void add_merge(CLI::App& db, int& exit_code) {
    CLI::App* cmd = db.add_subcommand("merge", "Merge the trials of IN.db files into OUT.db (idempotent)");
    auto out = std::make_shared<std::string>();
    auto inputs = std::make_shared<std::vector<std::string>>();
    cmd->add_option("OUT.db", *out, "Database merged into (created when missing)")->required();
    cmd->add_option("IN.db", *inputs, "Databases merged from")->required();
    cmd->callback([out, inputs, &exit_code] {
        check_output_file("OUT.db", *out);
        exit_code = merge(*out, *inputs);
    });
}

void add_export(CLI::App& db, int& exit_code) {
    CLI::App* cmd = db.add_subcommand("export", "Write trials as CSV or JSON to stdout");
    auto opts = std::make_shared<ExportOptions>();
    const long any = std::numeric_limits<long>::max();
    add_value(*cmd, "--db", opts->db, "Trial database (read-only)")->capture_default_str();
    add_value(*cmd, "--format", opts->format, "csv or json")->check(word_in({"csv", "json"}))->capture_default_str();
    add_value(*cmd, "--sweep", opts->sweep, "Only this sweep")->check(integer_in(1, any));
    add_value(*cmd, "--kind", opts->kind, "Only this system kind");
    add_value(*cmd, "--natoms", opts->natoms, "Only this atom count")->check(integer_in(1, any));
    add_value(*cmd, "--status", opts->status, "Only this status")
        ->check(word_in({"ok", "invalid", "failed", "timeout", "crashed"}));
    add_value(*cmd, "--hardware", opts->hardware, "Only this hardware id");
    cmd->add_flag("--samples", opts->samples, "CSV: one row per repeat measured in rounds (round, ratio to the reference, CPU share, noisy)");
    cmd->callback([opts, &exit_code] { exit_code = export_trials(*opts); });
}

}  // namespace

void add_db_command(CLI::App& app, int& exit_code) {
    add_command_group(app, "db", "Merge databases, export trials", exit_code, {add_merge, add_export});
}

}  // namespace mdtune::cli
