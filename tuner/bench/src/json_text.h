#pragma once
// Internal to mdtune_bench: the raw text of Google Benchmark JSON before nlohmann
// sees it. Google Benchmark writes non-finite doubles as bare NaN / Infinity (not
// JSON), and a hostile file can nest deeper than a recursive dump() survives.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mdtune::bench {

// Deepest nesting of objects and arrays accepted (Google Benchmark writes 3).
inline constexpr int kMaxJsonDepth = 64;

// Bare tokens become: NaN -> null; +-Infinity -> these strings (a NUL first, so no
// name or label Google Benchmark writes can look like them).
inline const std::string kPlusInfinity = std::string(1, '\0') + "+Infinity";
inline const std::string kMinusInfinity = std::string(1, '\0') + "-Infinity";

struct SanitizedJson {
    std::string text;
    std::vector<std::pair<std::size_t, long>> shifts;  // (offset in text after a replacement, cumulative growth)
    std::optional<std::size_t> too_deep_at;              // offset in the input where kMaxJsonDepth was exceeded
    std::size_t original_offset(std::size_t pos) const;
};

// Outside strings: replaces NaN / Infinity tokens and checks the nesting depth.
SanitizedJson sanitize_json(std::string_view in);

// "line L, column C" of a byte offset.
std::string line_column(std::string_view text, std::size_t offset);

}  // namespace mdtune::bench
