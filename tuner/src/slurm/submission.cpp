#include "mdtune/slurm/submission.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "mdcore/output_file.h"
#include "mdtune/process/digest.h"
#include "mdtune/db/store.h"

namespace mdtune::slurm {
namespace fs = std::filesystem;
using nlohmann::json;

std::string space_digest(const std::string& text) { return process::fnv1a_hex(text).substr(0, 12); }

std::string sweep_key(const tuner::SearchSpace& space) {
    std::string stem = fs::path(space.source).stem().string();
    for (char& c : stem)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
    return (stem.empty() ? "space" : stem) + "-" + space_digest(space.text);
}

fs::path shard_root(const std::string& main_db) { return fs::path(main_db + ".shards"); }
fs::path sweep_folder(const std::string& main_db, const std::string& key) { return shard_root(main_db) / key; }
fs::path shard_path(const fs::path& folder, int slice) { return folder / ("task-" + std::to_string(slice) + ".db"); }

std::optional<SweepManifest> load_manifest(const fs::path& folder) {
    const fs::path file = folder / "manifest.json";
    std::ifstream in(file);
    if (!in) return std::nullopt;
    try {
        const json j = json::parse(in);
        SweepManifest m;
        m.key = j.at("key").get<std::string>();
        m.space_source = j.at("space_source").get<std::string>();
        m.space_digest = j.at("space_digest").get<std::string>();
        m.tasks = j.at("tasks").get<int>();
        m.trials_per_task = j.at("trials_per_task").get<int>();
        for (const json& s : j.at("submissions"))
            m.submissions.push_back(Submission{s.at("array_job").get<std::string>(), s.at("merge_job").get<std::string>(),
                                               s.at("slices").get<std::vector<int>>(),
                                               s.at("submitted_at").get<std::string>()});
        if (j.contains("system_files")) m.system_files = j.at("system_files").get<std::map<std::string, std::string>>();
        if (m.tasks < 1) throw std::runtime_error("tasks must be at least 1");
        return m;
    } catch (const std::exception& e) {
        throw std::runtime_error(file.string() + ": not an mdtune submission manifest (" + e.what() + ")");
    }
}

void save_manifest(const fs::path& folder, const SweepManifest& m) {
    json subs = json::array();
    for (const Submission& s : m.submissions)
        subs.push_back({{"array_job", s.array_job}, {"merge_job", s.merge_job}, {"slices", s.slices},
                        {"submitted_at", s.submitted_at}});
    const json j = {{"key", m.key}, {"space_source", m.space_source}, {"space_digest", m.space_digest},
                    {"tasks", m.tasks}, {"trials_per_task", m.trials_per_task}, {"submissions", subs},
                    {"system_files", m.system_files}};
    const fs::path tmp = folder / "manifest.json.tmp";
    mdcore::write_text_file(tmp.string(), j.dump(2) + "\n");
    fs::rename(tmp, folder / "manifest.json");
}

std::vector<std::pair<fs::path, SweepManifest>> all_manifests(const std::string& main_db) {
    std::vector<std::pair<fs::path, SweepManifest>> out;
    std::error_code ec;
    const fs::path root = shard_root(main_db);
    if (!fs::is_directory(root, ec)) return out;
    std::vector<fs::path> folders;
    for (const auto& e : fs::directory_iterator(root, ec))
        if (e.is_directory()) folders.push_back(e.path());
    std::sort(folders.begin(), folders.end());
    for (const fs::path& f : folders)
        if (auto m = load_manifest(f)) out.emplace_back(f, std::move(*m));
    return out;
}

SliceProgress slice_progress(const tuner::SearchSpace& space, tuner::SliceSpec slice, const fs::path& shard,
                             const HardwareCaps& hw) {
    SliceProgress p;
    p.slice = slice.index;
    std::set<std::string> wanted;
    for (const tuner::Proposal& pt : tuner::slice_points(space, slice))
        if (space.infeasible_reason(pt.system, pt.config, hw).empty())
            wanted.insert(pt.system.canonical() + "|" + pt.config.canonical() + "|" + pt.measure.canonical());
    p.expected = wanted.size();
    std::error_code ec;
    if (!fs::exists(shard, ec)) return p;
    const db::Store store(shard.string(), db::Store::Mode::ReadOnly);
    std::set<std::string> found;
    for (const db::StoredTrial& t : store.trials())
        if (!is_failure(t.result.status)) {
            const std::string k = t.system.canonical() + "|" + t.config.canonical() + "|" + t.measure.canonical();
            if (wanted.count(k)) found.insert(k);
        }
    p.present = found.size();
    return p;
}

}  // namespace mdtune::slurm
