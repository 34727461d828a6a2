// Search strategies. Each sees only the space and the history; the history is the
// truth about what has been run, so a strategy built fresh on a resumed sweep's
// history skips the work already done and makes the same decisions it would have
// made without the interruption. Points are decoded from their index in the space
// (SearchSpace::point_at), never materialised as a whole, so a strategy's memory
// follows what it proposes, not the size of the space.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "mdtune/tuner/strategy.h"
#include "mdtune/tuner/rounds.h"
#include "mdtune/tuner/verdict.h"
#include "space_sampling.h"

namespace mdtune::tuner {
namespace {

// Up to this many points exhaustive checks all up front (an exact count for the
// progress bar and the infeasible report); beyond, it checks them as it goes.
constexpr std::uint64_t kCountPassLimit = std::uint64_t{1} << 20;

std::string key_of(const SystemDescriptor& s, const Config& c, const MeasureSettings& m) {
    return s.canonical() + "|" + c.canonical() + "|" + m.canonical();
}
std::string key_of(const Proposal& p) { return key_of(p.system, p.config, p.measure); }

// Valid = measured and accurate: status Ok. The runner sets Invalid when the
// drift breaks the tolerance by more than its estimate's error (it alone sees
// that error, in the run report), so the status is the verdict.
bool is_valid(const TrialResult& r) { return r.status == TrialStatus::Ok; }

// Last observation per key (a re-run supersedes an earlier one).
std::map<std::string, const Observation*> index_history(const std::vector<Observation>& history) {
    std::map<std::string, const Observation*> out;
    for (const Observation& o : history) out[key_of(o.proposal)] = &o;
    return out;
}

std::string point_reason(const SearchSpace& space, const HardwareCaps& hw, const SpacePoint& pt) {
    return space.infeasible_reason(space.systems[pt.system], pt.config, hw);
}

// Proposes space points by index, in the order next_index() gives them, skipping
// infeasible ones and points already observed or already handed out (so a driver
// that asks before recording still gets distinct work).
class PointStrategy : public Strategy {
public:
    PointStrategy(std::string name, const SearchSpace& space, const HardwareCaps& hw)
        : name_(std::move(name)), space_(space), hw_(hw) {}
    std::string name() const override { return name_; }
    std::size_t planned() const override { return planned_; }
    const InfeasibleTally& infeasible() const override { return tally_; }

    std::optional<Proposal> next(const std::vector<Observation>& history) override {
        const auto seen = index_history(history);
        while (const auto k = next_index()) {
            const SpacePoint pt = space_.point_at(*k);
            const std::string why = point_reason(space_, hw_, pt);
            examined(why);
            if (!why.empty()) continue;
            Proposal p{space_.systems[pt.system], pt.config, space_.measure};
            const std::string key = key_of(p);
            if (seen.count(key) || !issued_.insert(key).second) continue;
            return p;
        }
        return std::nullopt;
    }

protected:
    virtual std::optional<std::uint64_t> next_index() = 0;
    virtual void examined(const std::string& /*reason*/) {}

    std::string name_;
    SearchSpace space_;
    HardwareCaps hw_;
    std::size_t planned_ = 0;
    InfeasibleTally tally_;

private:
    std::set<std::string> issued_;
};

// Every point in space order. Small spaces are counted up front; larger ones
// (reached only with --force or a budget) are tallied as the cursor passes.
class ExhaustiveStrategy : public PointStrategy {
public:
    ExhaustiveStrategy(const SearchSpace& space, const HardwareCaps& hw) : PointStrategy("exhaustive", space, hw) {
        const std::uint64_t n = space_.size();
        counted_up_front_ = n <= kCountPassLimit;
        if (counted_up_front_) {
            for (std::uint64_t k = 0; k < n; ++k) tally_.add(point_reason(space_, hw_, space_.point_at(k)));
            tally_.complete = true;
            planned_ = static_cast<std::size_t>(tally_.examined - tally_.dropped);
        } else {
            planned_ = static_cast<std::size_t>(n);  // an upper bound until every point is checked
        }
    }

protected:
    std::optional<std::uint64_t> next_index() override {
        if (cursor_ >= space_.size()) return std::nullopt;
        return cursor_++;
    }
    void examined(const std::string& reason) override {
        if (counted_up_front_) return;
        tally_.add(reason);
        tally_.complete = cursor_ >= space_.size();
    }

private:
    bool counted_up_front_ = false;
    std::uint64_t cursor_ = 0;
};

// A seeded sample of point indices, drawn once, proposed in its order.
class SampleStrategy : public PointStrategy {
public:
    SampleStrategy(const SearchSpace& space, const HardwareCaps& hw, std::size_t budget, unsigned long seed)
        : PointStrategy("random", space, hw) {
        IndexSample sample = sample_indices(space_.size(), budget, seed, [this](std::uint64_t k) {
            const std::string why = point_reason(space_, hw_, space_.point_at(k));
            tally_.add(why);
            return why.empty();
        });
        tally_.complete = sample.examined_all;
        indices_ = std::move(sample.indices);
        planned_ = indices_.size();
    }

protected:
    std::optional<std::uint64_t> next_index() override {
        if (position_ >= indices_.size()) return std::nullopt;
        return indices_[position_++];
    }

private:
    std::vector<std::uint64_t> indices_;
    std::size_t position_ = 0;
};

std::size_t ceil_div(std::size_t a, int b) { return (a + b - 1) / static_cast<std::size_t>(b); }

// The step schedule of a bracket of n configs and the proposals it plans.
struct RungPlan {
    std::vector<MeasureSettings> measure;  // per rung
    std::size_t planned = 0;
};

RungPlan plan_rungs(std::size_t n, int eta, const MeasureSettings& full) {
    RungPlan plan;
    // Rungs until the kept count reaches one: ceil(log_eta(n)) + 1.
    int rungs = 1;
    for (std::size_t m = n; m > 1; m = ceil_div(m, eta)) ++rungs;
    // Rung r runs steps / eta^(R-1-r), never below warmup + 50 measured steps
    // (nor above the full run); the last rung is the space's own settings.
    for (int r = 0; r < rungs; ++r) {
        MeasureSettings m = full;
        const double div = std::pow(static_cast<double>(eta), rungs - 1 - r);
        const long scaled = static_cast<long>(static_cast<double>(full.steps) / div);
        m.steps = std::min(full.steps, std::max(full.warmup + 50, scaled));
        plan.measure.push_back(m);
    }
    // Planned: rung sizes without noise-aware extras (n, n/eta, ..., 1); a rung
    // with the same steps as the one before reuses its observations.
    std::size_t m = n;
    for (int r = 0; r < rungs; ++r, m = ceil_div(m, eta))
        if (r == 0 || plan.measure[r].steps != plan.measure[r - 1].steps) plan.planned += m;
    return plan;
}

// The largest rung-0 size whose bracket plans at most `share` proposals.
std::size_t rung0_size_within(std::size_t share, int eta, const MeasureSettings& full) {
    for (std::size_t n = share; n > 1; --n)
        if (plan_rungs(n, eta, full).planned <= share) return n;
    return 1;
}

// Successive halving, one independent bracket per system.
class HalvingStrategy : public Strategy {
public:
    HalvingStrategy(const SearchSpace& space, const HardwareCaps& hw, int eta, std::size_t budget, unsigned long seed,
                    double confidence)
        : space_(space), eta_(eta), budget_(budget), confidence_(confidence) {
        if (eta < 2) throw std::invalid_argument("successive halving needs eta >= 2");
        // With a budget, each system's bracket is sized to fit its share, so the
        // budget buys a whole bracket rather than the start of rung 0.
        const std::size_t share = std::max<std::size_t>(1, budget / std::max<std::size_t>(1, space.systems.size()));
        const std::size_t rung0 = budget > 0 ? rung0_size_within(share, eta_, space.measure) : 0;
        share_ = budget > 0 ? share : 0;
        tally_.complete = true;
        for (std::size_t s = 0; s < space_.systems.size(); ++s) {
            Bracket b;
            b.system = space_.systems[s];
            IndexSample sample = sample_indices(space_.config_count(), rung0, seed + s, [&](std::uint64_t k) {
                const std::string why = space_.infeasible_reason(b.system, space_.config_at(k), hw);
                tally_.add(why);
                return why.empty();
            });
            tally_.complete = tally_.complete && sample.examined_all;
            if (sample.indices.empty()) continue;
            b.members = std::move(sample.indices);
            std::sort(b.members.begin(), b.members.end());  // space order: cuts never depend on the draw order
            RungPlan plan = plan_rungs(b.members.size(), eta_, space_.measure);
            b.measure = std::move(plan.measure);
            b.rungs = static_cast<int>(b.measure.size());
            planned_ += plan.planned;
            brackets_.push_back(std::move(b));
        }
        if (budget_ > 0) planned_ = std::min(planned_, budget_);
    }

    std::string name() const override { return "halving"; }
    std::size_t planned() const override { return planned_; }
    const InfeasibleTally& infeasible() const override { return tally_; }

    // A rung advances only when all its proposals have observations; while one is
    // outstanding the bracket waits and other systems' brackets are served. nullopt
    // when every bracket is finished or waiting, or the budget is spent, so a
    // driver must record each result before asking again.
    std::optional<Proposal> next(const std::vector<Observation>& history) override {
        if (budget_ > 0 && issued_.size() >= budget_) return std::nullopt;
        const auto seen = index_history(history);
        for (Bracket& b : brackets_) {
            // Noise-aware extras may outgrow the plan: a system's share caps it, so
            // one system's bracket never spends another's.
            while (!b.done && (share_ == 0 || b.issued < share_)) {
                bool waiting = false;
                for (const std::uint64_t member : b.members) {
                    Proposal p{b.system, space_.config_at(member), b.measure[b.rung]};
                    const std::string k = key_of(p);
                    if (seen.count(k)) continue;
                    if (issued_.count(k)) {
                        waiting = true;
                        continue;
                    }
                    issued_.insert(k);
                    ++b.issued;
                    return p;
                }
                if (waiting) break;
                advance(b, seen);
            }
        }
        return std::nullopt;
    }

private:
    struct Bracket {
        SystemDescriptor system;
        std::vector<MeasureSettings> measure;  // per rung
        int rungs = 1, rung = 0;
        std::vector<std::uint64_t> members;  // config indices of the current rung
        std::size_t issued = 0;
        bool done = false;
    };

    struct Ranked {
        const TrialResult* result;
        std::uint64_t member;
        std::string canonical;
    };

    void advance(Bracket& b, const std::map<std::string, const Observation*>& seen) const {
        std::vector<Ranked> valid;
        for (const std::uint64_t member : b.members) {
            const Config c = space_.config_at(member);
            const Observation* o = seen.at(key_of(b.system, c, b.measure[b.rung]));
            if (is_valid(o->result)) valid.push_back({&o->result, member, c.canonical()});
        }
        if (b.rung == b.rungs - 1 || valid.empty()) {
            b.done = true;
            return;
        }
        // By median ratio to the rounds' reference when every one was measured in
        // rounds, else by median time; ties by canonical text so the cut never
        // depends on input order.
        std::vector<const TrialResult*> results;
        for (const Ranked& r : valid) results.push_back(r.result);
        const bool by_ratio = all_have_ratios(results);
        const auto score = rank_scores(results, by_ratio);
        std::sort(valid.begin(), valid.end(), [&score](const Ranked& x, const Ranked& y) {
            const double sx = score.at(x.result), sy = score.at(y.result);
            if (sx != sy) return sx < sy;
            return x.canonical < y.canonical;
        });
        const std::size_t keep = std::min(valid.size(), ceil_div(b.members.size(), eta_));
        // Noise-aware: a config is dropped only when it is significantly slower
        // than the cut-off config — measured in rounds, when the interval of
        // their median ratios lies above 1 at the confidence; otherwise when its
        // best repeat does not beat the cut-off config's worst.
        const TrialResult& cutoff = *valid[keep - 1].result;
        std::vector<std::uint64_t> survivors;
        for (std::size_t i = 0; i < valid.size(); ++i) {
            const TrialResult& r = *valid[i].result;
            const bool slower = by_ratio && clean_ratios(r).size() >= 2 && clean_ratios(cutoff).size() >= 2
                                    ? significantly_slower(r, cutoff, confidence_)
                                    : r.ms_min >= cutoff.ms_max;
            if (i < keep || !slower) survivors.push_back(valid[i].member);
        }
        b.members = std::move(survivors);
        // A lone survivor gains nothing from intermediate rungs: measure it in full.
        b.rung = b.members.size() == 1 ? b.rungs - 1 : b.rung + 1;
    }

    SearchSpace space_;
    int eta_;
    std::size_t budget_;
    double confidence_;
    std::size_t share_ = 0;  // proposals per system with a budget, 0 without
    std::size_t planned_ = 0;
    InfeasibleTally tally_;
    std::vector<Bracket> brackets_;
    std::set<std::string> issued_;
};

}  // namespace

std::unique_ptr<Strategy> make_exhaustive(const SearchSpace& space, const HardwareCaps& hw) {
    return std::make_unique<ExhaustiveStrategy>(space, hw);
}

std::unique_ptr<Strategy> make_random(const SearchSpace& space, const HardwareCaps& hw, std::size_t budget,
                                      unsigned long seed) {
    return std::make_unique<SampleStrategy>(space, hw, budget, seed);
}

std::unique_ptr<Strategy> make_successive_halving(const SearchSpace& space, const HardwareCaps& hw, int eta,
                                                  std::size_t budget, unsigned long seed, double confidence) {
    return std::make_unique<HalvingStrategy>(space, hw, eta, budget, seed, confidence);
}

std::optional<Observation> best_observation(const std::vector<Observation>& history, const SystemDescriptor& system) {
    const std::vector<const Observation*> ranked = ranked_finalists(history, system);
    if (ranked.empty()) return std::nullopt;
    return *ranked.front();
}

}  // namespace mdtune::tuner
