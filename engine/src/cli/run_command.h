#pragma once
// `mdcore run`: its options on CLI11 (the tunables registered from the engine's
// table), the system, config and control they describe, and the run itself.
#include <CLI/CLI.hpp>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/mdp_apply.h"
#include "io/mdp_reader.h"
#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdcore/tunables.h"

namespace mdcore::run_cli {

// Bad input: one line naming the flag and the problem; exit 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Bad input found by some ranks of a run under mpirun, once every rank knows: the
// lowest of them says it (`speaker`, with `rank` in the message), all exit 2.
struct AgreedUsageError : UsageError {
    AgreedUsageError(const std::string& what, int rank, bool speaker)
        : UsageError(what), rank(rank), speaker(speaker) {}
    int rank;
    bool speaker;
};

class RunCommand {
public:
    explicit RunCommand(CLI::App& app);  // adds the `run` subcommand to app
    bool chosen() const { return sub_->parsed(); }
    // After app.parse(): runs and reports; returns the exit code (0 ok, 1 the run
    // failed). Throws UsageError for bad input, before anything runs.
    int execute();

private:
    void add(const std::string& flag, const std::string& placeholder, const std::string& help, const char* group);
    bool has(const std::string& name) const { return sub_->count("--" + name) > 0; }
    std::optional<std::string> text(const std::string& name) const;
    std::optional<long> integer(const std::string& name, long min, long max) const;
    // Within (min, max], or [min, max] when min_inclusive.
    std::optional<double> real(const std::string& name, double min, double max, bool min_inclusive = false) const;
    void reject_extras() const;
    void read_mdp_file();
    // A setting's source: its flag when given (flag: "" for none), else the .mdp's
    // line when the .mdp set it, else the default.
    void noted(const std::string& setting, const std::string& flag, const MdpApplied& applied) const;
    void note(const std::string& setting, const std::string& flag) const;
    RunConfig run_config() const;
    RunControl run_control() const;
    System build_system() const;
    System build_lj_system(SystemKind kind) const;
    System build_water_system(SystemKind kind) const;
    System build_file_system() const;
    void check_output_paths() const;
    void write_report(const RunReport& report) const;

    CLI::App* sub_ = nullptr;
    std::map<std::string, std::string> text_;  // flag name without -- -> value as typed
    std::vector<std::string> include_dirs_;    // --include, in order
    std::optional<MdpSettings> mdp_;           // --mdp
    // RunReport::setting_sources, noted where each value is chosen (in the const builders).
    mutable std::map<std::string, std::string> sources_;
};

}  // namespace mdcore::run_cli
