#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace mdtune::mpi::detail {
namespace {

constexpr std::size_t kStderrKeep = 4000;

void kill_group(pid_t pid) {
    kill(-pid, SIGTERM);
    // mpirun forwards SIGTERM to its ranks; give it a moment before SIGKILL.
    for (int i = 0; i < 50; ++i) {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            kill(-pid, SIGKILL);  // stragglers of the group
            return;
        }
        usleep(20'000);
    }
    kill(-pid, SIGKILL);
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::vector<std::pair<std::string, std::string>>& env, double timeout_s,
                          const std::function<void(const std::string&)>& on_line,
                          const std::function<bool()>& stop) {
    if (argv.empty()) throw std::invalid_argument("run_process: empty command");
    ProcessResult res;
    int out_pipe[2], err_pipe[2];
    if (pipe(out_pipe) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    if (pipe(err_pipe) != 0) {
        close(out_pipe[0]);
        close(out_pipe[1]);
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);  // own group: a timeout takes mpirun and every rank down together
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(err_pipe[1], STDERR_FILENO);
        close(out_pipe[0]);
        close(err_pipe[0]);
        close(out_pipe[1]);
        close(err_pipe[1]);
        for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        std::fprintf(stderr, "cannot execute %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    close(out_pipe[1]);
    close(err_pipe[1]);

    std::string line_buf, err;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    bool open_out = true, open_err = true;
    char buf[8192];
    while (open_out || open_err) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (stop && stop()) {
            res.interrupted = true;
            break;
        }
        if (elapsed > timeout_s) {
            res.timed_out = true;
            break;
        }
        fds[0].fd = open_out ? out_pipe[0] : -1;
        fds[1].fd = open_err ? err_pipe[0] : -1;
        const int n = poll(fds, 2, 200);
        if (n < 0 && errno != EINTR) break;
        if (n <= 0) continue;
        if (open_out && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t r = read(out_pipe[0], buf, sizeof buf);
            if (r <= 0) {
                open_out = false;
            } else {
                line_buf.append(buf, static_cast<std::size_t>(r));
                for (std::size_t nl; (nl = line_buf.find('\n')) != std::string::npos;) {
                    if (on_line) on_line(line_buf.substr(0, nl));
                    line_buf.erase(0, nl + 1);
                }
            }
        }
        if (open_err && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t r = read(err_pipe[0], buf, sizeof buf);
            if (r <= 0) {
                open_err = false;
            } else {
                err.append(buf, static_cast<std::size_t>(r));
                if (err.size() > 4 * kStderrKeep) err.erase(0, err.size() - kStderrKeep);
            }
        }
    }
    if (!line_buf.empty() && on_line && !res.timed_out && !res.interrupted) on_line(line_buf);
    close(out_pipe[0]);
    close(err_pipe[0]);
    if (res.timed_out || res.interrupted) {
        kill_group(pid);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!res.timed_out && !res.interrupted) res.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    res.stderr_tail = err.size() > kStderrKeep ? err.substr(err.size() - kStderrKeep) : err;
    return res;
}

}  // namespace mdtune::mpi::detail
