#pragma once
// Choosing and fitting a model from a database's samples: grouped CV of each
// candidate kind (by size, by hardware when there are several machines, and by
// held-out tunable values when a tunable takes several),
// `auto` picking the kind with the lowest cross-validated median regret on
// held-out sizes and machines (choose_kind).
#include <optional>
#include <string>
#include <vector>

#include "mdtune/models/validation.h"

namespace mdtune::models {

// Fewer Ok trials than this and no model is fitted.
inline constexpr std::size_t kMinTrials = 10;

// Throws ModelError "need at least 10 ok trials to fit a model, found N in SOURCE ..."
void require_enough_samples(const std::vector<Sample>& samples, const std::string& source);

struct Selection {
    ModelKind chosen = ModelKind::Cost;
    std::vector<CvResult> cv;  // every kind considered x every grouping possible
    std::string reason;        // one line: why this kind
};

// only: fit that kind (still cross-validated); empty: `auto` over all kinds.
// Size grouping needs 2+ size buckets, hardware grouping 2+ machines, tunable
// grouping a tunable with 2+ values; without
// any grouping there is nothing to validate on and `auto` takes the cost model.
Selection select_model(const std::vector<Sample>& samples, std::optional<ModelKind> only);

// Summary numbers of one kind over the groupings it was validated with (all of
// them, or those in `only`), every held-out group's regrets pooled.
struct KindSummary {
    double mape = 0, coverage = 0, regret_median = 0, regret_max = 0;
    std::size_t systems = 0;
};
KindSummary summarise(const Selection& s, ModelKind kind, std::optional<std::vector<Grouping>> only = std::nullopt);

// `auto`'s rule over s.cv: the lowest median regret over the size and hardware
// groupings present (the tunable grouping when it is the only one); within 0.1
// percentage point the lower worst regret there, then the lower median regret
// of the tunable grouping, then the lower MAPE. Writes the one-line reason.
// No grouping at all: the cost model.
ModelKind choose_kind(const Selection& s, const std::vector<ModelKind>& kinds, std::string* reason);

}  // namespace mdtune::models
