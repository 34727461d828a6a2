// Runs each repeat as an `mdcore run ... --json -` child process: a crash or hang
// cannot take the sweep down, and a launcher prefix (mpirun, srun) fits in front.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "mdtune/runner.h"

namespace mdtune {
namespace {

std::string tail_lines(const std::string& text, int lines) {
    std::size_t pos = text.size();
    for (int k = 0; k <= lines && pos > 0; ++k) {
        const std::size_t nl = text.rfind('\n', pos - 1);
        if (nl == std::string::npos) return text;
        if (k < lines) pos = nl;
    }
    return text.substr(pos == text.size() ? 0 : pos + 1);
}

class SubprocessRunner : public Runner {
public:
    SubprocessRunner(std::string mdcore, std::vector<std::string> launcher)
        : mdcore_(std::move(mdcore)), launcher_(std::move(launcher)) {}

    RunOutcome run_once(const Proposal& p, int repeat) override {
        std::vector<std::string> args = launcher_;
        args.push_back(mdcore_);
        args.push_back("run");
        for (auto& a : p.system.mdcore_args()) args.push_back(a);
        for (auto& a : p.config.mdcore_args()) args.push_back(a);
        args.insert(args.end(), {"--steps", std::to_string(p.measure.steps), "--warmup",
                                 std::to_string(p.measure.warmup), "--json", "-"});
        (void)repeat;
        return spawn(args, p.measure.timeout_s);
    }

    // Runs argv as a child in its own process group, capturing stdout and stderr.
    static RunOutcome spawn(const std::vector<std::string>& args, double timeout_s) {
        RunOutcome out;
        int out_pipe[2], err_pipe[2];
        if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
        const auto start = std::chrono::steady_clock::now();
        const pid_t pid = fork();
        if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
        if (pid == 0) {
            setpgid(0, 0);  // own process group: a timeout kills launcher and ranks together
            dup2(out_pipe[1], STDOUT_FILENO);
            dup2(err_pipe[1], STDERR_FILENO);
            close(out_pipe[0]);
            close(err_pipe[0]);
            std::vector<char*> argv;
            for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            execvp(argv[0], argv.data());
            std::fprintf(stderr, "cannot execute %s: %s\n", argv[0], std::strerror(errno));
            _exit(127);
        }
        setpgid(pid, pid);
        close(out_pipe[1]);
        close(err_pipe[1]);
        std::string stdout_text, stderr_text;
        pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
        bool open_out = true, open_err = true, timed_out = false, interrupted = false;
        while (open_out || open_err) {
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (stop_requested()) {
                interrupted = true;
                kill(-pid, SIGTERM);
                break;
            }
            if (elapsed > timeout_s) {
                timed_out = true;
                kill(-pid, SIGTERM);
                break;
            }
            fds[0].fd = open_out ? out_pipe[0] : -1;
            fds[1].fd = open_err ? err_pipe[0] : -1;
            const int wait_ms = static_cast<int>(std::min(200.0, (timeout_s - elapsed) * 1000.0)) + 1;
            if (poll(fds, 2, wait_ms) < 0 && errno != EINTR) break;
            char buf[65536];
            for (int k = 0; k < 2; ++k) {
                if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
                const ssize_t got = read(fds[k].fd, buf, sizeof buf);
                if (got > 0) {
                    (k == 0 ? stdout_text : stderr_text).append(buf, static_cast<std::size_t>(got));
                } else if (got == 0 || errno != EINTR) {
                    (k == 0 ? open_out : open_err) = false;
                }
            }
        }
        close(out_pipe[0]);
        close(err_pipe[0]);
        int status = 0;
        if (timed_out || interrupted) {
            // Give it a moment to stop, then make sure.
            for (int k = 0; k < 20 && waitpid(pid, &status, WNOHANG) == 0; ++k) usleep(100000);
            kill(-pid, SIGKILL);
        }
        waitpid(pid, &status, 0);
        out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        out.stderr_tail = tail_lines(stderr_text, 20);
        if (interrupted) {
            out.status = TrialStatus::Failed;
            out.stderr_tail = "interrupted";
        } else if (timed_out) {
            out.status = TrialStatus::Timeout;
            out.stderr_tail += "\n[mdtune] timed out after " + std::to_string(timeout_s) + " s";
        } else if (WIFSIGNALED(status)) {
            out.status = TrialStatus::Crashed;
            out.stderr_tail += "\n[mdtune] killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                               strsignal(WTERMSIG(status)) + ")";
        } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            out.status = TrialStatus::Ok;
            out.report_json = stdout_text;
        } else {
            out.status = TrialStatus::Failed;
            out.stderr_tail += "\n[mdtune] exit code " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
        return out;
    }

private:
    std::string mdcore_;
    std::vector<std::string> launcher_;
};

}  // namespace

RunOutcome run_child_process(const std::vector<std::string>& argv, double timeout_s) {
    return SubprocessRunner::spawn(argv, timeout_s);
}

std::unique_ptr<Runner> make_subprocess_runner(const std::string& mdcore_path, std::vector<std::string> launcher) {
    return std::make_unique<SubprocessRunner>(mdcore_path, std::move(launcher));
}

}  // namespace mdtune
