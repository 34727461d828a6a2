#pragma once
// FNV-1a 64: a short, stable digest for identities (build ids, file contents).
// Not cryptographic: it tells builds and binaries apart, it does not defend them.
#include <cstdint>
#include <string>
#include <string_view>

namespace mdtune {

class Fnv1a {
public:
    void update(std::string_view bytes);
    std::string hex() const;  // 16 lowercase hex digits

private:
    std::uint64_t h_ = 1469598103934665603ull;
};

std::string fnv1a_hex(std::string_view text);

}  // namespace mdtune
