#include "mdcore/output_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <stdexcept>

namespace mdcore {
namespace {

std::string reason(int err) { return err ? std::strerror(err) : "write error"; }

bool is_regular_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

OutputFile::OutputFile(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "w")) {
    if (!f_) throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(errno));
}

OutputFile::~OutputFile() {
    if (!f_) return;
    // Not closed by close(): an exception left the file part-written.
    std::fclose(f_);
    if (is_regular_file(path_)) std::remove(path_.c_str());
}

void OutputFile::note_error() {
    if (!errno_) errno_ = errno ? errno : EIO;
}

void OutputFile::write(std::string_view text) {
    if (!text.empty() && std::fwrite(text.data(), 1, text.size(), f_) != text.size()) note_error();
}

void OutputFile::close() {
    if (std::fflush(f_) != 0 || std::ferror(f_)) note_error();
    std::FILE* f = f_;
    f_ = nullptr;
    if (std::fclose(f) != 0) note_error();
    if (!errno_) return;
    const bool removed = is_regular_file(path_) && std::remove(path_.c_str()) == 0;
    throw std::runtime_error(path_ + ": cannot write: " + reason(errno_) +
                             (removed ? " (the partial file was removed)" : ""));
}

void write_text_file(const std::string& path, std::string_view text) {
    OutputFile out(path);
    out.write(text);
    out.close();
}

std::string flush_stdout() {
    // errno is not reset: a write that failed earlier (a large one goes straight to
    // the file descriptor) left its reason there, and the flush finds nothing to write.
    std::cout.flush();
    const bool stream_failed = !std::cout;
    const bool flush_failed = std::fflush(stdout) != 0 || std::ferror(stdout);
    if (!stream_failed && !flush_failed) return "";
    const int err = errno;
    // Said once: later attempts (another flush at exit) find the error state cleared.
    std::cout.clear();
    std::clearerr(stdout);
    return "standard output: cannot write: " + reason(err);
}

int exit_code_after_stdout(const char* program, int code) {
    const std::string error = flush_stdout();
    if (error.empty()) return code;
    std::cerr << program << ": error: " << error << "\n";
    return code == 0 ? 1 : code;
}

}  // namespace mdcore
