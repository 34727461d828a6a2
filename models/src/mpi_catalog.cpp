#include "mdtune/models/mpi_catalog.h"

#include <array>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace mdtune::models::mpi {
namespace {

// Ids and names: Open MPI 4.1.4, `ompi_info --param coll tuned --level 9`.
constexpr AlgorithmInfo kAllgather[] = {
    {1, "linear"}, {2, "bruck"}, {3, "recursive_doubling"}, {4, "ring"}, {5, "neighbor"}, {6, "two_proc", false, 2},
};
constexpr AlgorithmInfo kAllreduce[] = {
    {1, "basic_linear"}, {2, "nonoverlapping"}, {3, "recursive_doubling"},
    {4, "ring"},         {5, "segmented_ring", true, 0, 0, 65536}, {6, "rabenseifner"},
};
constexpr AlgorithmInfo kAlltoall[] = {
    {1, "linear"}, {2, "pairwise"}, {3, "modified_bruck"}, {4, "linear_sync"}, {5, "two_proc", false, 2},
};
constexpr AlgorithmInfo kBcast[] = {
    {1, "basic_linear"},
    {2, "chain", true, 0, 4},  // coll_tuned_bcast_algorithm_chain_fanout default
    {3, "pipeline", true},
    {4, "split_binary_tree", true},
    {5, "binary_tree", true},
    {6, "binomial", true},
    {7, "knomial", true},
    {8, "scatter_allgather", true},
    {9, "scatter_allgather_ring", true},
};
constexpr AlgorithmInfo kReduceScatter[] = {
    {1, "non-overlapping"}, {2, "recursive_halving"}, {3, "ring"}, {4, "butterfly"},
};

// rules ids: ALLGATHER=0, ALLREDUCE=2, ALLTOALL=3, BCAST=7, REDUCESCATTER=12.
const std::array<CollectiveInfo, 5> kInfos{{
    {Collective::Allgather, "allgather", 0, true, kAllgather},
    {Collective::Allreduce, "allreduce", 2, false, kAllreduce},
    {Collective::Alltoall, "alltoall", 3, true, kAlltoall},
    {Collective::Bcast, "bcast", 7, false, kBcast},
    {Collective::ReduceScatter, "reduce_scatter", 12, false, kReduceScatter},
}};

constexpr std::array<Collective, 5> kAll{Collective::Allgather, Collective::Allreduce, Collective::Alltoall,
                                         Collective::Bcast, Collective::ReduceScatter};

}  // namespace

const CollectiveInfo& info(Collective c) { return kInfos[static_cast<std::size_t>(c)]; }
std::string_view name(Collective c) { return info(c).name; }

std::optional<Collective> parse_collective(std::string_view n) {
    for (const auto& i : kInfos)
        if (i.name == n) return i.collective;
    if (n == "reducescatter" || n == "reduce-scatter") return Collective::ReduceScatter;
    return std::nullopt;
}

std::vector<Collective> parse_collectives(const std::string& csv) {
    std::vector<Collective> out;
    std::stringstream in(csv);
    for (std::string item; std::getline(in, item, ',');) {
        if (item.empty()) continue;
        const auto c = parse_collective(item);
        if (!c)
            throw std::invalid_argument("unknown collective '" + item +
                                        "' (allreduce, alltoall, bcast, allgather, reduce_scatter)");
        bool seen = false;
        for (auto x : out) seen = seen || x == *c;
        if (!seen) out.push_back(*c);
    }
    if (out.empty()) throw std::invalid_argument("no collective given");
    return out;
}

std::span<const Collective> all_collectives() { return kAll; }

std::vector<Collective> default_collectives() {
    return {Collective::Allreduce, Collective::Alltoall, Collective::Bcast, Collective::Allgather};
}

std::optional<Collective> collective_from_rules_id(int id) {
    for (const auto& i : kInfos)
        if (i.rules_id == id) return i.collective;
    return std::nullopt;
}

const AlgorithmInfo* find_algorithm(Collective c, int id) {
    for (const auto& a : info(c).algorithms)
        if (a.id == id) return &a;
    return nullptr;
}

std::string algorithm_name(Collective c, int id) {
    if (id == 0) return "default";
    const auto* a = find_algorithm(c, id);
    return a ? std::string(a->name) : "alg" + std::to_string(id);
}

int max_algorithm(Collective c) {
    int m = 0;
    for (const auto& a : info(c).algorithms) m = std::max(m, a.id);
    return m;
}

bool valid_for_ranks(Collective c, int id, int ranks) {
    if (id == 0) return true;
    const auto* a = find_algorithm(c, id);
    return a && (a->only_ranks == 0 || a->only_ranks == ranks);
}

std::uint64_t rule_message_size(Collective c, std::uint64_t bytes, int ranks) {
    return info(c).rule_size_times_ranks ? bytes * static_cast<std::uint64_t>(ranks) : bytes;
}

std::string format_bytes(std::uint64_t b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    double v = static_cast<double>(b);
    while (u < 3 && v >= 1024) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    if (v == static_cast<double>(static_cast<long>(v))) std::snprintf(buf, sizeof buf, "%ld %s", static_cast<long>(v), units[u]);
    else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}

}  // namespace mdtune::models::mpi
