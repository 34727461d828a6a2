#include "mdtune/core/file_text.h"

#include <fstream>
#include <sstream>

namespace mdtune::inline core {

FileText read_file_text(const std::string& path) {
    FileText f;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        f.status = FileText::Status::CannotOpen;
        return f;
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) f.status = FileText::Status::CannotRead;
    f.text = text.str();
    return f;
}

}  // namespace mdtune::core
