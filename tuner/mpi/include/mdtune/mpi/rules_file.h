#pragma once
// Open MPI 4.1's classic coll_tuned dynamic rules file
// (coll_tuned_dynamic_file.c + ompi_coll_base_file_getnext_long):
//
//   NCOL
//   NCOL x { COLLECTIVE_ID  NCOMSIZES
//            NCOMSIZES x { COMM_SIZE  NMSGSIZES
//                          NMSGSIZES x { MSG_SIZE  ALGORITHM  FANINOUT  SEGSIZE } } }
//
// Numbers are read with fscanf("%li"); '#' skips to the end of the line. Open
// MPI picks the last communicator rule whose size is <= the communicator's (the
// first one when none is), then the last message rule whose size is <= the
// message's; algorithm 0 falls back to Open MPI's fixed decision. The first
// message rule of every communicator rule must be for size 0 — otherwise 4.1
// silently ignores the whole file. A file with a mistake is dropped without a
// word in release builds of Open MPI, so this parser is strict: it rejects what
// Open MPI would reject and what it would misread (octal "010", hex, signs,
// stray words), with the line number.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mdtune::mpi {

struct RulesError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct MessageRule {
    std::uint64_t msg_size = 0;  // Open MPI's measure (see catalog.h rule_message_size)
    int algorithm = 0;
    int faninout = 0;
    long segsize = 0;
    std::string comment;         // written after the numbers; not read back
    bool operator==(const MessageRule& o) const {
        return msg_size == o.msg_size && algorithm == o.algorithm && faninout == o.faninout && segsize == o.segsize;
    }
};

struct CommRule {
    int comm_size = 0;
    std::vector<MessageRule> rules;
    std::string comment;
    bool operator==(const CommRule& o) const { return comm_size == o.comm_size && rules == o.rules; }
};

struct CollectiveRules {
    int collective_id = 0;
    std::vector<CommRule> comm_rules;
    bool operator==(const CollectiveRules& o) const {
        return collective_id == o.collective_id && comm_rules == o.comm_rules;
    }
};

struct RulesFile {
    std::vector<std::string> header;  // comment lines at the top
    std::vector<CollectiveRules> collectives;
    // Equality is on what Open MPI reads; comments do not count.
    bool operator==(const RulesFile& o) const { return collectives == o.collectives; }
};

// Throws RulesError for anything Open MPI 4.1 would reject or read differently
// than meant: more than 22 collectives, an id above 21 or repeated, communicator
// or message sizes not strictly increasing, a first message size other than 0,
// an algorithm id unknown for a collective mdtune knows, values out of range.
void validate(const RulesFile& rules);

// Validates, then writes the text with comments.
std::string write_rules(const RulesFile& rules);

// Parses text of this grammar; `source` names the file in error messages
// ("rules.conf:12: ...").
RulesFile parse_rules(std::string_view text, const std::string& source = "<rules>");
RulesFile read_rules_file(const std::string& path);
void write_rules_file(const std::string& path, const RulesFile& rules);

// What Open MPI 4.1 would do for one call: nullopt when the file has no rule for
// the collective (or the communicator rule has no message rules).
struct RuleDecision {
    int algorithm = 0;
    int faninout = 0;
    long segsize = 0;
};
std::optional<RuleDecision> lookup(const RulesFile& rules, int collective_id, int comm_size, std::uint64_t msg_size);

}  // namespace mdtune::mpi
