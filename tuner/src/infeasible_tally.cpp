// Counting infeasible points by reason, so a sweep can say what it dropped and why
// instead of silently measuring less than the space names.
#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

#include "mdtune/tuner/space.h"

namespace mdtune::tuner {
namespace {

// A reason with its numbers blanked: "threads = 18 exceeds the 2 hardware threads"
// and "threads = 4096 exceeds ..." are one kind of reason, reported together.
std::string shape_of(const std::string& reason) {
    std::string out;
    for (std::size_t i = 0; i < reason.size();) {
        if (std::isdigit(static_cast<unsigned char>(reason[i]))) {
            while (i < reason.size() && (std::isdigit(static_cast<unsigned char>(reason[i])) || reason[i] == '.')) ++i;
            out += '#';
        } else {
            out += reason[i++];
        }
    }
    return out;
}

struct ReasonGroup {
    std::uint64_t count = 0;
    std::string example;            // its most frequent text
    std::uint64_t example_count = 0;
    std::size_t texts = 0;          // distinct texts in the group
};

}  // namespace

void InfeasibleTally::add(const std::string& reason) {
    ++examined;
    if (reason.empty()) return;
    ++dropped;
    // Reasons carry values (threads = 4096, pme_scale = 1.6); a space can hold many,
    // so distinct texts are capped and the rest counted together.
    auto it = by_reason.find(reason);
    if (it == by_reason.end() && by_reason.size() >= kMaxReasons) it = by_reason.try_emplace("other reasons", 0).first;
    else if (it == by_reason.end()) it = by_reason.emplace(reason, 0).first;
    ++it->second;
}

std::string InfeasibleTally::summary(std::size_t max_reasons) const {
    if (dropped == 0) return "";
    std::map<std::string, ReasonGroup> groups;
    for (const auto& [text, count] : by_reason) {
        ReasonGroup& g = groups[shape_of(text)];
        g.count += count;
        ++g.texts;
        if (count > g.example_count) g.example = text, g.example_count = count;
    }
    std::vector<ReasonGroup> sorted;
    for (auto& entry : groups) sorted.push_back(std::move(entry.second));
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.count > b.count; });
    std::string text = std::to_string(dropped) + " of " + std::to_string(examined) + " (system, config) points" +
                       (complete ? "" : " checked so far") + " dropped as infeasible on this machine: ";
    std::uint64_t shown = 0;
    for (std::size_t k = 0; k < sorted.size() && k < max_reasons; ++k) {
        const ReasonGroup& g = sorted[k];
        text += (k ? "; " : "") + g.example;
        if (g.texts > 1) text += " and " + std::to_string(g.texts - 1) + " more like it";
        text += " (" + std::to_string(g.count) + ")";
        shown += g.count;
    }
    if (shown < dropped)
        text += "; " + std::to_string(dropped - shown) + " more for " + std::to_string(sorted.size() - max_reasons) +
                " other reasons";
    return text;
}

}  // namespace mdtune::tuner
