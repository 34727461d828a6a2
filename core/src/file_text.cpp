#include "mdtune/core/file_text.h"

namespace mdtune::inline core {

FileText read_file_text(const std::string& path, std::size_t max_bytes) {
    FileText f;
    f.error = mdcore::read_text_file(path, max_bytes, f.text);
    return f;
}

}  // namespace mdtune::core
