#include "mdtune/tuner/slice.h"

#include <charconv>
#include <stdexcept>

namespace mdtune::tuner {
namespace {

std::string point_key(const SystemDescriptor& system, const Config& config) {
    return system.canonical() + "|" + config.canonical();
}

bool parse_int(const std::string& text, int& out) {
    if (text.empty()) return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

class SliceStrategy : public Strategy {
public:
    SliceStrategy(std::unique_ptr<Strategy> inner, SliceFilter filter, std::size_t planned)
        : inner_(std::move(inner)), filter_(std::move(filter)), planned_(planned) {}
    std::string name() const override { return inner_->name(); }
    std::size_t planned() const override { return planned_; }
    std::optional<Proposal> next(const std::vector<Observation>& history) override {
        // The inner strategy never proposes a point twice, so this loop ends.
        while (auto p = inner_->next(history))
            if (filter_.contains(p->system, p->config)) return p;
        return std::nullopt;
    }

private:
    std::unique_ptr<Strategy> inner_;
    SliceFilter filter_;
    std::size_t planned_;
};

}  // namespace

SliceSpec parse_slice(const std::string& text) {
    const auto slash = text.find('/');
    SliceSpec s;
    if (slash == std::string::npos || !parse_int(text.substr(0, slash), s.index) ||
        !parse_int(text.substr(slash + 1), s.count))
        throw std::invalid_argument("'" + text + "' is not i/M (e.g. 0/4)");
    if (s.count < 1) throw std::invalid_argument("'" + text + "': M must be at least 1");
    if (s.index < 0 || s.index >= s.count)
        throw std::invalid_argument("'" + text + "': i must be 0 to " + std::to_string(s.count - 1));
    return s;
}

std::vector<Proposal> enumerate_points(const SearchSpace& space) {
    std::vector<Proposal> out;
    const std::vector<Config> configs = space.configs();
    for (const SystemDescriptor& system : space.systems) {
        std::set<std::string> seen{Config{}.canonical()};
        out.push_back(Proposal{system, Config{}, space.measure});
        for (const Config& c : configs)
            if (seen.insert(c.canonical()).second) out.push_back(Proposal{system, c, space.measure});
    }
    return out;
}

std::vector<Proposal> slice_points(const SearchSpace& space, SliceSpec slice) {
    std::vector<Proposal> all = enumerate_points(space);
    std::vector<Proposal> out;
    for (std::size_t k = static_cast<std::size_t>(slice.index); k < all.size(); k += static_cast<std::size_t>(slice.count))
        out.push_back(std::move(all[k]));
    return out;
}

int slice_count(const SearchSpace& space, int trials_per_task) {
    if (trials_per_task < 1) throw std::invalid_argument("trials per task must be at least 1");
    const std::size_t n = enumerate_points(space).size();
    const std::size_t per = static_cast<std::size_t>(trials_per_task);
    return static_cast<int>(std::max<std::size_t>(1, (n + per - 1) / per));
}

SliceFilter::SliceFilter(const SearchSpace& space, SliceSpec slice) : points_(slice_points(space, slice)) {
    for (const Proposal& p : points_) keys_.insert(point_key(p.system, p.config));
}

std::size_t SliceFilter::planned_proposals(const SearchSpace& space, const HardwareCaps& hw) const {
    std::size_t n = 0;
    for (const Proposal& p : points_)
        if (!p.config.canonical().empty() && space.infeasible_reason(p.system, p.config, hw).empty()) ++n;
    return n;
}

bool SliceFilter::contains(const SystemDescriptor& system, const Config& config) const {
    return keys_.count(point_key(system, config)) > 0;
}

std::unique_ptr<Strategy> restrict_to_slice(std::unique_ptr<Strategy> inner, SliceFilter filter,
                                            std::size_t planned) {
    return std::make_unique<SliceStrategy>(std::move(inner), std::move(filter), planned);
}

}  // namespace mdtune::tuner
