#include "mdtune/mpi/rules_builder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace mdtune::mpi {
namespace {

// Quarter-octave steps: a threshold lands within 19 % of the predicted crossover.
std::vector<std::uint64_t> size_grid(std::uint64_t lo, std::uint64_t hi) {
    std::vector<std::uint64_t> g;
    for (int k = 0;; ++k) {
        const auto b = static_cast<std::uint64_t>(std::llround(static_cast<double>(lo) * std::pow(2.0, k / 4.0)));
        if (b > hi) break;
        if (g.empty() || b > g.back()) g.push_back(b);
    }
    if (g.empty() || g.back() != hi) g.push_back(hi);
    return g;
}

std::string us(double v) {
    char fmt_buf[64];
    std::snprintf(fmt_buf, sizeof fmt_buf, v < 10 ? "%.2f us" : v < 1000 ? "%.1f us" : "%.0f us", v);
    return fmt_buf;
}

}  // namespace

models::mpi::Site layout_for(int ranks, const std::vector<models::mpi::Site>& measured, int ppn) {
    const models::mpi::Site* pick = nullptr;
    for (const auto& s : measured)
        if (s.ranks() == ranks && (!pick || s.nodes < pick->nodes)) pick = &s;
    if (pick) return {pick->nodes, pick->ppn, 0};
    const int per_node = std::max(1, ppn);
    const int nodes = std::max(1, (ranks + per_node - 1) / per_node);
    return {nodes, (ranks + nodes - 1) / nodes, 0};
}

RulesFile build_rules(const models::mpi::SelectionModel& model, const std::vector<models::mpi::Observation>& data, const RulesOptions& opt) {
    RulesFile file;
    file.header = opt.header;
    std::vector<models::mpi::Collective> collectives = opt.collectives.empty() ? model.collectives() : opt.collectives;
    std::sort(collectives.begin(), collectives.end(),
              [](models::mpi::Collective a, models::mpi::Collective b) { return info(a).rules_id < info(b).rules_id; });
    for (const models::mpi::Collective c : collectives) {
        std::set<std::pair<int, int>> layouts;
        std::uint64_t lo = 0, hi = 0;
        for (const auto& o : data) {
            if (o.collective != c || !o.ok) continue;
            layouts.insert({o.site.nodes, o.site.ppn});
            lo = lo ? std::min(lo, o.site.bytes) : o.site.bytes;
            hi = std::max(hi, o.site.bytes);
        }
        if (layouts.empty()) continue;
        std::vector<models::mpi::Site> measured;
        int max_ppn = 1, min_ranks = 1 << 30, max_ranks = 0;
        for (const auto& [n, q] : layouts) {
            measured.push_back({n, q, 0});
            max_ppn = std::max(max_ppn, q);
            min_ranks = std::min(min_ranks, n * q);
            max_ranks = std::max(max_ranks, n * q);
        }
        std::vector<int> sizes = opt.comm_sizes;
        if (sizes.empty())
            for (int r = min_ranks; r <= max_ranks; ++r) sizes.push_back(r);
        std::sort(sizes.begin(), sizes.end());
        sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());

        CollectiveRules col;
        col.collective_id = info(c).rules_id;
        const auto grid = size_grid(lo, hi);
        for (const int ranks : sizes) {
            const models::mpi::Site layout = layout_for(ranks, measured, opt.ppn > 0 ? opt.ppn : max_ppn);
            CommRule cr;
            cr.comm_size = ranks;
            const bool was_measured = layouts.count({layout.nodes, layout.ppn}) > 0;
            cr.comment = std::to_string(layout.nodes) + " node(s) x " + std::to_string(layout.ppn) +
                         " ranks per node (" + (was_measured ? "measured layout" : "not measured: predicted") + ")";
            std::optional<models::mpi::Variant> prev;
            for (const std::uint64_t b : grid) {
                const models::mpi::Site site{layout.nodes, layout.ppn, b};
                const auto ranked = model.rank(c, site);
                const auto choice = model.best(c, site);
                const models::mpi::Variant v = choice ? choice->variant : models::mpi::Variant{};
                if (prev && *prev == v) continue;
                MessageRule m;
                m.msg_size = prev ? models::mpi::rule_message_size(c, b, ranks) : 0;
                m.algorithm = v.algorithm;
                m.faninout = v.faninout;
                m.segsize = v.segsize;
                if (info(c).rule_size_times_ranks)
                    m.comment = "= " + models::mpi::format_bytes(prev ? b : 0) + " per rank x " + std::to_string(ranks) + "; ";
                if (!ranked.empty()) {
                    m.comment += "predicted " + us(choice->latency_us) + " at " + models::mpi::format_bytes(b);
                    for (const auto& p : ranked)
                        if (p.variant.is_default() && !v.is_default())
                            m.comment += " (default " + us(p.latency_us) + ")";
                } else {
                    m.comment += "no model: Open MPI's default";
                }
                if (v.segsize > 0) m.comment += ", segments of " + models::mpi::format_bytes(static_cast<std::uint64_t>(v.segsize));
                cr.rules.push_back(m);
                prev = v;
            }
            // Open MPI applies a communicator rule up to the next one: skip repeats.
            if (!col.comm_rules.empty() && col.comm_rules.back().rules == cr.rules) continue;
            col.comm_rules.push_back(std::move(cr));
        }
        file.collectives.push_back(std::move(col));
    }
    return file;
}

}  // namespace mdtune::mpi
