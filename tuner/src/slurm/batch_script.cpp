#include "mdtune/slurm/batch_script.h"

#include <regex>
#include <sstream>
#include <stdexcept>

namespace mdtune::slurm {
namespace {

void job_lines(std::ostringstream& out, const JobOptions& o) {
    if (!o.partition.empty()) out << "#SBATCH --partition=" << o.partition << "\n";
    if (!o.account.empty()) out << "#SBATCH --account=" << o.account << "\n";
    if (!o.time.empty()) out << "#SBATCH --time=" << o.time << "\n";
}

}  // namespace

std::string shell_quote(const std::string& word) {
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string sbatch_value(const std::string& value) {
    if (value.find_first_of("\n\r") != std::string::npos)
        throw std::invalid_argument("'" + value + "' holds a line break, which an #SBATCH line cannot");
    if (value.find_first_of(" \t\"'\\#") == std::string::npos) return value;
    std::string out = "\"";
    for (char c : value) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + '"';
}

std::string output_pattern_folder(const std::string& folder) {
    std::string out;
    for (char c : folder) out += c == '%' ? std::string("%%") : std::string(1, c);
    return out;
}

std::string render_array_script(const ArrayScript& s, const JobOptions& o) {
    std::ostringstream out;
    out << "#!/bin/bash\n"
        << "# mdtune submit: array task i measures slice i/" << s.tasks << " of the space into its own shard\n"
        << "# (" << s.sweep_dir << "/task-i.db); the merge job joins the shards afterwards.\n"
        << "#SBATCH --job-name=" << sbatch_value(s.job_name) << "\n"
        << "#SBATCH --output=" << sbatch_value(output_pattern_folder(s.sweep_dir) + "/logs/task-%a.out") << "\n"
        << "#SBATCH --nodes=" << s.nodes << "\n"
        << "#SBATCH --ntasks=" << s.ranks << "\n";
    // A shared node measures other people's jobs too: whole nodes unless asked.
    out << (o.sharing == NodeSharing::Exclusive ? "#SBATCH --exclusive\n" : "#SBATCH --oversubscribe\n");
    job_lines(out, o);
    out << "set -euo pipefail\n"
        << "# Each trial is one job step of the allocation: mdtune sweep starts it with\n"
        << "# srun --ntasks=<the trial's ranks> --cpus-per-task=<its threads per rank>.\n"
        << "exec " << shell_quote(s.mdtune) << " sweep " << shell_quote(s.space_file) << " \\\n"
        << "  --db " << shell_quote(s.sweep_dir) << "\"/task-${SLURM_ARRAY_TASK_ID}.db\" \\\n"
        << "  --slice \"${SLURM_ARRAY_TASK_ID}/" << s.tasks << "\" --name " << shell_quote(s.sweep_name)
        << "\"/task-${SLURM_ARRAY_TASK_ID}\" \\\n"
        << "  --mdcore " << shell_quote(s.mdcore) << "\n";
    return out.str();
}

std::string render_merge_script(const MergeScript& s, const JobOptions& o) {
    std::ostringstream out;
    out << "#!/bin/bash\n"
        << "# mdtune submit: joins the shards of " << s.sweep_dir << " into the main database\n"
        << "# (idempotent: trials already there are kept, each trial lands once).\n"
        << "#SBATCH --job-name=" << sbatch_value(s.job_name) << "\n"
        << "#SBATCH --output=" << sbatch_value(output_pattern_folder(s.sweep_dir) + "/logs/merge-%j.out") << "\n"
        << "#SBATCH --nodes=1\n"
        << "#SBATCH --ntasks=1\n";
    JobOptions merge = o;
    merge.sharing = NodeSharing::Shared;  // a merge needs no whole node
    job_lines(out, merge);
    out << "set -euo pipefail\n"
        << "shopt -s nullglob\n"
        << "shards=(" << shell_quote(s.sweep_dir) << "/task-*.db)\n"
        << "if ((${#shards[@]} == 0)); then echo 'mdtune merge: no shard was written'; exit 0; fi\n"
        << "exec " << shell_quote(s.mdtune) << " db merge " << shell_quote(s.main_db) << " \"${shards[@]}\"\n";
    return out.str();
}

std::string render_mpi_script(const MpiScript& s, const JobOptions& o) {
    std::ostringstream out;
    out << "#!/bin/bash\n"
        << "# mdtune submit --mpi: Open MPI collective benchmarks under srun inside this allocation.\n"
        << "#SBATCH --job-name=" << sbatch_value(s.job_name) << "\n"
        << "#SBATCH --output=" << sbatch_value(output_pattern_folder(s.log_dir) + "/mpi-%j.out") << "\n"
        << "#SBATCH --nodes=" << s.nodes << "\n"
        << "#SBATCH --ntasks=" << s.ranks << "\n"
        << (o.sharing == NodeSharing::Exclusive ? "#SBATCH --exclusive\n" : "#SBATCH --oversubscribe\n");
    job_lines(out, o);
    out << "set -euo pipefail\n"
        << "# Open MPI 4 starts under srun through PMIx unless the site's default says otherwise.\n"
        << ": \"${SLURM_MPI_TYPE:=pmix}\"\n"
        << "export SLURM_MPI_TYPE\n"
        << "exec " << shell_quote(s.mdtune) << " mpi sweep --launcher srun --db " << shell_quote(s.main_db);
    for (const std::string& a : s.sweep_args) out << " " << shell_quote(a);
    out << "\n";
    return out.str();
}

std::string array_ranges(const std::vector<int>& ids) {
    std::string out;
    for (std::size_t k = 0; k < ids.size();) {
        std::size_t end = k;
        while (end + 1 < ids.size() && ids[end + 1] == ids[end] + 1) ++end;
        if (!out.empty()) out += ",";
        out += std::to_string(ids[k]);
        if (end > k) {  // two appends: GCC 12 warns (-Wrestrict, a false positive) on "-" + string
            out += '-';
            out += std::to_string(ids[end]);
        }
        k = end + 1;
    }
    return out;
}

namespace {

// Why `time` is no positive Slurm time limit, "" when it is one. Slurm's formats:
// M, M:S, H:M:S, D-H, D-H:M, D-H:M:S; seconds and minutes below 60 where a larger
// unit comes first, hours below 24 after days; 0 would mean no limit at all.
std::string time_problem(const std::string& time) {
    static const std::regex form(
        R"(^(?:(\d{1,5})-(\d{1,2})(?::(\d{1,2})(?::(\d{1,2}))?)?|(\d{1,7})(?::(\d{1,2})(?::(\d{1,2}))?)?)$)");
    std::smatch m;
    if (!std::regex_match(time, m, form)) return "is not a Slurm time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM:SS)";
    const auto field = [&](int i) { return m[i].matched ? std::stol(m[i].str()) : 0L; };
    long seconds = 0;
    if (m[1].matched) {  // D-H[:M[:S]]
        if (field(2) > 23) return "has " + m[2].str() + " hours after the days (at most 23)";
        if (field(3) > 59 || field(4) > 59) return "has minutes or seconds above 59";
        seconds = ((field(1) * 24 + field(2)) * 60 + field(3)) * 60 + field(4);
    } else if (m[7].matched) {  // H:M:S
        if (field(6) > 59 || field(7) > 59) return "has minutes or seconds above 59";
        seconds = (field(5) * 60 + field(6)) * 60 + field(7);
    } else {  // M or M:S
        if (field(6) > 59) return "has seconds above 59";
        seconds = field(5) * 60 + field(6);
    }
    if (seconds == 0) return "is zero (Slurm would take it as no limit at all)";
    return "";
}

}  // namespace

void validate_job_options(const JobOptions& o) {
    static const std::regex name_re(R"(^[A-Za-z0-9_.+-]+(,[A-Za-z0-9_.+-]+)*$)");
    if (!o.time.empty())
        if (const std::string problem = time_problem(o.time); !problem.empty())
            throw std::invalid_argument("--time: '" + o.time + "' " + problem);
    if (!o.partition.empty() && !std::regex_match(o.partition, name_re))
        throw std::invalid_argument("--partition: '" + o.partition + "' is not a partition name (letters, digits, _ . + -)");
    if (!o.account.empty() && !std::regex_match(o.account, name_re))
        throw std::invalid_argument("--account: '" + o.account + "' is not an account name (letters, digits, _ . + -)");
}

}  // namespace mdtune::slurm
