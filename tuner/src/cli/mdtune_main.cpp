// mdtune: sweep mdcore's tunables, keep every trial in SQLite, show the results.
#include <unistd.h>

#include <climits>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "mdcore/cli_args.h"
#include "mdcore/engine.h"
#include "mdtune/space.h"
#include "mdtune/store.h"

namespace {

constexpr const char* kUsage =
    "usage: mdtune <command> [options]\n"
    "  sweep SPACE.toml [--db mdtune.db] [--strategy exhaustive|random|halving] [--budget N]\n"
    "                   [--seed S] [--eta N] [--name NAME] [--mdcore PATH] [--launcher \"mpirun -np 2\"]\n"
    "                   [--max-configs N] [--force] [--retry-failed | --no-retry-failed]\n"
    "                   [--launcher-arg ARG]...\n"
    "                   [--slice i/M]   (a Slurm array task's share; see submit)\n"
    "  submit SPACE.toml [--db mdtune.db] [--partition P] [--time HH:MM:SS] [--account A]\n"
    "                    [--array-parallel K] [--trials-per-task N] [--exclusive|--shared] [--dry-run]\n"
    "  submit --mpi [--db F] [--ranks R] [--nodes N] [--partition P] [--time T] [--account A] [--dry-run]\n"
    "               [-- mpi sweep options]   (mdtune mpi sweep under srun -n R in one job)\n"
    "  status [--db mdtune.db]\n"
    "  show [--db mdtune.db] [--sweep ID] [--top K] [--json]\n"
    "  db merge OUT.db IN.db...\n"
    "  db export [--db mdtune.db] [--format csv|json] [--sweep ID] [--kind K] [--natoms N]\n"
    "            [--status S] [--hardware ID]\n"
    "  hw [--json]\n"
    "  fit [--db F] [--model auto|ridge|cost|knn] [--holdout-natoms N,...]\n"
    "  predict [--db F] --system KIND --natoms N [--hardware this|ID] [--top K] [--json] [--model KIND]\n"
    "  tune --system KIND --natoms N [--db F] [--budget N] [--top K] [--steps N] [--repeats N] [--model KIND]\n"
    "       [--mdcore PATH]\n"
    "  compare --hardware A,B[,...] [--db F] [--systems KIND:N,...] [--price A=X,...] [--watts A=W,...]\n"
    "          [--plot out.svg] [--model KIND]\n"
    "  bench run|ingest|compare|history ...   (mdtune bench --help)\n"
    "  mpi sweep|rules|show|evaluate ...      (mdtune mpi --help)\n";

}  // namespace

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

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    try {
        if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
            std::cout << kUsage;
            return args.empty() ? 2 : 0;
        }
        const std::vector<std::string> rest(args.begin() + 1, args.end());
        if (args[0] == "sweep") return mdtune::cli::sweep_command(rest);
        if (args[0] == "submit") return mdtune::cli::submit_command(rest);
        if (args[0] == "status") return mdtune::cli::status_command(rest);
        if (args[0] == "show") return mdtune::cli::show_command(rest);
        if (args[0] == "db") return mdtune::cli::db_command(rest);
        if (args[0] == "hw") return mdtune::cli::hw_command(rest);
        if (args[0] == "fit") return mdtune::cli::fit_command(rest);
        if (args[0] == "predict") return mdtune::cli::predict_command(rest);
        if (args[0] == "tune") return mdtune::cli::tune_command(rest);
        if (args[0] == "compare") return mdtune::cli::compare_command(rest);
        if (args[0] == "bench") return mdtune::cli::bench_command(rest);
        if (args[0] == "mpi") return mdtune::cli::mpi_command(rest);
        throw mdcore::cli::UsageError("unknown command '" + args[0] + "'");
    } catch (const mdcore::cli::UsageError& e) {
        std::cerr << "mdtune: error: " << e.what() << "\n" << kUsage;
        return 2;
    } catch (const mdtune::SpaceError& e) {
        std::cerr << "mdtune: error: " << e.what() << "\n";
        return 2;
    } catch (const mdtune::DbRefusedError& e) {
        // A file mdtune will not use (another program's, corrupt, newer): bad input, left untouched.
        std::cerr << "mdtune: database error: " << e.what() << "\n";
        return 2;
    } catch (const mdtune::DbError& e) {
        std::cerr << "mdtune: database error: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "mdtune: error: " << e.what() << "\n";
        return 1;
    }
}
