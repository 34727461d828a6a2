#pragma once
// Where a model's training trials reached, setting by setting: the cluster shapes
// they ran, and the range of each tunable setting (list lifetime, threads, SIMD
// width), of the cut-off per system kind (the PME balance) and of density and
// charged fraction. A prediction for a point outside is extrapolated whatever the
// model's own features do with it (a setting with no spread in training carries
// no information in any of them), and is never ranked above a covered one.
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mdtune/models/features.h"

namespace mdtune::models {

class Coverage {
public:
    void add(const Features& f);
    bool empty() const { return clusters_.empty() && ranges_.empty(); }
    // One line per setting of `f` that no training trial covered, e.g.
    // "threads = 1 (trained 2 - 2)"; empty when covered (or nothing was recorded).
    std::vector<std::string> outside(const Features& f) const;
    // How many of those lines are the candidate's own settings (shape, nstlist,
    // threads, SIMD width, rc): the system's density and charged fraction are the
    // same for every candidate of one system, so they never reorder candidates.
    std::size_t tunables_outside(const Features& f) const;

    nlohmann::json to_json() const;
    // A model stored before coverage was recorded has none: nothing is flagged.
    static Coverage from_json(const nlohmann::json& j);

private:
    void add_outside(const std::vector<std::pair<std::string, double>>& settings, std::vector<std::string>& out,
                     bool with_untrained) const;
    std::set<std::string> clusters_;
    std::map<std::string, std::pair<double, double>> ranges_;  // setting -> [min, max]
};

}  // namespace mdtune::models
