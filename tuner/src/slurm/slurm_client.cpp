#include "mdtune/slurm/slurm_client.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <set>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "mdtune/core/input_error.h"
#include "mdtune/slurm/batch_script.h"

namespace mdtune::slurm {
namespace {

// Words joined by spaces, each quoted when `quote` (for popen) or as is (for messages).
std::string join_words(const std::vector<std::string>& words, bool quote) {
    std::string out;
    for (const std::string& w : words) {
        if (!out.empty()) out += ' ';
        out += quote ? shell_quote(w) : w;
    }
    return out;
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (!trim(line).empty()) out.push_back(trim(line));
    return out;
}

// "123_4" -> 4 for array 123; -1 when the id is another job's or not a task.
int task_of(const std::string& id, const std::string& array_job) {
    const std::string prefix = array_job + "_";
    if (id.rfind(prefix, 0) != 0) return -1;
    const std::string rest = id.substr(prefix.size());
    if (rest.empty() || rest.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(rest);
}

// "CANCELLED by 0" -> "CANCELLED"
std::string first_word(const std::string& s) { return s.substr(0, s.find(' ')); }

// `scontrol -o show job` prints one line of key=value words per job (array task).
std::map<std::string, std::string> scontrol_fields(const std::string& line) {
    std::map<std::string, std::string> out;
    std::istringstream in(line);
    for (std::string word; in >> word;)
        if (const auto eq = word.find('='); eq != std::string::npos) out[word.substr(0, eq)] = word.substr(eq + 1);
    return out;
}

void from_squeue(const std::string& job, std::map<int, std::string>& states) {
    const CommandOutput q = run_command({"squeue", "-h", "-r", "-j", job, "-o", "%i %T"});
    if (q.exit_code != 0) return;  // finished jobs leave the queue ("Invalid job id")
    for (const std::string& line : lines_of(q.output)) {
        std::istringstream in(line);
        std::string id, state;
        in >> id >> state;
        if (const int t = task_of(id, job); t >= 0) states[t] = state;
    }
}

void from_sacct(const std::string& job, std::map<int, std::string>& states) {
    const CommandOutput a = run_command({"sacct", "-n", "-P", "-X", "-j", job, "-o", "JobID,State"});
    if (a.exit_code != 0) return;  // no accounting storage on this cluster
    for (const std::string& line : lines_of(a.output)) {
        const auto bar = line.find('|');
        if (bar == std::string::npos) continue;
        if (const int t = task_of(line.substr(0, bar), job); t >= 0 && !states.count(t))
            states[t] = first_word(line.substr(bar + 1));
    }
}

void from_scontrol(const std::string& job, std::map<int, std::string>& states) {
    const CommandOutput c = run_command({"scontrol", "-o", "show", "job", job});
    if (c.exit_code != 0) return;
    for (const std::string& line : lines_of(c.output)) {
        auto f = scontrol_fields(line);
        if (f["ArrayJobId"] != job || f["ArrayTaskId"].empty()) continue;
        if (f["ArrayTaskId"].find_first_not_of("0123456789") != std::string::npos) continue;  // "1-5%1": still pending
        const int t = std::stoi(f["ArrayTaskId"]);
        if (!states.count(t)) states[t] = f["JobState"];
    }
}

}  // namespace

void check_slurm_conf() {
    const char* conf = std::getenv("SLURM_CONF");
    if (!conf) return;
    std::error_code ec;
    const std::string why = !std::filesystem::exists(conf, ec)               ? "no such file"
                            : !std::filesystem::is_regular_file(conf, ec)    ? "not a regular file"
                            : access(conf, R_OK) != 0                        ? "not readable"
                                                                             : "";
    if (!why.empty())
        throw InputError(std::string("SLURM_CONF=") + conf + ": " + why +
                         " (Slurm commands would retry reading it for 60 s); unset it or name the cluster's slurm.conf");
}

CommandOutput run_command(const std::vector<std::string>& argv) {
    static const std::set<std::string> slurm_commands{"sbatch", "squeue", "sacct", "scontrol", "srun"};
    if (!argv.empty() && slurm_commands.count(argv.front())) check_slurm_conf();
    FILE* pipe = popen((join_words(argv, true) + " 2>&1").c_str(), "r");
    if (!pipe) return {-1, "cannot run " + argv.at(0)};
    CommandOutput out;
    std::array<char, 4096> buf;
    while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe)) out.output += buf.data();
    const int status = pclose(pipe);
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

bool sbatch_available() { return run_command({"sh", "-c", "command -v sbatch"}).exit_code == 0; }

std::string sbatch(const std::vector<std::string>& options, const std::string& script_path) {
    std::vector<std::string> argv{"sbatch", "--parsable"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(script_path);
    const CommandOutput r = run_command(argv);
    const std::string cmd = join_words(argv, false);
    if (r.exit_code == 127) throw SlurmError("sbatch not found (is this a Slurm login node? scripts/slurm_local.sh starts one)");
    if (r.exit_code != 0) throw SlurmError(cmd + " failed (exit " + std::to_string(r.exit_code) + "): " + trim(r.output));
    // --parsable prints "jobid" or "jobid;cluster" (warnings may precede it).
    const auto lines = lines_of(r.output);
    const std::string id = lines.empty() ? "" : lines.back().substr(0, lines.back().find(';'));
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
        throw SlurmError(cmd + ": no job id in its output: " + trim(r.output));
    return id;
}

std::map<int, std::string> array_task_states(const std::string& array_job) {
    std::map<int, std::string> states;
    from_squeue(array_job, states);
    from_sacct(array_job, states);
    from_scontrol(array_job, states);
    return states;
}

std::string job_state(const std::string& job) {
    const CommandOutput q = run_command({"squeue", "-h", "-j", job, "-o", "%T"});
    if (q.exit_code == 0 && !lines_of(q.output).empty()) return lines_of(q.output).front();
    const CommandOutput a = run_command({"sacct", "-n", "-P", "-X", "-j", job, "-o", "State"});
    if (a.exit_code == 0 && !lines_of(a.output).empty()) return first_word(lines_of(a.output).front());
    const CommandOutput c = run_command({"scontrol", "-o", "show", "job", job});
    if (c.exit_code == 0 && !lines_of(c.output).empty()) return scontrol_fields(lines_of(c.output).front())["JobState"];
    return "";
}

bool is_active(const std::string& state) {
    for (const char* s : {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "REQUEUE_HOLD",
                          "REQUEUE_FED", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED"})
        if (state == s) return true;
    return false;
}

}  // namespace mdtune::slurm
