#pragma once
// Printing a sweep's verdict (tuner/verdict.h): the speed-up over the default with
// its interval, whether the best can be told apart from the default, the ties.
#include "mdtune/core/trial.h"
#include "mdtune/tuner/verdict.h"

namespace mdtune::cli {

// Lines "  speed-up ...", "  verdict ...", "  ties ..." and "  noisy ..." (when any).
// `baseline`: the default's trial, for a speed-up of trials recorded without rounds.
void print_verdict(const tuner::Verdict& v, const TrialResult* baseline);

}  // namespace mdtune::cli
