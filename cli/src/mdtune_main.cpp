// mdtune: sweep mdcore's tunables, keep every trial in SQLite, show the results.
// The command line is CLI11's: `mdtune <command> --help` on every command; a
// usage error is one line naming the problem and the help to read (exit 2).
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <iostream>
#include <regex>
#include <string>

#include "commands.h"
#include "mdcore/engine.h"
#include "mdcore/output_file.h"
#include "mdtune/core/input_error.h"
#include "mdtune/tuner/space.h"
#include "mdtune/db/store.h"

namespace mdtune::cli {

std::string self_executable() {
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "mdtune";
}

std::string default_mdcore_path() {
    const std::string self = self_executable();
    const std::string candidate = self.substr(0, self.rfind('/') + 1) + "mdcore";
    return access(candidate.c_str(), X_OK) == 0 ? candidate : "mdcore";
}

HardwareCaps machine_caps(const HardwareInfo& hw) {
    HardwareCaps caps;
    caps.cores = hw.hardware_threads;
    caps.has_gpu = !hw.gpus.empty();
    for (auto l : mdcore::available_simd_levels()) caps.simd_levels.emplace_back(mdcore::to_string(l));
    return caps;
}

}  // namespace mdtune::cli

namespace {

using mdtune::cli::Args;

// "sweep", "db merge", "bench run": the subcommands the parse reached.
std::string command_path(const CLI::App& app) {
    std::string path;
    for (const CLI::App* a = &app; !a->get_subcommands().empty();) {
        a = a->get_subcommands().front();
        path += (path.empty() ? "" : " ") + a->get_name();
    }
    return path;
}

// CLI11's wording where mdtune's own was plainer and is what scripts already match.
std::string plain_message(const CLI::ParseError& e, const CLI::App& app, const Args& args) {
    const std::string what = e.what();
    std::smatch m;
    static const std::regex missing_value(R"(^(--[\w-]+): \d+ required \S+ missing$)");
    static const std::regex twice(R"(^(--[\w-]+): At Most 1 required but received \d+$)");
    static const std::regex flag_value(R"(^Could not convert: (--[\w-]+) = .*$)");
    static const std::regex extra(R"(^The following arguments? (?:was|were) not expected: (.*)$)");
    if (std::regex_match(what, m, missing_value)) return m[1].str() + " needs a value";
    if (std::regex_match(what, m, twice)) return m[1].str() + " given twice";
    if (std::regex_match(what, m, flag_value)) return m[1].str() + " takes no value";
    if (std::regex_match(what, m, extra)) {
        const std::string first = m[1].str().substr(0, m[1].str().find(' '));
        return first.rfind("-", 0) == 0 ? "unknown flag " + first : "unexpected argument '" + first + "'";
    }
    if (what == "A subcommand is required") {
        // Which level lacks one: the top (no command or an unknown one) or a command with subcommands.
        const std::string path = command_path(app);
        const std::size_t depth = path.empty() ? 0 : static_cast<std::size_t>(std::count(path.begin(), path.end(), ' ')) + 1;
        if (depth < args.size() && args[depth].rfind("-", 0) != 0)
            return "unknown " + (path.empty() ? std::string("command") : path + " subcommand") + " '" + args[depth] + "'";
        return path.empty() ? "a command is required" : path + " needs a subcommand";
    }
    return what;
}

int usage_error(const std::string& problem, const std::string& path) {
    std::cerr << "mdtune: error: " << problem << " (see `mdtune " << (path.empty() ? "" : path + " ") << "--help`)\n";
    return 2;
}

// "mdtune: <kind>: <message>" on stderr; returns the exit code.
int failure(const char* kind, const std::exception& e, int exit_code) {
    std::cerr << "mdtune: " << kind << ": " << e.what() << "\n";
    return exit_code;
}

// submit --mpi passes the words after `--` to mdtune mpi sweep untouched.
Args split_double_dash(Args& args) {
    if (args.empty() || args[0] != "submit") return {};
    const auto sep = std::find(args.begin(), args.end(), "--");
    if (sep == args.end()) return {};
    Args tail(sep + 1, args.end());
    args.erase(sep, args.end());
    return tail;
}

void add_commands(CLI::App& app, int& exit_code, const Args& after_double_dash) {
    mdtune::cli::add_sweep_command(app, exit_code);
    mdtune::cli::add_submit_command(app, exit_code, after_double_dash);
    mdtune::cli::add_status_command(app, exit_code);
    mdtune::cli::add_show_command(app, exit_code);
    mdtune::cli::add_db_command(app, exit_code);
    mdtune::cli::add_hw_command(app, exit_code);
    mdtune::cli::add_model_commands(app, exit_code);
    mdtune::cli::add_tune_command(app, exit_code);
    mdtune::cli::add_bench_command(app, exit_code);
    mdtune::cli::add_mpi_command(app, exit_code);
}

int main_unchecked(int argc, char** argv) {
    Args args(argv + 1, argv + argc);
    CLI::App app{"mdtune: sweep mdcore's tunables into a SQLite trial database, model them, pick configurations.",
                 "mdtune"};
    app.require_subcommand(1);
    int exit_code = 0;
    try {
        add_commands(app, exit_code, split_double_dash(args));
        std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
        app.parse(reversed);
        return exit_code;
    } catch (const CLI::Success& e) {  // --help (CLI11's CallForHelp, CallForAllHelp)
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        return usage_error(plain_message(e, app, args), command_path(app));
    } catch (const mdtune::InputError& e) {
        return usage_error(e.what(), command_path(app));
    } catch (const mdtune::tuner::SpaceError& e) {
        return failure("error", e, 2);
    } catch (const mdtune::db::DbRefusedError& e) {
        // A file mdtune will not use (another program's, corrupt, newer): bad input, left untouched.
        return failure("database error", e, 2);
    } catch (const mdtune::db::DbError& e) {
        return failure("database error", e, 1);
    } catch (const std::exception& e) {
        return failure("error", e, 1);
    }
}

}  // namespace

int main(int argc, char** argv) {
    // What was printed (the report, a table, --help) must have arrived: a full disk
    // or a closed pipe is a failure.
    return mdcore::exit_code_after_stdout("mdtune", main_unchecked(argc, argv));
}
