#include "mutator.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <random>
#include <string_view>

namespace mdtest::fuzz {
namespace {

// Values at the edges of the integer and floating-point types parsers convert to.
constexpr std::array<std::string_view, 24> kExtremes{
    "0",  "-0", "-1", "1", "2147483647", "2147483648", "-2147483648", "4294967296", "9223372036854775807",
    "9223372036854775808", "18446744073709551615", "-9223372036854775809", "99999999999999999999999",
    "1e999", "-1e999", "1e-999", "1e308", "nan", "inf", "-inf", "NaN", "Infinity", "0x10", "1.5"};

// splitmix64: a well-mixed 64-bit seed for each (seed, index).
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

class Mutation {
public:
    Mutation(const MutationSpace& space, std::mt19937_64& rng) : space_(space), rng_(rng) {}

    void apply(std::string& s) {
        switch (below(9)) {
            case 0: flip_bit(s); break;
            case 1: insert_byte(s); break;
            case 2: erase_range(s); break;
            case 3: splice_token(s); break;
            case 4: replace_number(s); break;
            case 5: replace_number(s); break;
            case 6: repeat_line(s); break;
            case 7: nest_deeply(s); break;
            default: splice_seed(s); break;
        }
    }

private:
    std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng_() % n); }
    std::size_t position(const std::string& s) { return below(s.size() + 1); }

    void flip_bit(std::string& s) {
        if (s.empty()) return;
        s[below(s.size())] ^= static_cast<char>(1u << below(8));
    }
    void insert_byte(std::string& s) {
        static constexpr char kChars[] = "\"\\[]{}#;,.=:-+\n\r\t \0\x7f\xff";
        constexpr std::string_view kSpecial(kChars, sizeof kChars - 1);  // with the NUL
        const char c = below(2) ? kSpecial[below(kSpecial.size())] : static_cast<char>(below(256));
        s.insert(position(s), 1, c);
    }
    void erase_range(std::string& s) {
        if (s.empty()) return;
        const std::size_t at = below(s.size());
        s.erase(at, 1 + below(below(2) ? 4 : 64));
    }
    void splice_token(std::string& s) {
        if (space_.tokens.empty()) return;
        const std::string& t = space_.tokens[below(space_.tokens.size())];
        // Insert, or overwrite the word at that place.
        std::size_t at = position(s);
        if (below(2) && at < s.size()) {
            std::size_t end = at;
            while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
            s.replace(at, end - at, t);
        } else {
            s.insert(at, t);
        }
    }
    void replace_number(std::string& s) {
        // The k-th run of digits (with its sign and fraction) becomes an extreme value.
        std::vector<std::pair<std::size_t, std::size_t>> numbers;
        for (std::size_t i = 0; i < s.size();) {
            if (!std::isdigit(static_cast<unsigned char>(s[i]))) {
                ++i;
                continue;
            }
            std::size_t start = i > 0 && s[i - 1] == '-' ? i - 1 : i;
            while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == 'e')) ++i;
            numbers.emplace_back(start, i - start);
        }
        const std::string_view v = kExtremes[below(kExtremes.size())];
        if (numbers.empty()) {
            s.insert(position(s), v);
            return;
        }
        const auto [at, len] = numbers[below(numbers.size())];
        s.replace(at, len, v);
    }
    void repeat_line(std::string& s) {
        if (s.empty()) return;
        const std::size_t at = below(s.size());
        const std::size_t begin = s.rfind('\n', at) == std::string::npos ? 0 : s.rfind('\n', at) + 1;
        const std::size_t end = std::min(s.size(), s.find('\n', at) == std::string::npos ? s.size() : s.find('\n', at) + 1);
        const std::string line = s.substr(begin, end - begin) + (end == s.size() ? "\n" : "");
        const std::size_t times = std::array<std::size_t, 4>{2, 100, 10000, 100000}[below(4)];
        std::string block;
        for (std::size_t k = 0; k < times && block.size() < space_.max_size; ++k) block += line;
        s.insert(end, block);
    }
    void nest_deeply(std::string& s) {
        if (space_.open_nesting.empty()) return;
        const std::size_t depth = std::array<std::size_t, 4>{10, 65, 1000, 200000}[below(4)];
        std::string block;
        for (std::size_t k = 0; k < depth && block.size() < space_.max_size; ++k) block += space_.open_nesting;
        s.insert(position(s), block);
    }
    void splice_seed(std::string& s) {
        // A piece of another seed: structure from elsewhere in the format.
        const std::string& other = space_.seeds[below(space_.seeds.size())];
        if (other.empty()) return;
        const std::size_t from = below(other.size());
        s.insert(position(s), other.substr(from, 1 + below(200)));
    }

    const MutationSpace& space_;
    std::mt19937_64& rng_;
};

}  // namespace

std::string mutant(const MutationSpace& space, std::uint64_t seed, std::uint64_t index) {
    std::mt19937_64 rng(mix(seed ^ mix(index)));
    std::string s = space.seeds[rng() % space.seeds.size()];
    Mutation m(space, rng);
    const std::size_t n = 1 + rng() % 4;
    for (std::size_t k = 0; k < n; ++k) m.apply(s);
    if (s.size() > space.max_size) s.resize(space.max_size);
    return s;
}

}  // namespace mdtest::fuzz
