#include "cli_options.h"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace mdtune::cli {

namespace fs = std::filesystem;

namespace {

// Bounds as a person writes them: 0.5, 3600, 1e+06 (never -0.000000).
std::string bound_text(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

bool writable_folder(const fs::path& folder) {
    std::error_code ec;
    return fs::is_directory(folder, ec) && access(folder.c_str(), W_OK | X_OK) == 0;
}

}  // namespace

CLI::Validator integer_in(long min, long max) {
    return CLI::Validator(
        [min, max](std::string& text) -> std::string {
            long v = 0;
            const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec == std::errc::result_out_of_range || (ec == std::errc{} && p == text.data() + text.size() &&
                                                         (v < min || v > max)))
                return text + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]";
            if (ec != std::errc{} || p != text.data() + text.size()) return "'" + text + "' is not an integer";
            return "";
        },
        "INT in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
}

CLI::Validator real_in(double min_exclusive, double max) {
    return CLI::Validator(
        [min_exclusive, max](std::string& text) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
                return "'" + text + "' is not a number";
            if (!(v > min_exclusive) || v > max)
                return text + " must be above " + bound_text(min_exclusive) + " and at most " + bound_text(max);
            return "";
        },
        "NUMBER in (" + bound_text(min_exclusive) + ", " + bound_text(max) + "]");
}

CLI::Validator word_in(const std::vector<std::string>& words) {
    std::string list;
    for (const auto& w : words) list += (list.empty() ? "" : ", ") + w;
    return CLI::Validator(
        [words, list](std::string& text) -> std::string {
            for (const auto& w : words)
                if (text == w) return "";
            return "'" + text + "' (" + list + ")";
        },
        "one of " + list);
}

CLI::Option* add_value(CLI::App& cmd, const std::string& name, std::string& value, const std::string& help) {
    return cmd.add_option(name, value, help)->type_name("TEXT");
}
CLI::Option* add_value(CLI::App& cmd, const std::string& name, long& value, const std::string& help) {
    return cmd.add_option(name, value, help)->type_name("INT");
}
CLI::Option* add_value(CLI::App& cmd, const std::string& name, double& value, const std::string& help) {
    return cmd.add_option(name, value, help)->type_name("NUMBER");
}
CLI::Option* add_values(CLI::App& cmd, const std::string& name, std::vector<std::string>& values,
                        const std::string& help) {
    // One value per occurrence, so `--flag a b` leaves b to be refused as unexpected.
    return cmd.add_option(name, values, help)->allow_extra_args(false)->type_name("TEXT");
}

std::string typed(const CLI::Option* option) {
    return option && option->count() > 0 && !option->results().empty() ? option->results().back() : "";
}

void check_output_file(const std::string& flag, const std::string& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw InputError(flag + ": " + path + " is a folder, not a file");
    const fs::path parent = fs::absolute(path, ec).parent_path();
    if (!fs::exists(parent, ec)) throw InputError(flag + ": folder " + parent.string() + " does not exist");
    if (!writable_folder(parent)) throw InputError(flag + ": cannot write into " + parent.string());
}

void check_output_folder(const std::string& flag, const std::string& path) {
    std::error_code ec;
    fs::path p = fs::absolute(path, ec);
    if (fs::exists(p, ec) && !fs::is_directory(p, ec)) throw InputError(flag + ": " + path + " is a file, not a folder");
    while (!fs::exists(p, ec) && p.has_parent_path() && p != p.parent_path()) p = p.parent_path();
    if (!writable_folder(p)) throw InputError(flag + ": cannot write into " + p.string());
}

std::vector<std::string> split_list(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, sep);)
        if (!item.empty()) out.push_back(item);
    return out;
}

}  // namespace mdtune::cli

namespace mdtune::cli {

GivenFlags::GivenFlags(const CLI::App& cmd) {
    for (const CLI::Option* o : cmd.get_options()) {
        if (o->count() == 0 || o->get_lnames().empty()) continue;
        values_[o->get_lnames().front()] = o->results().empty() ? "" : o->results().back();
    }
}

std::optional<std::string> GivenFlags::text(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::optional<long> GivenFlags::integer(const std::string& name) const {
    const auto t = text(name);
    return t ? std::optional<long>(std::stol(*t)) : std::nullopt;
}

std::optional<double> GivenFlags::real(const std::string& name) const {
    const auto t = text(name);
    return t ? std::optional<double>(std::stod(*t)) : std::nullopt;
}

}  // namespace mdtune::cli
