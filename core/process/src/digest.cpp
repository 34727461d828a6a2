#include "mdtune/process/digest.h"

#include <cstdio>

namespace mdtune::process {

void Fnv1a::update(std::string_view bytes) {
    for (unsigned char c : bytes) {
        h_ ^= c;
        h_ *= 1099511628211ull;
    }
}

std::string Fnv1a::hex() const {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
    return buf;
}

std::string fnv1a_hex(std::string_view text, std::uint64_t offset_basis) {
    Fnv1a d(offset_basis);
    d.update(text);
    return d.hex();
}

}  // namespace mdtune::process
