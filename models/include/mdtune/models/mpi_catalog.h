#pragma once
// The collectives mdtune tunes and Open MPI 4.1's coll_tuned algorithms for each:
// ids as `ompi_info --param coll tuned --level 9` lists them (checked against 4.1.4),
// collective ids of the classic dynamic rules file (enum COLLTYPE in
// ompi/mca/coll/base/coll_base_functions.h) and how the rules file measures a
// message. Data only: no MPI here, so mdtune builds without MPI.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mdtune::models::mpi {

enum class Collective { Allgather, Allreduce, Alltoall, Bcast, ReduceScatter };

struct AlgorithmInfo {
    int id = 0;                  // coll_tuned_<collective>_algorithm value; 0 = Open MPI's own decision
    std::string_view name;
    bool segmented = false;      // honours the segment size (coll_tuned_<c>_algorithm_segmentsize)
    int only_ranks = 0;          // valid only for exactly this communicator size (0: any)
    int faninout = 0;            // chain fan-out the sweep forces and the rules file repeats (chain only)
    long segsize_if_zero = 0;    // swept with this instead of 0 (segmented_ring unsegmented is plain ring)
};

struct CollectiveInfo {
    Collective collective;
    std::string_view name;       // as in coll_tuned_<name>_algorithm and on mdtune's command line
    int rules_id = 0;            // collective id in the rules file
    // Open MPI compares a rule's message size against bytes-per-rank x ranks for
    // these (allgather, alltoall), against the whole buffer for the others.
    bool rule_size_times_ranks = false;
    std::span<const AlgorithmInfo> algorithms;  // without 0
};

const CollectiveInfo& info(Collective c);
std::string_view name(Collective c);
std::optional<Collective> parse_collective(std::string_view name);
// "allreduce,alltoall" -> list; throws std::invalid_argument naming a bad entry.
std::vector<Collective> parse_collectives(const std::string& csv);
std::span<const Collective> all_collectives();
// The four the issue asks for; reduce_scatter is optional.
std::vector<Collective> default_collectives();
std::optional<Collective> collective_from_rules_id(int id);

const AlgorithmInfo* find_algorithm(Collective c, int id);  // nullptr when unknown; id 0 is "default"
std::string algorithm_name(Collective c, int id);             // "default" for 0, "alg<id>" when unknown
int max_algorithm(Collective c);
// Static validity (two_proc algorithms need exactly two ranks).
bool valid_for_ranks(Collective c, int id, int ranks);

// The message size Open MPI 4.1's dynamic rules compare against for a call
// moving `bytes` in mdtune's (OSU's) convention: per-rank block for allgather and
// alltoall, the whole buffer for allreduce, bcast and reduce_scatter.
std::uint64_t rule_message_size(Collective c, std::uint64_t bytes, int ranks);

// Highest collective id 4.1 accepts (COLLCOUNT - 1).
inline constexpr int kRulesMaxCollectiveId = 21;

// "4 KiB", "1 MiB", "24 B": message sizes for comments and tables.
std::string format_bytes(std::uint64_t bytes);

}  // namespace mdtune::models::mpi
