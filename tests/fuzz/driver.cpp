#include "driver.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mdtest::fuzz {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxDetail = 400;
constexpr std::size_t kMaxFindings = 8;

// One finished case, as the child reports it on the pipe.
struct Record {
    std::uint64_t index = 0;
    Verdict verdict = Verdict::Accepted;
    std::string detail;
};

bool write_all(int fd, const void* data, std::size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w <= 0) return false;
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

bool read_all(int fd, void* data, std::size_t n) {
    char* p = static_cast<char*>(data);
    while (n > 0) {
        const ssize_t r = ::read(fd, p, n);
        if (r <= 0) return false;
        p += r;
        n -= static_cast<std::size_t>(r);
    }
    return true;
}

// A target's own exception must not escape into the test runner in the child.
CaseResult run_guarded(const Target& target, const std::string& input) {
    try {
        return target.run(input);
    } catch (const std::exception& e) {
        return {Verdict::Untyped, std::string("escaped the target: ") + e.what()};
    } catch (...) {
        return {Verdict::Untyped, "a non-standard exception escaped the target"};
    }
}

[[noreturn]] void child(const Target& target, const FuzzOptions& o, std::uint64_t from, std::uint64_t to, int out) {
    const rlimit mem{o.memory_limit, o.memory_limit};
    setrlimit(RLIMIT_AS, &mem);
    signal(SIGALRM, SIG_DFL);
    for (std::uint64_t i = from; i < to; ++i) {
        const std::string input = mutant(target.space, o.seed, i);
        alarm(o.case_timeout_s);
        CaseResult r = run_guarded(target, input);
        alarm(0);
        if (r.detail.size() > kMaxDetail) r.detail.resize(kMaxDetail);
        const auto len = static_cast<std::uint32_t>(r.detail.size());
        if (!write_all(out, &i, sizeof i) || !write_all(out, &r.verdict, sizeof r.verdict) ||
            !write_all(out, &len, sizeof len) || !write_all(out, r.detail.data(), len))
            _exit(3);
    }
    _exit(0);
}

bool read_record(int fd, Record& r) {
    std::uint32_t len = 0;
    if (!read_all(fd, &r.index, sizeof r.index) || !read_all(fd, &r.verdict, sizeof r.verdict) ||
        !read_all(fd, &len, sizeof len) || len > kMaxDetail)
        return false;
    r.detail.assign(len, '\0');
    return read_all(fd, r.detail.data(), len);
}

class Run {
public:
    Run(const Target& t, const FuzzOptions& o) : target_(t), options_(o) {}

    FuzzStats go() {
        std::uint64_t next = 0;
        while (next < options_.cases) next = batch(next, std::min(options_.cases, next + options_.batch));
        stats_.cases = options_.cases;
        return stats_;
    }

private:
    // Runs [from, to) in one child; returns where the next child starts.
    std::uint64_t batch(std::uint64_t from, std::uint64_t to) {
        int fds[2];
        if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
        std::fflush(nullptr);
        const pid_t pid = fork();
        if (pid < 0) throw std::runtime_error("fork failed");
        if (pid == 0) {
            close(fds[0]);
            child(target_, options_, from, to, fds[1]);
        }
        close(fds[1]);
        std::uint64_t done = from;  // the first case without a record
        for (Record r; read_record(fds[0], r);) {
            tally(r);
            done = r.index + 1;
        }
        close(fds[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && done == to) return to;
        // The child died in case `done`.
        const bool hang = WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
        (hang ? stats_.hangs : stats_.crashes)++;
        const std::string how = WIFSIGNALED(status) ? std::string(strsignal(WTERMSIG(status)))
                                                    : "exit status " + std::to_string(WEXITSTATUS(status));
        note(hang ? "hang" : "crash", done, how);
        return done + 1;
    }

    void tally(const Record& r) {
        switch (r.verdict) {
            case Verdict::Accepted: ++stats_.accepted; break;
            case Verdict::Rejected: ++stats_.rejected; break;
            case Verdict::Untyped:
                ++stats_.untyped;
                note("untyped-error", r.index, r.detail);
                break;
            case Verdict::Garbage:
                ++stats_.garbage;
                note("garbage-accepted", r.index, r.detail);
                break;
        }
    }

    // Saves the input of case `index` (regenerated: mutants are deterministic).
    void note(const std::string& kind, std::uint64_t index, const std::string& detail) {
        std::string where = "(not saved)";
        if (!options_.reproducer_dir.empty()) {
            const fs::path dir = fs::path(options_.reproducer_dir) / target_.name;
            std::error_code ec;
            fs::create_directories(dir, ec);
            const fs::path file = dir / (kind + "-seed" + std::to_string(options_.seed) + "-case" +
                                         std::to_string(index) + target_.extension);
            std::ofstream(file, std::ios::binary) << mutant(target_.space, options_.seed, index);
            where = file.string();
        }
        if (stats_.findings.size() < kMaxFindings)
            stats_.findings.push_back(kind + " case " + std::to_string(index) + ": " + detail + " (" + where + ")");
    }

    const Target& target_;
    const FuzzOptions& options_;
    FuzzStats stats_;
};

}  // namespace

std::string FuzzStats::summary(const std::string& name) const {
    std::ostringstream s;
    s << "fuzz " << name << ": " << cases << " mutations, " << accepted << " accepted, " << rejected
      << " rejected with a message, " << crashes << " crashes, " << hangs << " hangs, " << garbage
      << " exit-0-on-garbage, " << untyped << " untyped errors";
    for (const std::string& f : findings) s << "\n  " << f;
    return s.str();
}

FuzzStats run_fuzz(const Target& target, const FuzzOptions& options) { return Run(target, options).go(); }

std::vector<std::string> load_corpus(const std::string& dir) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<std::string> out;
    for (const fs::path& f : files) {
        std::ifstream in(f, std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        out.push_back(ss.str());
    }
    if (out.empty()) throw std::runtime_error(dir + ": empty corpus");
    return out;
}

}  // namespace mdtest::fuzz
