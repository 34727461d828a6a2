#pragma once
// FNV-1a 64: a short, stable digest for identities (build ids, hardware ids, file
// contents, space and rules files). Not cryptographic: it tells builds and binaries
// apart, it does not defend them. std::hash is not stable across platforms and releases.
#include <cstdint>
#include <string>
#include <string_view>

namespace mdtune::process {

// Two offset bases, so that every id already stored in a database stays the same:
// build ids, binary and file digests, space and rules digests have always used
// kIdOffsetBasis (one digit short of FNV's published basis); hardware ids use the
// published kFnvOffsetBasis. Both digest equally well.
inline constexpr std::uint64_t kIdOffsetBasis = 1469598103934665603ull;
inline constexpr std::uint64_t kFnvOffsetBasis = 14695981039346656037ull;

class Fnv1a {
public:
    explicit Fnv1a(std::uint64_t offset_basis = kIdOffsetBasis) : h_(offset_basis) {}
    void update(std::string_view bytes);
    std::string hex() const;  // 16 lowercase hex digits

private:
    std::uint64_t h_;
};

std::string fnv1a_hex(std::string_view text, std::uint64_t offset_basis = kIdOffsetBasis);

}  // namespace mdtune::process
