#include "mdtune/mpi/rules_file.h"

#include <sys/stat.h>

#include <cctype>
#include <climits>
#include <set>
#include <sstream>

#include "mdcore/output_file.h"
#include "mdcore/text_file.h"
#include "mdtune/core/file_text.h"
#include "mdtune/models/mpi_catalog.h"

namespace mdtune::mpi {
namespace {

constexpr int kMaxCollectives = models::mpi::kRulesMaxCollectiveId + 1;  // COLLCOUNT in 4.1

std::string collective_label(int id) {
    const auto c = models::mpi::collective_from_rules_id(id);
    return "collective " + std::to_string(id) + (c ? " (" + std::string(name(*c)) + ")" : "");
}

// Comments must stay on one line: Open MPI skips from '#' to the newline only.
std::string one_line(const std::string& s) {
    std::string out = s;
    for (char& ch : out)
        if (ch == '\n' || ch == '\r') ch = ' ';
    return out;
}

// A number token with its line, for error messages.
struct Token {
    std::uint64_t value = 0;
    int line = 0;
};

class Tokens {
public:
    Tokens(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}

    [[noreturn]] void fail(int line, const std::string& what) const {
        throw RulesError(source_ + ":" + std::to_string(line) + ": " + what);
    }

    // The next number; `what` says what was expected, for the error.
    Token next(const std::string& what) {
        skip();
        // At the end, blame the line of the last number: that is where something is missing.
        if (pos_ >= text_.size()) fail(last_line_, "expected " + what + ", found the end of the file");
        const std::size_t start = pos_;
        const char c = text_[pos_];
        if (!std::isdigit(static_cast<unsigned char>(c))) {
            std::size_t end = pos_;
            while (end < text_.size() && !std::isspace(static_cast<unsigned char>(text_[end])) && text_[end] != '#') ++end;
            const std::string word(text_.substr(start, end - start));
            if (c == '-') fail(line_, "expected " + what + ", found negative number " + mdcore::quote_excerpt(word));
            fail(line_, "expected " + what + ", found " + mdcore::quote_excerpt(word) +
                            " (only decimal numbers and # comments are allowed)");
        }
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
        const std::string digits(text_.substr(start, pos_ - start));
        if (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])) && text_[pos_] != '#') {
            std::size_t end = pos_;
            while (end < text_.size() && !std::isspace(static_cast<unsigned char>(text_[end])) && text_[end] != '#') ++end;
            fail(line_, "expected " + what + ", found " + mdcore::quote_excerpt(text_.substr(start, end - start)) +
                            " (only decimal numbers and # comments are allowed)");
        }
        if (digits.size() > 1 && digits[0] == '0')
            fail(line_,
                 mdcore::quote_excerpt(digits) + " has a leading zero: Open MPI would read it as an octal number");
        if (digits.size() > 18) fail(line_, mdcore::quote_excerpt(digits) + " is too large (at most 18 digits)");
        last_line_ = line_;
        return {std::stoull(digits), line_};
    }

    // Anything but comments and blanks left over is an error (Open MPI would ignore it silently).
    void expect_end() {
        skip();
        if (pos_ < text_.size()) {
            std::size_t end = pos_;
            while (end < text_.size() && !std::isspace(static_cast<unsigned char>(text_[end]))) ++end;
            fail(line_, "unexpected " + mdcore::quote_excerpt(text_.substr(pos_, end - pos_)) +
                            " after the last rule (the counts at the top do not match the rules)");
        }
    }

private:
    void skip() {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == '\n') {
                ++line_;
                ++pos_;
            } else if (std::isspace(static_cast<unsigned char>(c))) {
                ++pos_;
            } else if (c == '#') {
                while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
            } else {
                break;
            }
        }
    }
    std::string_view text_;
    std::string source_;
    std::size_t pos_ = 0;
    int line_ = 1, last_line_ = 1;
};

int to_int(const Tokens& t, const Token& tok, const std::string& what) {
    if (tok.value > static_cast<std::uint64_t>(INT_MAX))
        t.fail(tok.line, what + " " + std::to_string(tok.value) + " is too large (at most " + std::to_string(INT_MAX) + ")");
    return static_cast<int>(tok.value);
}

void check_algorithm(int collective_id, int algorithm, const std::string& where) {
    const auto c = models::mpi::collective_from_rules_id(collective_id);
    if (c && algorithm != 0 && !models::mpi::find_algorithm(*c, algorithm))
        throw RulesError(where + ": algorithm " + std::to_string(algorithm) + " is not a coll_tuned algorithm of " +
                         std::string(name(*c)) + " (1.." + std::to_string(models::mpi::max_algorithm(*c)) + ", 0 = Open MPI's default)");
}

}  // namespace

void validate(const RulesFile& rules) {
    if (rules.collectives.size() > static_cast<std::size_t>(kMaxCollectives))
        throw RulesError("rules for " + std::to_string(rules.collectives.size()) +
                         " collectives; Open MPI 4.1 knows at most " + std::to_string(kMaxCollectives));
    std::set<int> seen;
    for (const auto& col : rules.collectives) {
        const std::string label = collective_label(col.collective_id);
        if (col.collective_id < 0 || col.collective_id > models::mpi::kRulesMaxCollectiveId)
            throw RulesError(label + ": collective ids run from 0 to " + std::to_string(models::mpi::kRulesMaxCollectiveId));
        if (!seen.insert(col.collective_id).second) throw RulesError(label + " appears twice");
        int prev_comm = -1;
        for (const auto& cr : col.comm_rules) {
            const std::string where = label + ", communicator size " + std::to_string(cr.comm_size);
            if (cr.comm_size < 0) throw RulesError(where + ": negative communicator size");
            if (cr.comm_size <= prev_comm)
                throw RulesError(where + ": communicator sizes must increase (Open MPI takes the last one not above the size)");
            prev_comm = cr.comm_size;
            if (!cr.rules.empty() && cr.rules.front().msg_size != 0)
                throw RulesError(where + ": the first message rule must be for size 0 (Open MPI 4.1 ignores the whole file otherwise)");
            std::uint64_t prev_msg = 0;
            for (std::size_t k = 0; k < cr.rules.size(); ++k) {
                const MessageRule& m = cr.rules[k];
                const std::string at = where + ", message size " + std::to_string(m.msg_size);
                if (k > 0 && m.msg_size <= prev_msg) throw RulesError(at + ": message sizes must increase");
                prev_msg = m.msg_size;
                if (m.algorithm < 0 || m.faninout < 0 || m.segsize < 0) throw RulesError(at + ": negative value");
                check_algorithm(col.collective_id, m.algorithm, at);
            }
        }
    }
}

std::string write_rules(const RulesFile& rules) {
    validate(rules);
    std::ostringstream out;
    for (const auto& h : rules.header) out << "# " << one_line(h) << "\n";
    out << rules.collectives.size() << " # number of collectives\n";
    for (const auto& col : rules.collectives) {
        const auto c = models::mpi::collective_from_rules_id(col.collective_id);
        out << "\n" << col.collective_id << " # collective id" << (c ? ": " + std::string(name(*c)) : "") << "\n";
        out << col.comm_rules.size() << " # number of communicator sizes\n";
        for (const auto& cr : col.comm_rules) {
            out << cr.comm_size << " # communicator size" << (cr.comment.empty() ? "" : ": " + one_line(cr.comment))
                << "\n";
            out << cr.rules.size() << " # number of message sizes\n";
            for (const auto& m : cr.rules) {
                out << m.msg_size << " " << m.algorithm << " " << m.faninout << " " << m.segsize;
                std::string note = "from " + models::mpi::format_bytes(m.msg_size) + ": " +
                                   (c ? models::mpi::algorithm_name(*c, m.algorithm) : "algorithm " + std::to_string(m.algorithm));
                if (!m.comment.empty()) note += "; " + m.comment;
                out << " # " << one_line(note) << "\n";
            }
        }
    }
    return out.str();
}

RulesFile parse_rules(std::string_view text, const std::string& source) {
    Tokens t(text, source);
    if (const std::size_t line = mdcore::first_long_line(text))
        t.fail(static_cast<int>(line),
               "line is longer than the limit of " + mdcore::size_text(mdcore::kMaxInputLineBytes));
    RulesFile rules;
    const Token ncol = t.next("the number of collectives");
    if (ncol.value > static_cast<std::uint64_t>(kMaxCollectives))
        t.fail(ncol.line, std::to_string(ncol.value) + " collectives; Open MPI 4.1 knows at most " +
                              std::to_string(kMaxCollectives));
    std::set<int> seen;
    for (std::uint64_t i = 0; i < ncol.value; ++i) {
        CollectiveRules col;
        const Token id = t.next("a collective id (" + std::to_string(i + 1) + " of " + std::to_string(ncol.value) + ")");
        if (id.value > static_cast<std::uint64_t>(models::mpi::kRulesMaxCollectiveId))
            t.fail(id.line, "collective id " + std::to_string(id.value) + " is above " +
                                std::to_string(models::mpi::kRulesMaxCollectiveId));
        col.collective_id = static_cast<int>(id.value);
        const std::string label = collective_label(col.collective_id);
        if (!seen.insert(col.collective_id).second) t.fail(id.line, label + " appears twice");
        const Token ncs = t.next("the number of communicator sizes of " + label);
        const int ncomm = to_int(t, ncs, "number of communicator sizes");
        int prev_comm = -1;
        for (int k = 0; k < ncomm; ++k) {
            CommRule cr;
            const Token cs = t.next("a communicator size of " + label);
            cr.comm_size = to_int(t, cs, "communicator size");
            if (cr.comm_size <= prev_comm)
                t.fail(cs.line, label + ": communicator size " + std::to_string(cr.comm_size) + " after " +
                                    std::to_string(prev_comm) + "; sizes must increase");
            prev_comm = cr.comm_size;
            const std::string where = label + ", communicator size " + std::to_string(cr.comm_size);
            const Token nms = t.next("the number of message sizes of " + where);
            const int nmsg = to_int(t, nms, "number of message sizes");
            for (int m = 0; m < nmsg; ++m) {
                MessageRule r;
                const Token ms = t.next("a message size of " + where);
                r.msg_size = ms.value;
                if (m == 0 && r.msg_size != 0)
                    t.fail(ms.line, where + ": the first message rule is for size " + std::to_string(r.msg_size) +
                                        "; it must be 0 (Open MPI 4.1 ignores the whole file otherwise)");
                if (m > 0 && r.msg_size <= cr.rules.back().msg_size)
                    t.fail(ms.line, where + ": message size " + std::to_string(r.msg_size) + " after " +
                                        std::to_string(cr.rules.back().msg_size) + "; sizes must increase");
                const std::string at = where + ", message size " + std::to_string(r.msg_size);
                const Token alg = t.next("the algorithm of " + at);
                r.algorithm = to_int(t, alg, "algorithm");
                try {
                    check_algorithm(col.collective_id, r.algorithm, at);
                } catch (const RulesError& e) {
                    t.fail(alg.line, e.what());
                }
                r.faninout = to_int(t, t.next("the fan-in/out of " + at), "fan-in/out");
                const Token seg = t.next("the segment size of " + at);
                if (seg.value > static_cast<std::uint64_t>(LONG_MAX))
            t.fail(seg.line, "segment size " + std::to_string(seg.value) + " is too large (at most " +
                                 std::to_string(LONG_MAX) + ")");
                r.segsize = static_cast<long>(seg.value);
                cr.rules.push_back(r);
            }
            col.comm_rules.push_back(std::move(cr));
        }
        rules.collectives.push_back(std::move(col));
    }
    t.expect_end();
    return rules;
}

RulesFile read_rules_file(const std::string& path) {
    const FileText file = read_file_text(path);
    if (!file.ok()) throw RulesError(path + ": cannot read the rules file: it " + file.error);
    return parse_rules(file.text, path);
}

void write_rules_file(const std::string& path, const RulesFile& rules) {
    const std::string text = write_rules(rules);
    // Write beside and rename: a reader (a running mpirun) never sees half a file.
    const std::string tmp = path + ".tmp";
    // The rename would replace a device or a pipe by a regular file.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw RulesError(path + ": not a regular file (a rules file is written beside and renamed into place)");
    try {
        mdcore::write_text_file(tmp, text);
    } catch (const std::runtime_error& e) {
        throw RulesError(path + ": cannot write the rules file (" + e.what() + ")");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw RulesError(path + ": cannot rename " + tmp + " into place");
    }
}

std::optional<RuleDecision> lookup(const RulesFile& rules, int collective_id, int comm_size, std::uint64_t msg_size) {
    for (const auto& col : rules.collectives) {
        if (col.collective_id != collective_id || col.comm_rules.empty()) continue;
        // ompi_coll_tuned_get_com_rule_ptr: the last rule not above the size, else the first.
        const CommRule* cr = &col.comm_rules.front();
        for (const auto& c : col.comm_rules)
            if (c.comm_size <= comm_size) cr = &c;
        if (cr->rules.empty()) return std::nullopt;
        // ompi_coll_tuned_get_target_method_params: the last rule not above the message size.
        const MessageRule* m = &cr->rules.front();
        for (const auto& r : cr->rules) {
            if (r.msg_size > msg_size) break;
            m = &r;
        }
        return RuleDecision{m->algorithm, m->faninout, m->segsize};
    }
    return std::nullopt;
}

}  // namespace mdtune::mpi
