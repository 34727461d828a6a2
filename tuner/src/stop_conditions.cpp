// Stop conditions: small predicates over the history that a sweep ORs together.
#include <chrono>

#include "mdtune/tuner/strategy.h"

namespace mdtune::tuner {
namespace {

class AfterTrials : public StopCondition {
public:
    explicit AfterTrials(std::size_t n) : n_(n) {}
    bool should_stop(const std::vector<Observation>& history) const override { return history.size() >= n_; }

private:
    std::size_t n_;
};

// steady_clock: a sweep's time limit must not jump with NTP or DST changes.
class AfterSeconds : public StopCondition {
public:
    explicit AfterSeconds(double seconds) : seconds_(seconds), start_(std::chrono::steady_clock::now()) {}
    bool should_stop(const std::vector<Observation>&) const override {
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
        return elapsed.count() >= seconds_;
    }

private:
    double seconds_;
    std::chrono::steady_clock::time_point start_;
};

class AnyOf : public StopCondition {
public:
    explicit AnyOf(std::vector<std::unique_ptr<StopCondition>> conditions) : conditions_(std::move(conditions)) {}
    bool should_stop(const std::vector<Observation>& history) const override {
        for (const auto& c : conditions_)
            if (c && c->should_stop(history)) return true;
        return false;  // no conditions: never stop (the strategy ends the sweep)
    }

private:
    std::vector<std::unique_ptr<StopCondition>> conditions_;
};

}  // namespace

std::unique_ptr<StopCondition> stop_after_trials(std::size_t n) { return std::make_unique<AfterTrials>(n); }
std::unique_ptr<StopCondition> stop_after_seconds(double seconds) { return std::make_unique<AfterSeconds>(seconds); }
std::unique_ptr<StopCondition> stop_any(std::vector<std::unique_ptr<StopCondition>> conditions) {
    return std::make_unique<AnyOf>(std::move(conditions));
}

}  // namespace mdtune::tuner
