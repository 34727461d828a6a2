#include "verdict_output.h"

#include "model_output.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace mdtune::cli {

namespace {

int percent(double confidence) { return static_cast<int>(std::lround(confidence * 100)); }

// The best's clean ratios to the default: one round gives a ratio, no interval.
std::size_t rounds_of(const tuner::Verdict& v) { return clean_ratios(v.best.result).size(); }

void print_speedup(const tuner::Verdict& v, const TrialResult* baseline) {
    if (std::isfinite(v.speedup.estimate) && rounds_of(v) == 1) {
        std::printf("  speed-up  %.2fx over the default configuration (one round: no interval)\n", v.speedup.estimate);
    } else if (std::isfinite(v.speedup.estimate)) {
        std::printf("  speed-up  %.2fx over the default configuration (%d%% interval %.2f-%.2fx, median of the "
                    "per-round ratios)\n",
                    v.speedup.estimate, percent(v.confidence), v.speedup.lo, v.speedup.hi);
    } else if (baseline && baseline->status == TrialStatus::Ok && v.best.result.ms_median > 0) {
        std::printf("  speed-up  %.2fx over the default configuration (no per-round ratios to the default: no interval)\n",
                    baseline->ms_median / v.best.result.ms_median);
    }
}

}  // namespace

void print_verdict(const tuner::Verdict& v, const TrialResult* baseline) {
    if (!v.best_is_default) print_speedup(v, baseline);
    const int pc = percent(v.confidence);
    if (v.best_is_default)
        std::printf("  verdict   the default configuration is the best measured\n");
    else if (rounds_of(v) == 1)
        std::printf("  verdict   fastest measured, from one round: no %d%% statement (--rounds 3 or more)\n", pc);
    else if (v.indistinguishable_from_default)
        std::printf("  verdict   indistinguishable from the default at %d%% confidence\n", pc);
    else
        std::printf("  verdict   faster than the default at %d%% confidence\n", pc);
    if (!v.tied.empty()) {
        std::string names;
        for (std::size_t i = 0; i < v.tied.size() && i < 5; ++i)
            names += (i ? ", " : "") + config_text(v.tied[i].proposal.config);
        if (v.tied.size() > 5) names += ", ...";
        std::printf("  ties      %zu config(s) cannot be told apart from the best at %d%%: %s\n", v.tied.size(), pc,
                    names.c_str());
    }
    if (v.noisy > 0)
        std::printf("  noisy     %zu trial(s) left out: most repeats did not get the threads they asked for\n", v.noisy);
}

}  // namespace mdtune::cli
