// mpi_collectives' command line (mpi_collectives_options.h).
#include "mpi_collectives_options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace mpi_collectives {

const char* const kUsage =
    "usage: mpirun -np N mpi_collectives --collective C --sizes B[,B...] [options]\n"
    "       mpi_collectives --probe     (layout and library only)\n"
    "Latency of one MPI collective per message size; rank 0 writes JSON lines to stdout.\n"
    "Normally launched by `mdtune mpi sweep` / `mdtune mpi evaluate`, which set the\n"
    "coll_tuned MCA parameters the --selection/--algorithm labels must match.\n"
    "  --collective C      allreduce | alltoall | bcast | allgather | reduce_scatter\n"
    "  --sizes B,...       message sizes in bytes, each in [4, 2^30]\n"
    "  --selection S       forced | default | rules (default: default)\n"
    "  --algorithm ID      coll_tuned algorithm id (with --selection forced)\n"
    "  --segsize BYTES     segment size label of the forced algorithm\n"
    "  --budget-bytes X    bytes moved per rank per size; sets the iterations (default 64 MiB)\n"
    "  --min-iters N       at least N timed iterations (default 5)\n"
    "  --max-iters N       at most N timed iterations (default 1000)\n"
    "  --warmup-frac X     warm-up iterations as a fraction of the timed ones (default 0.1)\n"
    "  --max-seconds S     per size, cap on the time spent (default 2)\n"
    "  --probe             report the layout and library only\n"
    "  --help              this text\n";

bool wants_help(int argc, char** argv) {
    for (int k = 1; k < argc; ++k)
        if (std::strcmp(argv[k], "--help") == 0 || std::strcmp(argv[k], "-h") == 0) return true;
    return false;
}

namespace {

long to_long(const std::string& flag, const std::string& v) {
    long x = 0;
    const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc{} || p != v.data() + v.size()) throw ArgError(flag + ": '" + v + "' is not an integer");
    return x;
}

double to_double(const std::string& flag, const std::string& v) {
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(x))
        throw ArgError(flag + ": '" + v + "' is not a number");
    return x;
}

}  // namespace

Options parse(int argc, char** argv) {
    Options o;
    bool have_collective = false;
    for (int k = 1; k < argc; ++k) {
        const std::string a = argv[k];
        auto value = [&]() -> std::string {
            if (k + 1 >= argc) throw ArgError(a + " needs a value");
            return argv[++k];
        };
        if (a == "--collective") {
            const std::string v = value();
            const auto c = mdtune::models::mpi::parse_collective(v);
            if (!c) throw ArgError("--collective: unknown collective '" + v + "'");
            o.collective = *c;
            have_collective = true;
        } else if (a == "--sizes") {
            std::stringstream in(value());
            for (std::string item; std::getline(in, item, ',');) {
                const long s = to_long("--sizes", item);
                if (s < 4 || s > (1L << 30)) throw ArgError("--sizes: " + item + " is outside [4, 2^30] bytes");
                o.sizes.push_back(static_cast<std::uint64_t>(s));
            }
        } else if (a == "--selection") {
            o.selection = value();
            if (o.selection != "forced" && o.selection != "default" && o.selection != "rules")
                throw ArgError("--selection: '" + o.selection + "' (forced, default, rules)");
        } else if (a == "--algorithm") {
            o.algorithm = static_cast<int>(to_long(a, value()));
        } else if (a == "--segsize") {
            o.segsize = to_long(a, value());
        } else if (a == "--budget-bytes") {
            o.budget_bytes = to_double(a, value());
        } else if (a == "--min-iters") {
            o.min_iters = to_long(a, value());
        } else if (a == "--max-iters") {
            o.max_iters = to_long(a, value());
        } else if (a == "--warmup-frac") {
            o.warmup_frac = to_double(a, value());
        } else if (a == "--max-seconds") {
            o.max_seconds = to_double(a, value());
        } else if (a == "--probe") {
            o.probe = true;
        } else {
            throw ArgError("unknown argument '" + a + "'");
        }
    }
    if (o.probe) return o;
    if (!have_collective) throw ArgError("--collective is required");
    if (o.sizes.empty()) throw ArgError("--sizes is required");
    if (o.min_iters < 1 || o.max_iters < o.min_iters) throw ArgError("need 1 <= --min-iters <= --max-iters");
    if (o.selection == "forced" && !mdtune::models::mpi::find_algorithm(o.collective, o.algorithm))
        throw ArgError("--algorithm " + std::to_string(o.algorithm) + " is not a coll_tuned algorithm of " +
                       std::string(mdtune::models::mpi::name(o.collective)));
    if (o.selection != "forced" && o.algorithm != 0) throw ArgError("--algorithm needs --selection forced");
    return o;
}

}  // namespace mpi_collectives
