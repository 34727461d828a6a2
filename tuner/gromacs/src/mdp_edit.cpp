#include "mdtune/gromacs/mdp_edit.h"

#include <algorithm>
#include <cctype>

namespace mdtune::gromacs {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::string normal_key(std::string_view key) {
    std::string k(trim(key));
    std::replace(k.begin(), k.end(), '_', '-');
    std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return k;
}

// Calls f(line, key, value) for every line; key "" where the line sets nothing.
template <class F>
void for_each_line(std::string_view mdp, F&& f) {
    std::size_t pos = 0;
    while (pos < mdp.size()) {
        std::size_t eol = mdp.find('\n', pos);
        if (eol == std::string_view::npos) eol = mdp.size();
        const std::string_view line = mdp.substr(pos, eol - pos);
        const std::string_view content = line.substr(0, line.find(';'));
        const std::size_t eq = content.find('=');
        if (eq == std::string_view::npos) f(line, std::string(), std::string_view());
        else f(line, normal_key(content.substr(0, eq)), trim(content.substr(eq + 1)));
        if (eol == mdp.size()) break;
        pos = eol + 1;
    }
}

}  // namespace

std::optional<std::string> mdp_value(std::string_view mdp, std::string_view key) {
    const std::string wanted = normal_key(key);
    std::optional<std::string> out;
    for_each_line(mdp, [&](std::string_view, const std::string& k, std::string_view v) {
        if (k == wanted) out = std::string(v);
    });
    return out;
}

std::string apply_mdp_settings(std::string_view mdp, const MdpSettings& settings) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : settings) keys.push_back(normal_key(k));
    std::string out;
    out.reserve(mdp.size() + 64 * settings.size());
    for_each_line(mdp, [&](std::string_view line, const std::string& k, std::string_view) {
        if (!k.empty() && std::find(keys.begin(), keys.end(), k) != keys.end()) out += "; set by mdtune: ";
        out += line;
        out += '\n';
    });
    if (!settings.empty()) out += "; the trial's settings (mdtune)\n";
    for (const auto& [k, v] : settings) out += k + " = " + v + "\n";
    return out;
}

}  // namespace mdtune::gromacs
