#pragma once
// The Slurm commands mdtune uses (sbatch, squeue, sacct, scontrol), run as child
// processes: mdtune talks to Slurm the way a user does, so it works with any
// cluster's configuration and needs no Slurm library at build time.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace mdtune::slurm {

// A Slurm command failed or is missing; the message holds the command and its output.
struct SlurmError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct CommandOutput {
    int exit_code = -1;   // -1: did not exit normally or could not start
    std::string output;   // stdout + stderr
};

// Runs argv (no shell interpretation of the words) and collects its output. A
// Slurm command (sbatch, squeue, sacct, scontrol, srun) is first checked with
// check_slurm_conf.
CommandOutput run_command(const std::vector<std::string>& argv);

// Throws mdtune::InputError naming $SLURM_CONF when it is set but names no
// readable file: every Slurm command would retry reading it for a minute, silent.
void check_slurm_conf();

// True when sbatch can be found on PATH.
bool sbatch_available();

// sbatch --parsable with the given options and script; returns the job id.
std::string sbatch(const std::vector<std::string>& options, const std::string& script_path);

// States of a job array's tasks (task id -> PENDING, RUNNING, COMPLETED, CANCELLED,
// TIMEOUT, FAILED, NODE_FAIL, ...): squeue for jobs in the queue, then sacct, then
// scontrol for finished ones. Tasks Slurm no longer knows are absent.
std::map<int, std::string> array_task_states(const std::string& array_job);
// State of a plain job, "" when Slurm no longer knows it.
std::string job_state(const std::string& job);

// PENDING, RUNNING, CONFIGURING, COMPLETING, SUSPENDED, REQUEUED, RESIZING...
bool is_active(const std::string& state);

}  // namespace mdtune::slurm
