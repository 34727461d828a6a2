#pragma once
// Internal to mdtune_mpi: run a launcher (mpirun, srun) as a child in its own
// process group, stream its stdout line by line, keep the tail of stderr, and
// kill the whole group on timeout or when asked to stop.
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mdtune::mpi::detail {

struct ProcessResult {
    int exit_code = -1;          // -1 when killed or not started
    bool timed_out = false;
    bool interrupted = false;
    std::string stderr_tail;
    double wall_s = 0;
};

ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::vector<std::pair<std::string, std::string>>& env, double timeout_s,
                          const std::function<void(const std::string&)>& on_line,
                          const std::function<bool()>& stop);

}  // namespace mdtune::mpi::detail
