#pragma once
// The space file that array tasks read. Its [system] gro/top/mdp are relative to
// the user's space file, but the tasks read a copy in the sweep folder: the copy
// names them by absolute path, resolved on the login node at submit time, with
// the content digest each file had then (recorded in the manifest, so a file
// changed between two submissions of one space is noticed).
#include <string>
#include <vector>

#include "mdtune/tuner/space.h"

namespace mdtune::slurm {

struct SystemFile {
    std::string key;     // "gro", "top" or "mdp"
    std::string path;    // absolute
    std::string digest;  // FNV-1a of the contents at submit time
};

// The [system] files of a space loaded from disk (empty for generated systems).
std::vector<SystemFile> system_files(const tuner::SearchSpace& space);

// space.text with each [system] gro/top/mdp value replaced by its absolute path;
// everything else (order, comments) as the user wrote it.
std::string space_text_for_jobs(const tuner::SearchSpace& space);

}  // namespace mdtune::slurm
