// What identifies this mdcore build to a tuner: version, compiler, flags, SIMD
// levels, the commit and the linker's GNU build id of the running executable,
// which changes whenever the binary does (the tuner keys its trials by it).
#include <elf.h>
#include <link.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "mdcore/build_info.h"
#include "mdcore/engine.h"

namespace mdcore {
namespace {

// dl_iterate_phdr visits the main program first (empty name); find its
// NT_GNU_BUILD_ID note among the PT_NOTE segments.
int read_main_build_id(dl_phdr_info* info, std::size_t, void* out) {
    auto* hex = static_cast<std::string*>(out);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_NOTE) continue;
        const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
        const char* end = p + ph.p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
            const char* name = p + sizeof(ElfW(Nhdr));
            const char* desc = name + ((note->n_namesz + 3) & ~3u);
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
                static const char* digits = "0123456789abcdef";
                for (unsigned k = 0; k < note->n_descsz; ++k) {
                    const auto byte = static_cast<unsigned char>(desc[k]);
                    *hex += digits[byte >> 4];
                    *hex += digits[byte & 15];
                }
                return 1;
            }
            p = desc + ((note->n_descsz + 3) & ~3u);
        }
    }
    return 1;  // only the main program matters
}

}  // namespace

std::string executable_build_id() {
    std::string hex;
    dl_iterate_phdr(read_main_build_id, &hex);
    return hex;
}

BuildInfo current_build_info() {
    BuildInfo b;
    b.engine_version = engine_version();
    b.compiler = build_compiler();
    b.flags = build_flags();
    for (SimdLevel l : available_simd_levels()) b.simd_available.emplace_back(to_string(l));
    b.git_commit = build_git_commit();
    b.build_id = executable_build_id();
    return b;
}

std::string build_info_json() {
    const BuildInfo b = current_build_info();
    nlohmann::json j{{"engine_version", b.engine_version},
                     {"compiler", b.compiler},
                     {"flags", b.flags},
                     {"simd", b.simd_available},
                     {"git_commit", b.git_commit}};
    if (!b.build_id.empty()) j["build_id"] = b.build_id;
    return j.dump();
}

}  // namespace mdcore
