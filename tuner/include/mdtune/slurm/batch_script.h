#pragma once
// The batch scripts `mdtune submit` hands to sbatch: a job array whose task i
// runs `mdtune sweep --slice i/M` into its own shard database, and a merge job
// (run after the array, whatever its outcome) that joins the shards into the main
// database. Pure text generation, so scripts are testable without Slurm.
#include <string>
#include <vector>

namespace mdtune::slurm {

enum class NodeSharing { Exclusive, Shared };  // timing trials want whole nodes

struct JobOptions {
    std::string partition, time, account;  // "" = the cluster's default
    NodeSharing sharing = NodeSharing::Exclusive;
};

struct ArrayScript {
    std::string job_name;
    std::string mdtune, mdcore;   // absolute paths of the executables
    std::string space_file;       // the copy in the sweep folder
    std::string sweep_dir;        // shards and logs live here
    std::string sweep_name;
    int tasks = 1;                // M of --slice i/M
    int nodes = 1, ranks = 1;     // the allocation: the most nodes and ranks one trial uses
};

struct MergeScript {
    std::string job_name;
    std::string mdtune;
    std::string main_db;
    std::string sweep_dir;
};

// `mdtune mpi sweep` as one job of `ranks` tasks: the benchmark runs under
// `srun -n R` inside the allocation and writes the main database (one writer).
struct MpiScript {
    std::string job_name;
    std::string mdtune;
    std::string main_db;
    std::string log_dir;
    int nodes = 1, ranks = 2;
    std::vector<std::string> sweep_args;  // passed to `mdtune mpi sweep` as given
};

// POSIX shell single-quoting ('it'\''s').
std::string shell_quote(const std::string& word);

// A value for an #SBATCH line as sbatch's script parser reads it back: as is
// when plain, else in double quotes with " and \ escaped (a space, a quote or a
// # would otherwise split the value or start a comment). Throws
// std::invalid_argument for a line break, which no #SBATCH line can hold.
std::string sbatch_value(const std::string& value);
// A folder as the start of an --output file name pattern: '%' doubled, so only
// the pattern's own %a / %j expand.
std::string output_pattern_folder(const std::string& folder);

std::string render_array_script(const ArrayScript& s, const JobOptions& o);
std::string render_merge_script(const MergeScript& s, const JobOptions& o);
std::string render_mpi_script(const MpiScript& s, const JobOptions& o);

// "0-2", "1,4-5": the task ids for sbatch --array, consecutive ids as ranges.
std::string array_ranges(const std::vector<int>& ids);

// Throws std::invalid_argument naming the flag when a value cannot go into an
// #SBATCH line (Slurm time formats; partition and account names).
void validate_job_options(const JobOptions& o);

}  // namespace mdtune::slurm
