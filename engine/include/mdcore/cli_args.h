#pragma once
// Strict command-line parsing shared by mdcore and mdtune: every flag is known,
// every value parses completely, and errors name the flag (exit code 2).
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mdcore::cli {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class ArgMap {
public:
    // allowed: flag name (without --) -> takes a value
    ArgMap(const std::vector<std::string>& args, const std::map<std::string, bool>& allowed);
    bool has(const std::string& flag) const { return values_.count(flag) > 0; }
    std::optional<std::string> text(const std::string& flag) const;
    std::optional<long> integer(const std::string& flag, long min, long max) const;
    std::optional<double> real(const std::string& flag, double min_exclusive, double max) const;

private:
    std::map<std::string, std::string> values_;
};

}  // namespace mdcore::cli
