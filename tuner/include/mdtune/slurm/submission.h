#pragma once
// What `mdtune submit` remembers about a submitted sweep, so `mdtune status` and a
// resubmission can find it: a JSON manifest in the sweep's shard folder next to
// the main database (MAIN.db.shards/<sweep>/manifest.json), with the space's
// digest, the partition into slices and every submission's job ids. SQLite stays
// out of it: the manifest is written on the login node while tasks write shards.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mdtune/tuner/slice.h"

namespace mdtune::slurm {

struct Submission {
    std::string array_job, merge_job;
    std::vector<int> slices;  // the array's task ids = slice indices
    std::string submitted_at;
};

struct SweepManifest {
    std::string key;           // folder name: space file stem + digest
    std::string space_source;  // the path the user gave
    std::string space_digest;
    int tasks = 1;             // M: slices of the space
    int trials_per_task = 1;
    std::vector<Submission> submissions;
    // [system] gro/top/mdp as first submitted: absolute path -> content digest.
    std::map<std::string, std::string> system_files;
};

// "lj6-3f2a9c01d4e5": the file's stem and a digest of the space text.
std::string sweep_key(const tuner::SearchSpace& space);
std::string space_digest(const std::string& text);

std::filesystem::path shard_root(const std::string& main_db);  // MAIN.db.shards
std::filesystem::path sweep_folder(const std::string& main_db, const std::string& key);
std::filesystem::path shard_path(const std::filesystem::path& folder, int slice);  // task-<i>.db

// Reads folder/manifest.json; nullopt when missing; std::runtime_error naming the
// file when it is not a manifest.
std::optional<SweepManifest> load_manifest(const std::filesystem::path& folder);
// Writes it atomically (temporary file, then rename).
void save_manifest(const std::filesystem::path& folder, const SweepManifest& m);
// Every manifest under MAIN.db.shards, by folder name.
std::vector<std::pair<std::filesystem::path, SweepManifest>> all_manifests(const std::string& main_db);

// How much of one slice its shard holds: points of the slice feasible on `hw`
// (the submitting machine's view) and how many of them have a result (ok or
// invalid; failures are measured again) with the space's measurement settings.
// Any build id counts: the array task keys its trials by the node's launcher and
// environment, which the submitting machine cannot reproduce; the shard folder is
// this space's alone.
struct SliceProgress {
    int slice = 0;
    std::size_t expected = 0, present = 0;
    bool complete() const { return present >= expected; }
};
SliceProgress slice_progress(const tuner::SearchSpace& space, tuner::SliceSpec slice, const std::filesystem::path& shard,
                             const HardwareCaps& hw);

}  // namespace mdtune::slurm
