// mdcore: run MD on a generated system and print (or write) the RunReport.
// Command line on CLI11: `mdcore run ...` (cli/run_command.h), `mdcore --version
// [--json]`, `--help` on both. Bad input: one line naming the problem, exit 2.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "cli/run_command.h"
#include "domdec/mpi_world.h"
#include "mdcore/build_info.h"
#include "mdcore/engine.h"
#include "mdcore/output_file.h"

namespace {

int usage_error(const std::string& problem, bool in_run, bool speaker = mdcore::world_rank() == 0) {
    // Every rank finds the same problem in the flags; one says so.
    if (speaker)
        std::cerr << "mdcore: error: " << problem << " (see `mdcore " << (in_run ? "run " : "") << "--help`)\n";
    return 2;
}

int main_unchecked(int argc, char** argv) {
    // Under mpirun/srun every rank runs this program; on its own MPI stays off.
    mdcore::MpiSession mpi(&argc, &argv);
    CLI::App app{"mdcore: molecular dynamics on generated systems or GROMACS boxes", "mdcore"};
    app.set_help_flag("-h,--help", "print this help (and `mdcore run --help`: the run's flags)");
    bool version = false, version_json = false;
    app.add_flag("--version", version, "print the build's identity");
    app.add_flag("--json", version_json, "with --version: as JSON (version, compiler, flags, SIMD, build id)");
    app.require_subcommand(0, 1);
    mdcore::run_cli::RunCommand run(app);
    if (argc <= 1) {
        std::cout << app.help();
        return 2;
    }
    try {
        app.parse(argc, argv);
        if (version) {
            if (run.chosen()) throw mdcore::run_cli::UsageError("--version is not a flag of `mdcore run`");
            // Plain: one line for people; --json: what a tuner keys its trials by.
            if (version_json) std::cout << mdcore::build_info_json() << "\n";
            else std::cout << "mdcore " << mdcore::engine_version() << " (" << mdcore::build_compiler() << ")\n";
            return 0;
        }
        if (version_json) throw mdcore::run_cli::UsageError("--json before `run` needs --version");
        if (!run.chosen()) throw mdcore::run_cli::UsageError("expected a command: run or --version");
        return run.execute();
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::ParseError& e) {
        return usage_error(e.what(), run.chosen());
    } catch (const mdcore::run_cli::AgreedUsageError& e) {
        // Every rank knows; the first that found it says so, naming itself when it is not rank 0.
        const std::string where = e.rank != 0 ? "rank " + std::to_string(e.rank) + ": " : "";
        return usage_error(where + e.what(), true, e.speaker);
    } catch (const mdcore::run_cli::UsageError& e) {
        return usage_error(e.what(), run.chosen());
    } catch (const std::exception& e) {
        std::cerr << "mdcore: error: " << e.what() << "\n";
        // A failure on one rank of a decomposed run would leave the others waiting.
        if (mdcore::world_size() > 1) mdcore::abort_world(1);
        return 1;
    }
}

}  // namespace

int main(int argc, char** argv) {
    // What was printed (the report, a table, --help) must have arrived: a full disk
    // or a closed pipe is a failure.
    return mdcore::exit_code_after_stdout("mdcore", main_unchecked(argc, argv));
}
