// Interleaved rounds: see rounds.h. Every member and the reference run once per
// round in an order drawn from a seeded generator; a repeat that did not get
// its threads is run again, then marked noisy.
#include "mdtune/tuner/rounds.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "mdtune/tuner/verdict.h"

namespace mdtune::tuner {
namespace {

// One member (or the reference) across the rounds.
struct Slot {
    const Proposal* proposal = nullptr;
    std::vector<mdcore::RunReport> reports;  // per completed repeat, samples alike
    std::vector<RepeatSample> samples;
    bool failed = false;
    TrialResult failure;
    double wall_s = 0;
};

// Seeded Fisher-Yates with rng() % n, so an order is the same on every platform.
void shuffle(std::vector<std::size_t>& order, std::mt19937_64& rng) {
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
}

int threads_of(const mdcore::RunReport& r) { return std::max(1, r.config.threads) * std::max(1, r.config.ranks); }

// Runs one repeat of a slot, again while it did not get its threads (up to reruns).
void run_repeat(Runner& runner, Slot& slot, int round, int position, const RoundSettings& settings) {
    for (int attempt = 0;; ++attempt) {
        RepeatSample sample;
        sample.round = round;
        sample.position = position;
        sample.load_avg = load_average_1min();
        const RunOutcome out = runner.run_once(*slot.proposal, round);
        slot.wall_s += out.wall_s;
        if (out.status != TrialStatus::Ok) {
            slot.failed = true;
            slot.failure.status = out.status;
            slot.failure.stderr_tail = out.stderr_tail;
            slot.failure.repeats = static_cast<int>(slot.reports.size());
            return;
        }
        sample.ms_per_step = out.report.ms_per_step;
        sample.wall_s = out.wall_s;
        const long measured_steps = std::max(0L, slot.proposal->measure.steps - slot.proposal->measure.warmup);
        sample.measured_s = out.report.ms_per_step * static_cast<double>(measured_steps) / 1000.0;
        sample.cpu_s = out.cpu_s;
        sample.threads = threads_of(out.report);
        const double share = sample.cpu_share();
        sample.noisy = share > 0 && share < settings.min_cpu_share;
        if (sample.noisy && attempt < settings.reruns && !stop_requested()) continue;
        slot.reports.push_back(out.report);
        slot.samples.push_back(sample);
        return;
    }
}

TrialResult summarise(const Slot& slot, double load_avg) {
    TrialResult r;
    if (slot.failed) {
        r = slot.failure;
    } else {
        std::vector<mdcore::RunReport> clean;
        for (std::size_t k = 0; k < slot.reports.size(); ++k)
            if (!slot.samples[k].noisy) clean.push_back(slot.reports[k]);
        r = summarise_repeats(*slot.proposal, clean.empty() ? slot.reports : clean);
        r.repeats = static_cast<int>(slot.reports.size());
    }
    r.samples = slot.samples;
    r.wall_s = slot.wall_s;
    r.load_avg = load_avg;
    return r;
}

// A slot a stop cut short keeps the repeats it measured, as a failed trial that
// says so; one that had failed on its own keeps that failure.
TrialResult summarise_interrupted(const Slot& slot, double load_avg) {
    const bool complete = !slot.failed && static_cast<int>(slot.samples.size()) >= slot.proposal->measure.repeats;
    if (complete || (slot.failed && !slot.failure.stderr_tail.starts_with(kInterruptedTail)))
        return summarise(slot, load_avg);
    TrialResult r;
    r.status = TrialStatus::Failed;
    r.stderr_tail = std::string(kInterruptedTail) + " after " + std::to_string(slot.samples.size()) + " of " +
                    std::to_string(slot.proposal->measure.repeats) + " round(s)";
    r.repeats = static_cast<int>(slot.samples.size());
    r.samples = slot.samples;
    r.wall_s = slot.wall_s;
    r.load_avg = load_avg;
    return r;
}

// True when one slot is significantly faster than every other one still running.
bool decided(const std::vector<Slot>& slots, double confidence) {
    std::vector<TrialResult> views;
    for (const Slot& s : slots) {
        if (s.failed || s.samples.empty()) continue;
        TrialResult view;
        view.samples = s.samples;
        if (is_noisy(view)) continue;  // never the best (judge drops it), so it cannot decide
        if (clean_ratios(view).size() < 2) return false;
        views.push_back(std::move(view));
    }
    if (views.size() < 2) return false;
    std::vector<const TrialResult*> pointers;
    for (const TrialResult& v : views) pointers.push_back(&v);
    const auto score = rank_scores(pointers, true);
    const auto best = std::min_element(views.begin(), views.end(), [&score](const TrialResult& a, const TrialResult& b) {
        return score.at(&a) < score.at(&b);
    });
    // The best is compared with every other one: Bonferroni keeps the chance of a
    // false stop at 1 - confidence over all those comparisons.
    const double each = 1.0 - (1.0 - confidence) / static_cast<double>(views.size() - 1);
    return std::all_of(views.begin(), views.end(), [&](const TrialResult& v) {
        return &v == &*best || significantly_slower(v, *best, each);
    });
}

}  // namespace

RoundsOutcome measure_in_rounds(Runner& runner, const std::vector<Proposal>& members, const Proposal& reference,
                                const RoundSettings& settings, const std::function<void(int)>& on_round) {
    RoundsOutcome out;
    std::vector<Slot> slots(members.size() + 1);
    for (std::size_t i = 0; i < members.size(); ++i) slots[i].proposal = &members[i];
    Slot& ref = slots.back();
    ref.proposal = &reference;
    const double load_avg = load_average_1min();
    std::mt19937_64 rng(settings.seed);
    for (int round = 0; round < reference.measure.repeats; ++round) {
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < slots.size(); ++i)
            if (!slots[i].failed) order.push_back(i);
        shuffle(order, rng);
        for (std::size_t pos = 0; pos < order.size(); ++pos) {
            if (stop_requested()) {
                out.interrupted = true;
                for (std::size_t i = 0; i < members.size(); ++i)
                    out.members.push_back(summarise_interrupted(slots[i], load_avg));
                out.reference = summarise_interrupted(ref, load_avg);
                return out;
            }
            run_repeat(runner, slots[order[pos]], round, static_cast<int>(pos), settings);
        }
        // The reference's time in this round, when it completed the round and got
        // its threads (a ratio to a starved reference says nothing about a config).
        const bool ref_ok = !ref.samples.empty() && ref.samples.back().round == round && !ref.samples.back().noisy;
        const double ref_ms = ref_ok ? ref.samples.back().ms_per_step : 0.0;
        for (Slot& s : slots)
            if (!s.samples.empty() && s.samples.back().round == round) s.samples.back().ref_ms_per_step = ref_ms;
        out.rounds_run = round + 1;
        if (on_round) on_round(round);
        if (settings.stop_when_decided && round + 1 >= kMinDecidingRounds && decided(slots, settings.confidence)) break;
    }
    // A stop during the last round's last run cut only that one short.
    out.interrupted = stop_requested();
    const auto result = [&](const Slot& s) {
        return out.interrupted ? summarise_interrupted(s, load_avg) : summarise(s, load_avg);
    };
    for (std::size_t i = 0; i < members.size(); ++i) out.members.push_back(result(slots[i]));
    out.reference = result(ref);
    return out;
}

}  // namespace mdtune::tuner
