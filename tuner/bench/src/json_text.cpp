#include "json_text.h"

#include <algorithm>

namespace mdtune::bench {

std::size_t SanitizedJson::original_offset(std::size_t pos) const {
    long growth = 0;
    for (const auto& [at, g] : shifts)
        if (at <= pos) growth = g;
    return static_cast<std::size_t>(std::max<long>(0, static_cast<long>(pos) - growth));
}

SanitizedJson sanitize_json(std::string_view in) {
    // JSON string literals of the replacements (the NUL escaped).
    static const std::pair<std::string_view, std::string_view> kTokens[] = {
        {"-Infinity", "\"\\u0000-Infinity\""}, {"Infinity", "\"\\u0000+Infinity\""}, {"-NaN", "null"}, {"NaN", "null"}};
    SanitizedJson s;
    s.text.reserve(in.size());
    bool in_string = false;
    long growth = 0;
    int depth = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (in_string) {
            s.text += c;
            if (c == '\\' && i + 1 < in.size()) s.text += in[++i];
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth && !s.too_deep_at) s.too_deep_at = i;
        } else if (c == ']' || c == '}') {
            --depth;
        }
        const auto token = std::find_if(std::begin(kTokens), std::end(kTokens),
                                        [&](const auto& t) { return in.substr(i, t.first.size()) == t.first; });
        if (token == std::end(kTokens)) {
            s.text += c;
            continue;
        }
        s.text += token->second;
        growth += static_cast<long>(token->second.size()) - static_cast<long>(token->first.size());
        s.shifts.emplace_back(s.text.size(), growth);
        i += token->first.size() - 1;
    }
    return s;
}

std::string line_column(std::string_view text, std::size_t offset) {
    long line = 1, col = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

}  // namespace mdtune::bench
