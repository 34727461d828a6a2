#include "mdtune/slurm/job_space.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "mdtune/core/file_text.h"
#include "mdtune/core/input_error.h"
#include "mdtune/process/digest.h"

namespace mdtune::slurm {
namespace {

namespace fs = std::filesystem;
constexpr const char* kFileKeys[] = {"gro", "top", "mdp"};

// As the space parser resolves it: relative to the space file's folder.
std::string absolute_path(const tuner::SearchSpace& space, const std::string& value) {
    const fs::path p(value);
    const fs::path folder = fs::path(space.source).parent_path();
    return fs::absolute(p.is_relative() && !folder.empty() ? folder / p : p).lexically_normal().string();
}

// A TOML basic string holding `text` exactly.
std::string toml_string(const std::string& text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + '"';
}

// Byte offset of toml++'s (line, column), both 1-based, the column in code points.
std::size_t offset_of(const std::string& text, const toml::source_position& pos) {
    std::size_t at = 0;
    for (toml::source_index line = 1; line < pos.line; ++line) at = text.find('\n', at) + 1;
    for (toml::source_index column = 1; column < pos.column; ++column) {
        ++at;
        while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
    }
    return at;
}

// Length of the string literal starting at `at` (basic, literal or multi-line).
std::size_t literal_length(const std::string& text, std::size_t at) {
    const char quote = text[at];
    const bool multi = text.compare(at, 3, std::string(3, quote)) == 0;
    std::size_t k = at + (multi ? 3 : 1);
    for (; k < text.size(); ++k) {
        if (quote == '"' && text[k] == '\\') {
            ++k;
            continue;
        }
        if (text[k] != quote) continue;
        if (!multi) return k + 1 - at;
        if (text.compare(k, 3, std::string(3, quote)) == 0) {
            // A multi-line string may end with up to two more quotes before its closing three.
            std::size_t end = k + 3;
            while (end < text.size() && text[end] == quote && end - k < 5) ++end;
            return end - at;
        }
    }
    return text.size() - at;
}

}  // namespace

std::vector<SystemFile> system_files(const tuner::SearchSpace& space) {
    std::vector<SystemFile> out;
    for (const SystemDescriptor& s : space.systems) {
        if (!s.from_files()) continue;
        for (const auto& [key, path] : {std::pair{"gro", s.gro}, std::pair{"top", s.top}, std::pair{"mdp", s.mdp}}) {
            if (path.empty()) continue;
            const std::string absolute = fs::absolute(path).lexically_normal().string();
            const FileText file = read_file_text(absolute);
            if (!file.ok()) throw InputError("[system] " + std::string(key) + ": " + absolute + ": cannot read it: it " + file.error);
            out.push_back({key, absolute, process::fnv1a_hex(file.text)});
        }
    }
    return out;
}

std::string space_text_for_jobs(const tuner::SearchSpace& space) {
    const toml::table doc = toml::parse(space.text, space.source);
    const toml::table* system = doc["system"].as_table();
    if (!system) return space.text;
    struct Edit {
        std::size_t at, length;
        std::string value;
    };
    std::vector<Edit> edits;
    for (const char* key : kFileKeys) {
        const toml::node* node = system->get(key);
        const auto* value = node ? node->as_string() : nullptr;
        if (!value) continue;
        const std::size_t at = offset_of(space.text, node->source().begin);
        if (at >= space.text.size() || (space.text[at] != '"' && space.text[at] != '\'')) continue;
        edits.push_back({at, literal_length(space.text, at), toml_string(absolute_path(space, value->get()))});
    }
    std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.at > b.at; });
    std::string text = space.text;
    for (const Edit& e : edits) text.replace(e.at, e.length, e.value);
    return text;
}

}  // namespace mdtune::slurm
