#include <iostream>
#include <limits>

#include "cli/commands.h"
#include "mdcore/cli_args.h"
#include "mdtune/store.h"

namespace mdtune::cli {

using mdcore::cli::UsageError;

namespace {

int merge(const Args& args) {
    if (args.size() < 2) throw UsageError("db merge needs OUT.db and at least one IN.db");
    Store out(args[0]);
    long total = 0;
    for (std::size_t k = 1; k < args.size(); ++k) {
        const long added = out.merge_from(args[k]);
        std::cout << args[k] << ": " << added << " trial(s) added\n";
        total += added;
    }
    std::cout << "merged into " << args[0] << ": " << total << " new trial(s)\n";
    return 0;
}

int export_trials(const Args& args) {
    const mdcore::cli::ArgMap opts(args, {{"db", true}, {"format", true}, {"sweep", true}, {"kind", true},
                                          {"natoms", true}, {"status", true}, {"hardware", true}});
    const std::string format = opts.text("format").value_or("csv");
    if (format != "csv" && format != "json") throw UsageError("--format: '" + format + "' (csv or json)");
    TrialFilter f;
    if (const auto v = opts.integer("sweep", 1, std::numeric_limits<long>::max())) f.sweep_id = *v;
    if (const auto v = opts.integer("natoms", 1, std::numeric_limits<long>::max())) f.natoms = *v;
    f.system_kind = opts.text("kind");
    f.hardware_id = opts.text("hardware");
    if (const auto s = opts.text("status")) {
        f.status = parse_trial_status(*s);
        if (!f.status) throw UsageError("--status: '" + *s + "' (ok, invalid, failed, timeout, crashed)");
    }
    const Store store(opts.text("db").value_or("mdtune.db"), Store::Mode::ReadOnly);
    const auto trials = store.trials(f);
    std::cout << (format == "csv" ? export_trials_csv(trials) : export_trials_json(trials));
    if (format == "json") std::cout << "\n";
    return 0;
}

}  // namespace

int db_command(const Args& args) {
    if (args.empty()) throw UsageError("db needs a subcommand: merge or export");
    const Args rest(args.begin() + 1, args.end());
    if (args[0] == "merge") return merge(rest);
    if (args[0] == "export") return export_trials(rest);
    throw UsageError("unknown db subcommand '" + args[0] + "' (merge, export)");
}

}  // namespace mdtune::cli
