#include "mdcore/text_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace mdcore {

namespace fs = std::filesystem;

std::string read_text_file(const std::string& path, std::size_t max_bytes, std::string& text) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) return "does not exist";
    if (fs::is_directory(st)) return "is a directory, not a regular file";
    // /dev/zero, a FIFO or a socket would never end or block.
    if (!fs::is_regular_file(st)) return "is not a regular file (a device, pipe or socket?)";
    const std::string too_large = "is larger than the limit of " + size_text(max_bytes);
    const auto size = fs::file_size(path, ec);
    if (!ec && size > max_bytes) return too_large;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::string("cannot be opened (") + std::strerror(errno) + ")";
    text.clear();
    if (!ec) text.reserve(size);
    // Read in chunks against the limit rather than trusting the size: the file may grow.
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        text.append(buffer, static_cast<std::size_t>(in.gcount()));
        if (text.size() > max_bytes) {
            text.clear();
            return too_large;
        }
    }
    if (in.bad()) return "cannot be read (I/O error)";
    return {};
}

std::size_t first_long_line(std::string_view text, std::size_t max_line_bytes) {
    std::size_t line = 1;
    for (std::size_t pos = 0; pos < text.size(); ++line) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        if (end - pos > max_line_bytes) return line;
        pos = end + 1;
    }
    return 0;
}

std::string printable_excerpt(std::string_view s, std::size_t max_chars) {
    std::string out;
    for (std::size_t i = 0; i < s.size() && i < max_chars; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
    }
    if (s.size() > max_chars) out += "...";
    return out;
}

std::string quote_excerpt(std::string_view s, char delimiter) {
    return delimiter + printable_excerpt(s) + delimiter;
}

std::string size_text(std::size_t bytes) {
    constexpr std::size_t kKiB = 1024;
    if (bytes >= (kKiB << 20) && bytes % (kKiB << 20) == 0) return std::to_string(bytes >> 30) + " GiB";
    if (bytes >= (kKiB << 10) && bytes % (kKiB << 10) == 0) return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= kKiB && bytes % kKiB == 0) return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + " bytes";
}

}  // namespace mdcore
