// POSIX shell word splitting, quoting only; see command_line.h.
#include "mdtune/process/command_line.h"

#include <optional>
#include <string_view>

namespace mdtune::process {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string position(std::size_t at) { return "at character " + std::to_string(at + 1); }

}  // namespace

std::vector<std::string> split_command_line(const std::string& text) {
    std::vector<std::string> words;
    std::optional<std::string> word;  // engaged once a word has started ('' is a word)
    for (std::size_t k = 0; k < text.size(); ++k) {
        const char c = text[k];
        if (is_blank(c)) {
            if (word) words.push_back(std::move(*word));
            word.reset();
            continue;
        }
        if (!word) word.emplace();
        if (c == '\\') {
            if (k + 1 == text.size()) throw CommandLineError("ends with a backslash (" + position(k) + ")");
            *word += text[++k];
        } else if (c == '\'') {
            const std::size_t close = text.find('\'', k + 1);
            if (close == std::string::npos) throw CommandLineError("unbalanced ' quote " + position(k));
            *word += text.substr(k + 1, close - k - 1);
            k = close;
        } else if (c == '"') {
            const std::size_t open = k;
            for (++k; k < text.size() && text[k] != '"'; ++k) {
                const bool escape = text[k] == '\\' && k + 1 < text.size() &&
                                    std::string_view("\"\\$`").find(text[k + 1]) != std::string_view::npos;
                if (escape) ++k;
                *word += text[k];
            }
            if (k == text.size()) throw CommandLineError("unbalanced \" quote " + position(open));
        } else {
            *word += c;
        }
    }
    if (word) words.push_back(std::move(*word));
    return words;
}

}  // namespace mdtune::process
