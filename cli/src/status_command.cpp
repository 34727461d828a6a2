// `mdtune status`: per submitted sweep (the manifests next to the main database),
// each array task's Slurm state and how many of its trials its shard already
// holds, so progress shows before the merge job has run.
#include <filesystem>
#include <iostream>
#include <map>

#include "cli_options.h"
#include "commands.h"
#include "mdtune/slurm/slurm_client.h"
#include "mdtune/slurm/submission.h"
#include "mdtune/tuner/sweep.h"

namespace mdtune::cli {

namespace fs = std::filesystem;

namespace {

// The latest submission's view of each slice: its job and its state.
struct TaskView {
    std::string job, state;
};

std::map<int, TaskView> task_views(const slurm::SweepManifest& m) {
    std::map<int, TaskView> views;
    for (const slurm::Submission& s : m.submissions) {
        const auto states = slurm::array_task_states(s.array_job);
        for (int slice : s.slices) {
            const auto it = states.find(slice);
            views[slice] = {s.array_job + "_" + std::to_string(slice), it == states.end() ? "finished" : it->second};
        }
    }
    return views;
}

void print_sweep(const fs::path& folder, const slurm::SweepManifest& m, const std::string& main_db,
                 const HardwareCaps& caps) {
    std::printf("sweep %s: %s, %d task(s) of up to %d trial(s), %zu submission(s)\n", m.key.c_str(),
                m.space_source.c_str(), m.tasks, m.trials_per_task, m.submissions.size());
    tuner::SearchSpace space;
    try {
        space = tuner::load_space((folder / "space.toml").string());
    } catch (const tuner::SpaceError& e) {
        std::printf("  cannot read the submitted space: %s\n", e.what());
        return;
    }
    const auto views = task_views(m);
    std::size_t in_shards = 0, in_main = 0, expected = 0;
    for (int i = 0; i < m.tasks; ++i) {
        const tuner::SliceSpec slice{i, m.tasks};
        const auto p = slurm::slice_progress(space, slice, slurm::shard_path(folder, i), caps);
        const auto merged = slurm::slice_progress(space, slice, main_db, caps);
        in_shards += p.present;
        in_main += merged.present;
        expected += p.expected;
        const auto v = views.find(i);
        std::printf("  task %-4d %3zu/%-3zu trials  %-10s %s\n", i, p.present, p.expected,
                    v == views.end() ? "not submitted" : v->second.state.c_str(),
                    v == views.end() ? "" : ("job " + v->second.job).c_str());
    }
    if (!m.submissions.empty()) {
        const std::string& merge = m.submissions.back().merge_job;
        const std::string state = slurm::job_state(merge);
        std::printf("  merge job %s: %s\n", merge.c_str(), state.empty() ? "finished" : state.c_str());
    }
    std::printf("  shards: %zu/%zu trials; main database: %zu/%zu\n", in_shards, expected, in_main, expected);
}

int status(const std::string& db) {
    const std::string main_db = fs::absolute(db).lexically_normal().string();
    const auto manifests = slurm::all_manifests(main_db);
    if (manifests.empty()) {
        std::printf("no submitted sweeps for %s (mdtune submit SPACE.toml --db %s)\n", main_db.c_str(), main_db.c_str());
        return 0;
    }
    const HardwareCaps caps = machine_caps(detect_hardware());
    for (const auto& [folder, m] : manifests) print_sweep(folder, m, main_db, caps);
    return 0;
}

}  // namespace

void add_status_command(CLI::App& app, int& exit_code) {
    CLI::App* cmd = app.add_subcommand("status", "Progress of the sweeps submitted to Slurm for a database");
    auto db = std::make_shared<std::string>("mdtune.db");
    add_value(*cmd, "--db", *db, "The main database the sweeps were submitted for")->capture_default_str();
    cmd->callback([db, &exit_code] { exit_code = status(*db); });
}

}  // namespace mdtune::cli
