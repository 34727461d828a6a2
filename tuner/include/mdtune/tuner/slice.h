#pragma once
// Slices of a search space for Slurm array tasks: slice i of M holds every M-th
// point of a fixed enumeration (each system's default config, then its configs
// in space order), so the partition is the same on every machine, no point is in
// two slices, and the union of the slices is what a local sweep measures.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "mdtune/tuner/strategy.h"

namespace mdtune::tuner {

struct SliceSpec {
    int index = 0;  // 0 .. count-1
    int count = 1;
};

// "i/M" with 0 <= i < M; throws std::invalid_argument naming the text and the limit.
SliceSpec parse_slice(const std::string& text);

// Every point of the space, feasible or not (feasibility depends on the node,
// the partition must not): per system its default config first, then each config
// of the space not equal to it. Measure settings are the space's.
std::vector<Proposal> enumerate_points(const SearchSpace& space);
// The points of one slice, in enumeration order.
std::vector<Proposal> slice_points(const SearchSpace& space, SliceSpec slice);
// Number of slices needed for at most trials_per_task points each (at least 1).
int slice_count(const SearchSpace& space, int trials_per_task);

// Membership test by (system, config) canonical text.
class SliceFilter {
public:
    SliceFilter(const SearchSpace& space, SliceSpec slice);
    bool contains(const SystemDescriptor& system, const Config& config) const;
    std::size_t size() const { return keys_.size(); }
    // Proposals a strategy will make in this slice: feasible points other than the
    // default configs (the sweep measures those itself, as baselines).
    std::size_t planned_proposals(const SearchSpace& space, const HardwareCaps& hw) const;

private:
    std::vector<Proposal> points_;
    std::set<std::string> keys_;
};

// Proposes only the inner strategy's proposals that fall into the slice. Works for
// strategies that hand out distinct points without waiting for results
// (exhaustive, random); successive halving waits on whole rungs and is refused by
// the sweep command.
std::unique_ptr<Strategy> restrict_to_slice(std::unique_ptr<Strategy> inner, SliceFilter filter,
                                            std::size_t planned);

}  // namespace mdtune::tuner
