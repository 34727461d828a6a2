#include "mdtune/gromacs/gmx_build.h"

#include <nlohmann/json.hpp>

namespace mdtune::gromacs {
namespace {

// The value of a "Key:   value" line, trimmed; "" when absent.
std::string field(std::string_view text, std::string_view key) {
    std::size_t at = 0;
    while ((at = text.find(key, at)) != std::string_view::npos) {
        if (at == 0 || text[at - 1] == '\n') {
            std::size_t b = at + key.size();
            std::size_t e = text.find('\n', b);
            if (e == std::string_view::npos) e = text.size();
            std::string_view v = text.substr(b, e - b);
            while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
            while (!v.empty() && (v.back() == ' ' || v.back() == '\r')) v.remove_suffix(1);
            return std::string(v.substr(0, 200));
        }
        at += key.size();
    }
    return {};
}

}  // namespace

std::string GmxBuild::to_json() const {
    return nlohmann::json{{"version", version}, {"precision", precision}, {"mpi_library", mpi_library},
                          {"gpu_support", gpu_support}, {"simd", simd}}
        .dump();
}

GmxBuild parse_gmx_version(std::string_view text) {
    GmxBuild b;
    b.version = field(text, "GROMACS version:");
    b.precision = field(text, "Precision:");
    b.mpi_library = field(text, "MPI library:");
    b.gpu_support = field(text, "GPU support:");
    b.simd = field(text, "SIMD instructions:");
    return b;
}

}  // namespace mdtune::gromacs
