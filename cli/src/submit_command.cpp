// `mdtune submit`: a sweep as a Slurm job array. Task i of M measures slice i/M
// into its own shard (MAIN.db.shards/<sweep>/task-i.db), a merge job after the
// array joins the shards into the main database, and a manifest records the
// submission. Rerunning it submits only the slices whose shard is incomplete and
// that are not queued or running.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include "cli_options.h"
#include "commands.h"
#include "mdcore/output_file.h"
#include "mdtune/core/hardware.h"
#include "mdtune/slurm/batch_script.h"
#include "mdtune/slurm/job_space.h"
#include "mdtune/slurm/slurm_client.h"
#include "mdtune/slurm/submission.h"
#include "mdtune/db/store.h"
#include "mdtune/tuner/sweep.h"
#include "mdtune/db/timestamp.h"

namespace mdtune::cli {

namespace fs = std::filesystem;

namespace {

// Slurm's default MaxArraySize is 1001 (task ids 0-1000).
constexpr int kMaxArrayTasks = 1001;

struct SubmitOptions {
    std::string space;
    bool mpi = false;
    std::string db = "mdtune.db";
    std::string partition, time, account, mdcore;
    bool exclusive = false, shared = false, dry_run = false;
    long array_parallel = 0, trials_per_task = 0;  // 0: not given
    long ranks = 2, nodes = 1;
    std::string ranks_text = "2", nodes_text = "1";
    Args sweep_args;  // after `--` (submit --mpi)
};

slurm::JobOptions job_options(const SubmitOptions& opts) {
    if (opts.exclusive && opts.shared) throw InputError("--exclusive and --shared exclude each other");
    slurm::JobOptions o;
    o.partition = opts.partition;
    o.time = opts.time;
    o.account = opts.account;
    o.sharing = opts.shared ? slurm::NodeSharing::Shared : slurm::NodeSharing::Exclusive;
    try {
        slurm::validate_job_options(o);
    } catch (const std::invalid_argument& e) {
        throw InputError(e.what());
    }
    return o;
}

// The manifest of an earlier submission of this space, or a new one.
// per_task: --trials-per-task, 0 when not given. (A long, not an optional: GCC 12
// warned of a maybe-uninitialised optional payload here.)
slurm::SweepManifest manifest_for(const tuner::SearchSpace& space, const fs::path& folder, long per_task,
                                  const std::vector<slurm::SystemFile>& files) {
    if (auto m = slurm::load_manifest(folder)) {
        for (const slurm::SystemFile& f : files)
            if (const auto was = m->system_files.find(f.path); was != m->system_files.end() && was->second != f.digest)
                throw InputError("[system] " + f.key + ": " + f.path + " changed since this space was first submitted "
                                 "(digest " + was->second + ", now " + f.digest + "): its shards would mix two "
                                 "systems. Restore the file, or remove " + folder.string() + " to start over");
        if (per_task > 0 && per_task != m->trials_per_task)
            throw InputError("--trials-per-task " + std::to_string(per_task) + ": this space was submitted with " +
                             std::to_string(m->trials_per_task) + " (" + std::to_string(m->tasks) +
                             " slices); a different value would cut it differently. Leave the flag out, or remove " +
                             folder.string() + " to start over");
        return *m;
    }
    slurm::SweepManifest m;
    m.key = folder.filename().string();
    m.space_source = space.source;
    m.space_digest = slurm::space_digest(space.text);
    m.trials_per_task = static_cast<int>(per_task > 0 ? per_task : 1);
    for (const slurm::SystemFile& f : files) m.system_files[f.path] = f.digest;
    m.tasks = tuner::slice_count(space, m.trials_per_task);
    if (m.tasks > kMaxArrayTasks) {
        const std::size_t points = tuner::enumerate_points(space).size();
        throw InputError("--trials-per-task " + std::to_string(m.trials_per_task) + ": " + std::to_string(points) +
                         " points make " + std::to_string(m.tasks) + " array tasks, above Slurm's default limit of " +
                         std::to_string(kMaxArrayTasks) + "; use --trials-per-task " +
                         std::to_string((points + kMaxArrayTasks - 1) / kMaxArrayTasks) + " or more");
    }
    return m;
}

// Slices queued or running in an earlier submission (not to be submitted twice).
std::set<int> active_slices(const slurm::SweepManifest& m) {
    std::set<int> active;
    for (const slurm::Submission& s : m.submissions)
        for (const auto& [task, state] : slurm::array_task_states(s.array_job))
            if (slurm::is_active(state)) active.insert(task);
    return active;
}

// Which slices still need work: an incomplete shard and not queued already.
struct SliceTally {
    std::vector<int> missing;
    std::size_t complete = 0, active = 0;
};

SliceTally tally_slices(const tuner::SearchSpace& space, const fs::path& folder, const slurm::SweepManifest& manifest) {
    HardwareCaps caps = machine_caps(detect_hardware());
    caps.local = false;  // the trials run on compute nodes, whose memory is not this login node's
    const std::set<int> active = slurm::sbatch_available() ? active_slices(manifest) : std::set<int>{};
    SliceTally t;
    t.active = active.size();
    for (int i = 0; i < manifest.tasks; ++i) {
        const auto p = slurm::slice_progress(space, {i, manifest.tasks}, slurm::shard_path(folder, i), caps);
        if (p.complete()) ++t.complete;
        else if (!active.count(i)) t.missing.push_back(i);
    }
    return t;
}

void require_sbatch() {
    if (!slurm::sbatch_available())
        throw slurm::SlurmError("sbatch not found: mdtune submit needs a Slurm login node "
                                "(scripts/slurm_local.sh start runs a one-node Slurm here)");
}

// The array, then the merge job after it; the manifest remembers what was submitted,
// also when the merge job could not be.
slurm::Submission submit_array_and_merge(const fs::path& folder, slurm::SweepManifest& manifest,
                                         const std::vector<int>& slices, const std::string& array_flag,
                                         const std::string& main_db) {
    slurm::Submission sub;
    sub.slices = slices;
    sub.submitted_at = db::now_iso8601();
    sub.array_job = slurm::sbatch({array_flag}, (folder / "array.sh").string());
    try {
        sub.merge_job = slurm::sbatch({"--dependency=afterany:" + sub.array_job}, (folder / "merge.sh").string());
    } catch (const slurm::SlurmError&) {
        manifest.submissions.push_back(sub);
        slurm::save_manifest(folder, manifest);
        std::fprintf(stderr, "mdtune: array job %s submitted, but its merge job was not; run `mdtune db merge %s "
                             "%s/task-*.db` when it is done\n",
                     sub.array_job.c_str(), main_db.c_str(), folder.c_str());
        throw;
    }
    manifest.submissions.push_back(sub);
    slurm::save_manifest(folder, manifest);
    return sub;
}

void write_file(const fs::path& path, const std::string& text, fs::perms perms) {
    mdcore::write_text_file(path.string(), text);
    fs::permissions(path, perms);
}

// The scripts' text; a folder no #SBATCH line can name (a line break) is bad input.
template <typename Render>
std::string rendered(const std::string& main_db, Render&& render) {
    try {
        return render();
    } catch (const std::invalid_argument& e) {
        throw InputError("--db: " + main_db + ": " + e.what());
    }
}

// `mdtune submit --mpi [options] [-- mpi sweep options]`: one job of R tasks whose
// `mdtune mpi sweep --launcher srun` writes the main database (the only writer).
int submit_mpi(const SubmitOptions& opts) {
    if (!opts.space.empty()) throw InputError("submit --mpi takes no SPACE.toml ('" + opts.space + "')");
    Args sweep_args = opts.sweep_args;
    for (const std::string& a : sweep_args)
        if (a == "--db" || a == "--launcher" || a == "--hostfile")
            throw InputError("submit --mpi: " + a + " is set by submit itself (the job uses srun and --db of submit)");
    const slurm::JobOptions job = job_options(opts);
    const int ranks = static_cast<int>(opts.ranks);
    const int nodes = static_cast<int>(opts.nodes);
    if (nodes > ranks) throw InputError("--nodes " + opts.nodes_text + " exceeds --ranks " + opts.ranks_text);
    if (std::find(sweep_args.begin(), sweep_args.end(), "--np") == sweep_args.end())
        sweep_args.insert(sweep_args.begin(), {"--np", std::to_string(ranks)});
    check_output_file("--db", opts.db);
    const std::string main_db = fs::absolute(opts.db).lexically_normal().string();
    const fs::path folder = slurm::shard_root(main_db) / "mpi";
    const slurm::MpiScript mpi{"mdtune-mpi", self_executable(), main_db, (folder / "logs").string(), nodes, ranks,
                               sweep_args};
    const std::string text = rendered(main_db, [&] { return slurm::render_mpi_script(mpi, job); });
    const fs::path script = folder / "mpi.sh";
    if (opts.dry_run) {
        std::printf("# %s\n%s\n# would run:\nsbatch --parsable %s\n", script.c_str(), text.c_str(), script.c_str());
        return 0;
    }
    require_sbatch();
    { const db::Store check(main_db); }
    fs::create_directories(folder / "logs");
    write_file(script, text, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
    const std::string id = slurm::sbatch({}, script.string());
    std::printf("submitted MPI job %s (%d rank(s) on %d node(s)) into %s\nlog: %s/logs/mpi-%s.out\n", id.c_str(),
                ranks, nodes, main_db.c_str(), folder.c_str(), id.c_str());
    return 0;
}

int submit(const SubmitOptions& opts) {
    slurm::check_slurm_conf();
    if (opts.mpi) return submit_mpi(opts);
    if (opts.space.empty()) throw InputError("submit needs a SPACE.toml file (or --mpi)");
    if (!opts.sweep_args.empty()) throw InputError("`-- OPTIONS` are mdtune mpi sweep's, for submit --mpi only");
    const slurm::JobOptions job = job_options(opts);
    const bool dry_run = opts.dry_run;
    check_output_file("--db", opts.db);
    const tuner::SearchSpace space = tuner::load_space(opts.space);
    const std::string main_db = fs::absolute(opts.db).lexically_normal().string();
    const fs::path folder = slurm::sweep_folder(main_db, slurm::sweep_key(space));
    // Resolved here, on the login node: the tasks read a copy of the space elsewhere.
    const std::vector<slurm::SystemFile> files = slurm::system_files(space);
    slurm::SweepManifest manifest = manifest_for(space, folder, opts.trials_per_task, files);

    const SliceTally tally = tally_slices(space, folder, manifest);
    const std::vector<int>& missing = tally.missing;
    std::printf("mdtune submit %s: %zu point(s) in %d slice(s) of up to %d; %zu complete, %zu queued or running, "
                "%zu to submit\n",
                opts.space.c_str(), tuner::enumerate_points(space).size(), manifest.tasks, manifest.trials_per_task, tally.complete,
                tally.active, missing.size());
    for (const slurm::SystemFile& f : files)
        std::printf("[system] %s = %s (digest %s)\n", f.key.c_str(), f.path.c_str(), f.digest.c_str());
    if (missing.empty()) {
        std::printf("nothing to submit (mdtune status --db %s)\n", main_db.c_str());
        return 0;
    }

    const std::string mdtune_path = self_executable();
    // A bare name is looked up on the node's PATH; a path is made absolute for the job.
    std::string mdcore_path = opts.mdcore.empty() ? default_mdcore_path() : opts.mdcore;
    if (mdcore_path.find('/') != std::string::npos) mdcore_path = fs::absolute(mdcore_path).string();
    slurm::ArrayScript array{"mdtune-" + manifest.key, mdtune_path, mdcore_path,
                             (folder / "space.toml").string(), folder.string(), manifest.key, manifest.tasks,
                             space.launch.nodes, space.launch.ranks};
    const slurm::MergeScript merge{"mdtune-merge-" + manifest.key, mdtune_path, main_db, folder.string()};
    const std::string array_text = rendered(main_db, [&] { return slurm::render_array_script(array, job); });
    const std::string merge_text = rendered(main_db, [&] { return slurm::render_merge_script(merge, job); });
    const std::string array_flag =
        "--array=" + slurm::array_ranges(missing) + (opts.array_parallel > 0 ? "%" + std::to_string(opts.array_parallel) : "");
    const fs::path array_file = folder / "array.sh", merge_file = folder / "merge.sh";
    if (dry_run) {
        std::printf("\n# %s\n%s\n# %s\n%s\n# would run:\nsbatch --parsable %s %s\n"
                    "sbatch --parsable --dependency=afterany:<array job> %s\n",
                    array_file.c_str(), array_text.c_str(), merge_file.c_str(), merge_text.c_str(), array_flag.c_str(),
                    array_file.c_str(), merge_file.c_str());
        return 0;
    }
    require_sbatch();
    { const db::Store check(main_db); }  // a bad main database fails now, not in the merge job

    fs::create_directories(folder / "logs");
    write_file(folder / "space.toml", slurm::space_text_for_jobs(space),
               fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    const auto exec = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec;
    write_file(array_file, array_text, exec);
    write_file(merge_file, merge_text, exec);
    const slurm::Submission sub = submit_array_and_merge(folder, manifest, missing, array_flag, main_db);
    std::printf("submitted array job %s (tasks %s) and merge job %s into %s\nshards and logs: %s\n"
                "progress: mdtune status --db %s\n",
                sub.array_job.c_str(), slurm::array_ranges(missing).c_str(), sub.merge_job.c_str(), main_db.c_str(),
                folder.c_str(), main_db.c_str());
    return 0;
}

}  // namespace

void add_submit_command(CLI::App& app, int& exit_code, const Args& after_double_dash) {
    CLI::App* cmd = app.add_subcommand("submit", "Run a sweep as a Slurm job array (or mdtune mpi sweep as one job)");
    cmd->footer("submit --mpi [options] [-- mpi sweep options]: mdtune mpi sweep under srun -n R in one job");
    auto opts = std::make_shared<SubmitOptions>();
    opts->sweep_args = after_double_dash;
    cmd->add_option("SPACE.toml", opts->space, "The search space (not with --mpi)");
    CLI::Option* mpi = cmd->add_flag("--mpi", opts->mpi, "Submit mdtune mpi sweep as one job of --ranks tasks");
    add_value(*cmd, "--db", opts->db, "Main database the shards merge into")->capture_default_str();
    add_value(*cmd, "--partition", opts->partition, "Slurm partition");
    add_value(*cmd, "--time", opts->time, "Time limit per task, [D-]HH:MM:SS or minutes");
    add_value(*cmd, "--account", opts->account, "Slurm account");
    add_value(*cmd, "--array-parallel", opts->array_parallel, "At most K array tasks at once")
        ->check(integer_in(1, 100000))->excludes(mpi);
    add_value(*cmd, "--trials-per-task", opts->trials_per_task, "Points per array task (default 1)")
        ->check(integer_in(1, 1'000'000))->excludes(mpi);
    add_value(*cmd, "--mdcore", opts->mdcore, "mdcore executable on the nodes (default: next to mdtune)")->excludes(mpi);
    CLI::Option* ranks = add_value(*cmd, "--ranks", opts->ranks, "MPI ranks (--mpi)")
                             ->check(integer_in(2, 100000))->needs(mpi)->capture_default_str();
    CLI::Option* nodes = add_value(*cmd, "--nodes", opts->nodes, "Nodes (--mpi)")
                             ->check(integer_in(1, 100000))->needs(mpi)->capture_default_str();
    cmd->add_flag("--exclusive", opts->exclusive, "Whole nodes (the default)");
    cmd->add_flag("--shared", opts->shared, "Share nodes with other jobs");
    cmd->add_flag("--dry-run", opts->dry_run, "Print the batch scripts, submit nothing");
    cmd->callback([opts, ranks, nodes, &exit_code] {
        if (ranks->count()) opts->ranks_text = typed(ranks);
        if (nodes->count()) opts->nodes_text = typed(nodes);
        exit_code = submit(*opts);
    });
}

}  // namespace mdtune::cli
