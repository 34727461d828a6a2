#pragma once
// The pieces every mdtune subcommand registers its flags with (CLI11): typed
// checks whose messages quote the value as the user typed it, and the checks of
// output paths made before anything runs.
#include <CLI/CLI.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mdtune/core/input_error.h"

namespace mdtune::cli {

// An integer in [min, max]: "'abc' is not an integer", "0 is out of range [1, 1000]".
CLI::Validator integer_in(long min, long max);
// A finite number above min_exclusive and at most max: "'x' is not a number",
// "0.7 must be above 0 and at most 0.5".
CLI::Validator real_in(double min_exclusive, double max);
// One of a fixed list of words: "'best' (exhaustive, random, halving)".
CLI::Validator word_in(const std::vector<std::string>& words);

// An option that takes one value per occurrence (a repeatable one collects them in order).
CLI::Option* add_value(CLI::App& cmd, const std::string& name, std::string& value, const std::string& help);
CLI::Option* add_value(CLI::App& cmd, const std::string& name, long& value, const std::string& help);
CLI::Option* add_value(CLI::App& cmd, const std::string& name, double& value, const std::string& help);
CLI::Option* add_values(CLI::App& cmd, const std::string& name, std::vector<std::string>& values,
                        const std::string& help);

// The value of a given option as typed (for messages), "" when absent.
std::string typed(const CLI::Option* option);

// Before a run: the folder a file will be written to exists and is writable, and
// the path is not a folder. InputError naming the flag otherwise.
void check_output_file(const std::string& flag, const std::string& path);
// A folder that will be created or written into: it is not a file, and its nearest
// existing ancestor is a writable folder.
void check_output_folder(const std::string& flag, const std::string& path);

// The comma-separated items of a list flag, empty items dropped.
std::vector<std::string> split_list(const std::string& text, char sep = ',');

}  // namespace mdtune::cli

namespace mdtune::cli {

// The flags a parsed subcommand was given, by name without dashes, as typed; their
// values were already checked by the validators registered with them.
class GivenFlags {
public:
    explicit GivenFlags(const CLI::App& cmd);
    bool has(const std::string& name) const { return text(name).has_value(); }
    std::optional<std::string> text(const std::string& name) const;
    std::optional<long> integer(const std::string& name) const;
    std::optional<double> real(const std::string& name) const;

private:
    std::map<std::string, std::string> values_;
};

}  // namespace mdtune::cli
