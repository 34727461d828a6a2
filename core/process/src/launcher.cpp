// fork/exec of one child with pipes, a deadline and group kill; see launcher.h.
#include "mdtune/process/launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace mdtune::process {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// A pipe whose ends close themselves; O_CLOEXEC so no other child inherits them.
struct Pipe {
    int read_end = -1, write_end = -1;
    Pipe() {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
        read_end = fds[0];
        write_end = fds[1];
    }
    ~Pipe() {
        close_read();
        close_write();
    }
    Pipe(const Pipe&) = delete;
    Pipe& operator=(const Pipe&) = delete;
    void close_read() {
        if (read_end >= 0) close(read_end);
        read_end = -1;
    }
    void close_write() {
        if (write_end >= 0) close(write_end);
        write_end = -1;
    }
};

// Our environment with the overrides applied, built before fork (the child may
// only make async-signal-safe calls, which setenv is not).
std::vector<std::string> merged_environment(const std::vector<std::pair<std::string, std::string>>& overrides) {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry = *e;
        bool overridden = false;
        for (const auto& [k, v] : overrides) overridden |= entry.compare(0, k.size() + 1, k + "=") == 0;
        if (!overridden) env.push_back(entry);
    }
    for (const auto& [k, v] : overrides) env.push_back(k + "=" + v);
    return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

void redirect_to_file(int target_fd, const char* path, int flags) {
    const int fd = open(path, flags, 0644);
    if (fd >= 0) dup2(fd, target_fd);
}

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void become_child(pid_t parent, char* const* argv, char* const* envp, const LaunchOptions& o,
                               const Pipe& out, const Pipe& err, const Pipe& exec_error) {
    if (o.group == ProcessGroup::Own) setpgid(0, 0);
    // Dies with the thread that launched it; if that happened before the prctl, stop here.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    if (o.out == StdoutMode::Capture || o.out == StdoutMode::Lines) dup2(out.write_end, STDOUT_FILENO);
    if (o.out == StdoutMode::Discard) redirect_to_file(STDOUT_FILENO, "/dev/null", O_WRONLY);
    if (o.err == StderrMode::Tail) dup2(err.write_end, STDERR_FILENO);
    if (o.err == StderrMode::File) redirect_to_file(STDERR_FILENO, o.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC);
    int e = 0;
    if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) {
        e = errno;
    } else {
        execvpe(argv[0], argv, envp);
        e = errno;
    }
    (void)!write(exec_error.write_end, &e, sizeof e);
    _exit(127);
}

// Collects what the child writes, within the caps of the options.
class OutputSink {
public:
    OutputSink(const LaunchOptions& o, LaunchResult& r) : o_(o), r_(r) {}

    void take_stdout(const char* data, std::size_t n) {
        r_.stdout_bytes += n;
        if (o_.out == StdoutMode::Capture) {
            const std::size_t room = o_.stdout_limit - std::min(o_.stdout_limit, r_.stdout_text.size());
            r_.stdout_text.append(data, std::min(room, n));
            if (n > room) r_.stdout_overflow = true;
            return;
        }
        for (std::size_t k = 0; k < n; ++k) {
            if (data[k] == '\n') {
                if (!skipping_line_ && o_.on_line) o_.on_line(line_);
                line_.clear();
                skipping_line_ = false;
            } else if (!skipping_line_) {
                line_ += data[k];
                if (line_.size() > o_.stdout_limit) {  // a line this long is garbage: drop it whole
                    r_.stdout_overflow = skipping_line_ = true;
                    line_.clear();
                }
            }
        }
    }
    // The last line when it had no newline, unless the child was stopped mid-line.
    void finish_stdout(bool complete) {
        if (complete && !line_.empty() && !skipping_line_ && o_.on_line) o_.on_line(line_);
    }
    void take_stderr(const char* data, std::size_t n) {
        std::string& tail = r_.stderr_tail;
        tail.append(data, n);
        if (tail.size() > 2 * o_.stderr_tail_bytes) tail.erase(0, tail.size() - o_.stderr_tail_bytes);
    }
    void finish_stderr() {
        std::string& tail = r_.stderr_tail;
        if (tail.size() > o_.stderr_tail_bytes) tail.erase(0, tail.size() - o_.stderr_tail_bytes);
    }

private:
    const LaunchOptions& o_;
    LaunchResult& r_;
    std::string line_;
    bool skipping_line_ = false;
};

// SIGTERM to the child (its group), a grace period, then SIGKILL; reaps it.
int terminate(pid_t pid, const LaunchOptions& o) {
    const pid_t target = o.group == ProcessGroup::Own ? -pid : pid;
    kill(target, SIGTERM);
    int status = 0;
    const auto start = Clock::now();
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (seconds_since(start) > o.grace_s) {
            kill(target, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            break;
        }
        usleep(20'000);
    }
    if (o.group == ProcessGroup::Own) kill(-pid, SIGKILL);  // ranks that outlived their launcher
    return status;
}

// Reads the pipes until both close, the deadline passes or stop() says so.
// Returns true when the child must be terminated.
bool pump(Pipe& out, Pipe& err, const LaunchOptions& o, Clock::time_point start, OutputSink& sink,
          LaunchResult& r, pid_t pid, bool& reaped, int& status) {
    char buf[65536];
    for (;;) {
        if (o.stop && o.stop()) return r.interrupted = true;
        const double elapsed = seconds_since(start);
        if (o.timeout_s > 0 && elapsed > o.timeout_s) return r.timed_out = true;
        pollfd fds[2] = {{out.read_end, POLLIN, 0}, {err.read_end, POLLIN, 0}};
        if (out.read_end < 0 && err.read_end < 0) {
            // Nothing to read (inherited or redirected output): wait for the exit itself.
            if (waitpid(pid, &status, WNOHANG) == pid) return !(reaped = true);
            usleep(20'000);
            continue;
        }
        const double left_ms = o.timeout_s > 0 ? (o.timeout_s - elapsed) * 1000.0 : 200.0;
        if (poll(fds, 2, static_cast<int>(std::min(200.0, left_ms)) + 1) < 0 && errno != EINTR)
            throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
        for (int k = 0; k < 2; ++k) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t got = read(fds[k].fd, buf, sizeof buf);
            if (got > 0) {
                if (k == 0) sink.take_stdout(buf, static_cast<std::size_t>(got));
                else sink.take_stderr(buf, static_cast<std::size_t>(got));
            } else if (got == 0 || errno != EINTR) {
                (k == 0 ? out : err).close_read();
            }
        }
    }
}

}  // namespace

std::string LaunchResult::describe() const {
    if (interrupted) return "interrupted";
    if (timed_out) return "timed out after " + std::to_string(wall_s).substr(0, 5) + " s";
    if (signal) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    return "exit code " + std::to_string(exit_code);
}

LaunchResult launch(const std::vector<std::string>& argv, const LaunchOptions& o) {
    if (argv.empty()) throw std::invalid_argument("launch: empty command");
    std::vector<std::string> args = argv, env = merged_environment(o.env);
    const std::vector<char*> arg_ptrs = pointers(args), env_ptrs = pointers(env);
    Pipe out, err, exec_error;
    const pid_t parent = getpid();
    const auto start = Clock::now();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) become_child(parent, arg_ptrs.data(), env_ptrs.data(), o, out, err, exec_error);
    if (o.group == ProcessGroup::Own) setpgid(pid, pid);  // both sides set it: no race with a fast kill
    out.close_write();
    err.close_write();
    exec_error.close_write();
    if (o.out != StdoutMode::Capture && o.out != StdoutMode::Lines) out.close_read();
    if (o.err != StderrMode::Tail) err.close_read();

    int exec_errno = 0, status = 0;
    ssize_t got;
    while ((got = read(exec_error.read_end, &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
    }
    if (got == sizeof exec_errno) {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        throw std::runtime_error("cannot run '" + argv[0] + "'" + (o.cwd.empty() ? "" : " in " + o.cwd) + ": " +
                                 std::strerror(exec_errno));
    }
    LaunchResult r;
    OutputSink sink(o, r);
    bool reaped = false;
    const bool stopping = pump(out, err, o, start, sink, r, pid, reaped, status);
    out.close_read();
    err.close_read();
    if (stopping) status = terminate(pid, o);
    else if (!reaped)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    sink.finish_stdout(!stopping);
    sink.finish_stderr();
    r.wall_s = seconds_since(start);
    if (!stopping) {
        if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
        else r.exit_code = WEXITSTATUS(status);
    }
    return r;
}

std::string tail_lines(const std::string& text, int lines) {
    std::size_t pos = text.size();
    for (int k = 0; k <= lines && pos > 0; ++k) {
        const std::size_t nl = text.rfind('\n', pos - 1);
        if (nl == std::string::npos) return text;
        if (k < lines) pos = nl;
    }
    return text.substr(pos == text.size() ? 0 : pos + 1);
}

}  // namespace mdtune::process
