// A Strategy over a fixed, model-ranked list.
#include "mdtune/tuner/model_guided.h"

#include <algorithm>

namespace mdtune::tuner {
namespace {

class ModelGuided : public Strategy {
public:
    ModelGuided(SystemDescriptor system, std::vector<Config> configs, MeasureSettings measure)
        : system_(std::move(system)), configs_(std::move(configs)), measure_(measure) {}

    std::string name() const override { return "model-guided"; }
    std::size_t planned() const override { return configs_.size(); }

    std::optional<Proposal> next(const std::vector<Observation>& history) override {
        while (next_ < configs_.size()) {
            const Config& c = configs_[next_++];
            const bool seen = std::any_of(history.begin(), history.end(), [&](const Observation& o) {
                return o.proposal.system.canonical() == system_.canonical() && o.proposal.config == c &&
                       o.proposal.measure.canonical() == measure_.canonical();
            });
            if (!seen) return Proposal{system_, c, measure_};
        }
        return std::nullopt;
    }

private:
    SystemDescriptor system_;
    std::vector<Config> configs_;
    MeasureSettings measure_;
    std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_model_guided(const SystemDescriptor& system, std::vector<Config> configs,
                                            const MeasureSettings& measure) {
    return std::make_unique<ModelGuided>(system, std::move(configs), measure);
}

}  // namespace mdtune::tuner
