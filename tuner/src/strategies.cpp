// Search strategies. Each sees only the space and the history; the history is the
// truth about what has been run, so a strategy built fresh on a resumed sweep's
// history skips the work already done and makes the same decisions it would have
// made without the interruption.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>

#include "mdtune/strategy.h"

namespace mdtune {
namespace {

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

// Feasible points in space order, each once (a hand-built space may repeat one).
std::vector<Proposal> feasible_points(const SearchSpace& space, const HardwareCaps& hw) {
    std::vector<Proposal> out;
    std::set<std::string> seen;
    const std::vector<Config> configs = space.configs();
    for (const SystemDescriptor& s : space.systems)
        for (const Config& c : configs)
            if (space.infeasible_reason(s, c, hw).empty() && seen.insert(key_of(s, c, space.measure)).second)
                out.push_back(Proposal{s, c, space.measure});
    return out;
}

// Proposes a fixed list in order, skipping points already observed or already
// handed out (so a driver that asks before recording still gets distinct work).
class ListStrategy : public Strategy {
public:
    ListStrategy(std::string name, std::vector<Proposal> points) : name_(std::move(name)), points_(std::move(points)) {}
    std::string name() const override { return name_; }
    std::size_t planned() const override { return points_.size(); }
    std::optional<Proposal> next(const std::vector<Observation>& history) override {
        const auto seen = index_history(history);
        for (const Proposal& p : points_) {
            const std::string k = key_of(p);
            if (seen.count(k) || issued_.count(k)) continue;
            issued_.insert(k);
            return p;
        }
        return std::nullopt;
    }

private:
    std::string name_;
    std::vector<Proposal> points_;
    std::set<std::string> issued_;
};

// Fisher-Yates with an explicit unbiased draw: std::shuffle and the standard
// distributions differ between library implementations, and a seed must pick
// the same sample on every build.
void seeded_shuffle(std::vector<Proposal>& v, unsigned long seed) {
    std::mt19937_64 rng(seed);
    for (std::size_t i = v.size(); i > 1; --i) {
        const std::uint64_t n = i;
        const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
        std::uint64_t x;
        do x = rng();
        while (x >= limit);
        std::swap(v[i - 1], v[x % n]);
    }
}

// Successive halving, one independent bracket per system.
class HalvingStrategy : public Strategy {
public:
    HalvingStrategy(const SearchSpace& space, const HardwareCaps& hw, int eta, std::size_t budget)
        : eta_(eta), budget_(budget) {
        if (eta < 2) throw std::invalid_argument("successive halving needs eta >= 2");
        const std::vector<Config> configs = space.configs();
        for (const SystemDescriptor& s : space.systems) {
            Bracket b;
            b.system = s;
            std::set<std::string> seen;
            for (const Config& c : configs)
                if (space.infeasible_reason(s, c, hw).empty() && seen.insert(c.canonical()).second)
                    b.members.push_back(c);
            if (b.members.empty()) continue;
            // Rungs until the kept count reaches one: ceil(log_eta(n)) + 1.
            b.rungs = 1;
            for (std::size_t m = b.members.size(); m > 1; m = ceil_div(m, eta_)) ++b.rungs;
            // Rung r runs steps / eta^(R-1-r), never below warmup + 50 measured steps
            // (nor above the full run); the last rung is the space's own settings.
            for (int r = 0; r < b.rungs; ++r) {
                MeasureSettings m = space.measure;
                const double div = std::pow(static_cast<double>(eta_), b.rungs - 1 - r);
                const long scaled = static_cast<long>(static_cast<double>(space.measure.steps) / div);
                m.steps = std::min(space.measure.steps, std::max(space.measure.warmup + 50, scaled));
                b.measure.push_back(m);
            }
            // Planned: rung sizes without noise-aware extras (n, n/eta, ..., 1); a rung
            // with the same steps as the one before reuses its observations.
            std::size_t m = b.members.size();
            for (int r = 0; r < b.rungs; ++r, m = ceil_div(m, eta_))
                if (r == 0 || b.measure[r].steps != b.measure[r - 1].steps) planned_ += m;
            brackets_.push_back(std::move(b));
        }
        if (budget_ > 0) planned_ = std::min(planned_, budget_);
    }

    std::string name() const override { return "halving"; }
    std::size_t planned() const override { return planned_; }

    // A rung advances only when all its proposals have observations; while one is
    // outstanding the bracket waits and other systems' brackets are served. nullopt
    // when every bracket is finished or waiting, or the budget is spent, so a
    // driver must record each result before asking again.
    std::optional<Proposal> next(const std::vector<Observation>& history) override {
        if (budget_ > 0 && issued_.size() >= budget_) return std::nullopt;
        const auto seen = index_history(history);
        for (Bracket& b : brackets_) {
            while (!b.done) {
                bool waiting = false;
                for (const Config& c : b.members) {
                    Proposal p{b.system, c, b.measure[b.rung]};
                    const std::string k = key_of(p);
                    if (seen.count(k)) continue;
                    if (issued_.count(k)) {
                        waiting = true;
                        continue;
                    }
                    issued_.insert(k);
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
        std::vector<Config> members;  // configs of the current rung
        bool done = false;
    };

    static std::size_t ceil_div(std::size_t a, int b) { return (a + b - 1) / static_cast<std::size_t>(b); }

    void advance(Bracket& b, const std::map<std::string, const Observation*>& seen) const {
        std::vector<std::pair<const TrialResult*, const Config*>> valid;
        for (const Config& c : b.members) {
            const Observation* o = seen.at(key_of(b.system, c, b.measure[b.rung]));
            if (is_valid(o->result)) valid.emplace_back(&o->result, &c);
        }
        if (b.rung == b.rungs - 1 || valid.empty()) {
            b.done = true;
            return;
        }
        // Ties broken by canonical text so the cut never depends on input order.
        std::sort(valid.begin(), valid.end(), [](const auto& x, const auto& y) {
            if (x.first->ms_median != y.first->ms_median) return x.first->ms_median < y.first->ms_median;
            return x.second->canonical() < y.second->canonical();
        });
        const std::size_t keep = std::min(valid.size(), ceil_div(b.members.size(), eta_));
        // Noise-aware: a config whose best repeat beats the cut-off config's worst
        // repeat is not distinguishable from it at this rung's length; keep it too.
        const double cutoff_max = valid[keep - 1].first->ms_max;
        std::vector<Config> survivors;
        for (std::size_t i = 0; i < valid.size(); ++i)
            if (i < keep || valid[i].first->ms_min < cutoff_max) survivors.push_back(*valid[i].second);
        b.members = std::move(survivors);
        // A lone survivor gains nothing from intermediate rungs: measure it in full.
        b.rung = b.members.size() == 1 ? b.rungs - 1 : b.rung + 1;
    }

    int eta_;
    std::size_t budget_;
    std::size_t planned_ = 0;
    std::vector<Bracket> brackets_;
    std::set<std::string> issued_;
};

}  // namespace

std::unique_ptr<Strategy> make_exhaustive(const SearchSpace& space, const HardwareCaps& hw) {
    return std::make_unique<ListStrategy>("exhaustive", feasible_points(space, hw));
}

std::unique_ptr<Strategy> make_random(const SearchSpace& space, const HardwareCaps& hw, std::size_t budget,
                                      unsigned long seed) {
    std::vector<Proposal> points = feasible_points(space, hw);
    seeded_shuffle(points, seed);
    if (budget > 0 && budget < points.size()) points.resize(budget);  // 0: every feasible point
    return std::make_unique<ListStrategy>("random", std::move(points));
}

std::unique_ptr<Strategy> make_successive_halving(const SearchSpace& space, const HardwareCaps& hw, int eta,
                                                  std::size_t budget) {
    return std::make_unique<HalvingStrategy>(space, hw, eta, budget);
}

std::optional<Observation> best_observation(const std::vector<Observation>& history, const SystemDescriptor& system) {
    const std::string sys = system.canonical();
    const Observation* best = nullptr;
    for (const Observation& o : history) {
        if (o.proposal.system.canonical() != sys || !is_valid(o.result)) continue;
        if (!best) {
            best = &o;
            continue;
        }
        // Longer runs first (halving's last rung), then speed, then canonical text.
        const long s = o.proposal.measure.steps, bs = best->proposal.measure.steps;
        if (s != bs) {
            if (s > bs) best = &o;
            continue;
        }
        if (o.result.ms_median != best->result.ms_median) {
            if (o.result.ms_median < best->result.ms_median) best = &o;
            continue;
        }
        if (o.proposal.config.canonical() < best->proposal.config.canonical()) best = &o;
    }
    if (!best) return std::nullopt;
    return *best;
}

}  // namespace mdtune
