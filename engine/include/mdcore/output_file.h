#pragma once
// Output that is checked to the end: every byte mdcore and mdtune write to a file
// or to standard output is written, flushed and closed with its error reported,
// so a full disk or a closed pipe is an error (exit 1), never a silent exit 0
// with an empty or cut-off file.
#include <cstdio>
#include <string>
#include <string_view>

namespace mdcore {

// A file written in pieces. The constructor opens (truncates) it; close() flushes
// and closes it and throws std::runtime_error "PATH: cannot write: REASON" when any
// write, the flush or the close failed. A regular file that was not closed
// successfully (an error, or an exception before close()) is removed, so no empty
// or cut-off file stays behind.
class OutputFile {
public:
    explicit OutputFile(const std::string& path);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    template <typename... Args>
    void print(const char* format, Args... args) {
        if (std::fprintf(f_, format, args...) < 0) note_error();
    }
    void write(std::string_view text);
    void close();

private:
    void note_error();
    std::string path_;
    std::FILE* f_;
    int errno_ = 0;  // the first failed write's
};

// The whole of `text` into `path`, as OutputFile does.
void write_text_file(const std::string& path, std::string_view text);

// Flushes standard output (std::cout's and stdio's); returns "" when everything
// written to it so far arrived, else why not ("standard output: cannot write: No
// space left on device"). Called before a program exits.
std::string flush_stdout();

// What a program returns from main: `code` once standard output is flushed, else 1
// (for a 0) with "PROGRAM: error: standard output: cannot write: ..." on stderr.
int exit_code_after_stdout(const char* program, int code);

}  // namespace mdcore
