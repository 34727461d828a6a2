#include "process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace mdtune::bench {

std::string ProcessResult::describe() const {
    if (signal) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    return "exit code " + std::to_string(exit_code);
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
    const Stdout out = options.out;
    if (argv.empty()) throw std::invalid_argument("run_process: empty command");
    int pipe_fd[2] = {-1, -1};
    if (out == Stdout::Capture && pipe2(pipe_fd, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    // An exec failure is reported through this pipe (closed on a successful exec).
    int err_fd[2];
    if (pipe2(err_fd, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));

    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);

    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        // Only async-signal-safe calls from here on would be strictly correct;
        // mdtune is single-threaded when it runs suites, so setenv is fine.
        for (const auto& [k, v] : options.env) setenv(k.c_str(), v.c_str(), 1);
        if (out == Stdout::Capture) dup2(pipe_fd[1], STDOUT_FILENO);
        if (out == Stdout::Discard) {
            const int devnull = open("/dev/null", O_WRONLY);
            dup2(devnull, STDOUT_FILENO);
        }
        if (!options.stderr_file.empty()) {
            const int fd = open(options.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd >= 0) dup2(fd, STDERR_FILENO);
        }
        int e = 0;
        if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) {
            e = errno;
        } else {
            execvp(args[0], args.data());
            e = errno;
        }
        (void)!write(err_fd[1], &e, sizeof e);
        _exit(127);
    }
    close(err_fd[1]);
    ProcessResult r;
    if (out == Stdout::Capture) {
        close(pipe_fd[1]);
        char buf[65536];
        for (;;) {
            const ssize_t n = read(pipe_fd[0], buf, sizeof buf);
            if (n > 0) r.output.append(buf, static_cast<std::size_t>(n));
            else if (n == 0 || errno != EINTR) break;
        }
        close(pipe_fd[0]);
    }
    int exec_errno = 0;
    const bool exec_failed = read(err_fd[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
    close(err_fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (exec_failed) throw std::runtime_error("cannot run '" + argv[0] + "': " + std::strerror(exec_errno));
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    else r.exit_code = WEXITSTATUS(status);
    return r;
}

}  // namespace mdtune::bench
