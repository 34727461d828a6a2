#pragma once
// How a model is judged: leave-one-group-out cross-validation, the groups being
// system-size buckets (octaves of atoms), hardware, or one value of a tunable
// setting (threads = 1, nstlist = 80, cluster = 8x4), so a score always comes from
// sizes / machines / setting values the fit never saw. With a tunable value held
// out, the regret is over all the configs measured for the system (the model
// ranks the held-out ones among those it was fitted on): a model that ranks an
// unseen value first and is wrong shows it there. Scores: MAPE of ms/step, interval coverage,
// and regret — for every (hardware, system) of a held-out group, how much slower
// the config the model ranks first is than the best config measured there.
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mdtune/models/model.h"

namespace mdtune::models {

enum class Grouping { BySize, ByHardware, ByTunable };
inline constexpr Grouping kGroupings[] = {Grouping::BySize, Grouping::ByHardware, Grouping::ByTunable};
std::string_view to_string(Grouping g);

// "1024-2047" atoms: octave buckets, so neighbouring sizes of different system
// kinds (1,500 water atoms, 2,000 LJ atoms) are held out together.
std::string size_bucket(double natoms);
// BySize or ByHardware (a sample is in one such group; ByTunable folds are per setting value).
std::string group_of(const Sample& s, Grouping g);

struct Fold {
    std::string group;
    std::vector<std::size_t> train, test;  // indices into the samples
};
// One fold per group; no sample of a fold's group is in its training set.
std::vector<Fold> leave_one_group_out(const std::vector<Sample>& samples, Grouping g);
// ByTunable: one fold per value of each tunable setting (cluster, nstlist, threads,
// PME balance) that takes two or more values in the samples; group "threads=1".
std::vector<Fold> leave_one_value_out(const std::vector<Sample>& samples);
// The same for any data: keys[i] is the group of item i; one fold per distinct key,
// in the order `before` gives the keys (text order by default).
std::vector<Fold> leave_one_key_out(const std::vector<std::string>& keys,
                                    const std::function<bool(const std::string&, const std::string&)>& before = {});

struct SystemRegret {
    std::string hardware_id;
    SystemDescriptor system;
    std::size_t configs = 0;       // measured configs ranked
    std::string predicted_config;  // canonical text of the model's first choice
    std::string best_config;       // measured best
    double predicted_ms = 0;       // measured time of the model's choice
    double best_ms = 0;
    // predicted_ms / best_ms - 1; when every config of the system was measured in
    // rounds, the best is the lowest median ratio to the default and the regret is
    // median-ratio(predicted) / median-ratio(best) - 1, with a 95 % bootstrap
    // interval (NaN otherwise, and 0-0 when the choice is the best).
    double regret = 0;
    double regret_lo = 0, regret_hi = 0;
    bool by_ratio = false;
    // With by_ratio: the median ratios to the rounds' default of the choice and of
    // the best (the speed-ups over the default are their inverses).
    double predicted_ratio = 0, best_ratio = 0;
    // The interval holds 0: the measurements cannot tell the choice from the best.
    bool within_noise() const { return by_ratio && regret > 0 && regret_lo <= 0; }
};

struct Scores {
    std::size_t n = 0;
    double mape = 0;           // mean |pred - meas| / meas
    double coverage = 0;       // fraction of measurements inside the 90 % interval
    std::vector<SystemRegret> regrets;  // systems with 2 or more measured configs
    double regret_median = 0, regret_max = 0;
    std::size_t regrets_within_noise = 0;  // regrets > 0 whose interval holds 0
};

// Scores a fitted model on test samples.
Scores evaluate(const Model& model, const std::vector<Sample>& test);

struct GroupResult {
    std::string group;
    std::size_t train_n = 0;
    Scores scores;
    std::string skipped;  // why the group has no scores (too little training data), else ""
};

struct CvResult {
    ModelKind kind = ModelKind::Ridge;
    Grouping grouping = Grouping::BySize;
    std::vector<GroupResult> groups;
    Scores overall;  // all held-out predictions pooled
};

CvResult cross_validate(ModelKind kind, const std::vector<Sample>& samples, Grouping g);
nlohmann::json to_json(const CvResult& cv);

double median_of(std::vector<double> v);

}  // namespace mdtune::models
