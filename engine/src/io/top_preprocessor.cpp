#include "io/top_preprocessor.h"

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "mdcore/gromacs_input.h"
#include "mdcore/text_file.h"

namespace mdcore::input {
namespace {

namespace fs = std::filesystem;

bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// grompp's word boundaries are exactly these characters ('.' and '-' end a word), so
// a macro name made of anything else could never be substituted as a whole word.
bool is_identifier(std::string_view s) {
    if (s.empty() || is_digit(s.front())) return false;
    for (const char c : s)
        if (!is_ident_char(c)) return false;
    return true;
}

std::string_view rtrim(std::string_view s) {
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

const std::string kMacroNameRule = "(letters, digits and '_', not starting with a digit)";

// Lookups by string_view, so that testing a token for being a macro allocates nothing.
struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using MacroMap = std::unordered_map<std::string, std::string, StringHash, std::equal_to<>>;

// The whole file as text; on failure, why, as the end of a sentence about the file.
std::string load_text(const std::string& path, std::string& text) {
    return read_text_file(path, kMaxTopologyFileBytes, text);
}

// The next physical line at pos, its CR of a CRLF end dropped; false at the end.
bool next_line(std::string_view text, std::size_t& pos, std::string_view& line) {
    if (pos >= text.size()) return false;
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return true;
}

// An open #ifdef/#ifndef of the file being read.
struct Conditional {
    Where where;
    std::string directive;  // "#ifdef NAME", for messages
    bool outer_active;      // whether the enclosing lines are taken
    bool value;             // the condition
    bool in_else = false;
    bool active() const { return outer_active && (in_else ? !value : value); }
};

class Preprocessor {
public:
    explicit Preprocessor(const PreprocessOptions& options) {
        for (const std::string& dir : options.include_dirs) add_search_dir(dir);
        for (const std::string& dir : default_topology_dirs()) add_search_dir(dir);
        for (const auto& [name, value] : options.defines) {
            if (!is_identifier(name))
                throw InputError("the define " + quote_excerpt(name) + " given for this run is not a macro name " +
                                 kMacroNameRule);
            macros_[name] = std::string(trim(value));
        }
    }

    std::vector<PreprocessedLine> run(const std::string& path) {
        std::string text;
        const std::string why = load_text(path, text);
        if (!why.empty()) throw InputError(path + ": cannot open topology file: it " + why);
        total_bytes_ = text.size();
        open_.push_back(canonical_key(path));
        process_file(path, text, "");
        return std::move(out_);
    }

private:
    void add_search_dir(const std::string& dir) {
        for (const std::string& d : search_dirs_)
            if (d == dir) return;
        search_dirs_.push_back(dir);
    }

    static fs::path canonical_key(const std::string& path) {
        std::error_code ec;
        fs::path key = fs::weakly_canonical(path, ec);
        if (ec) key = fs::absolute(path, ec).lexically_normal();
        return key;
    }

    void process_file(const std::string& file, std::string_view text, const std::string& context) {
        // Conditionals do not span files, as in grompp: each file must balance its own.
        std::vector<Conditional> conds;
        std::size_t pos = 0;
        int line_no = 0;
        std::string joined;
        std::string_view physical;
        while (next_line(text, pos, physical)) {
            const int first_line = ++line_no;
            check_line(file, line_no, context, physical);
            std::string_view logical = physical;
            std::string_view body = rtrim(physical);
            if (!body.empty() && body.back() == '\\') {
                // Joined before the comment is removed, as grompp does: a comment that
                // ends in '\' swallows the next line.
                joined.assign(body.substr(0, body.size() - 1));
                while (next_line(text, pos, physical)) {
                    check_line(file, ++line_no, context, physical);
                    body = rtrim(physical);
                    const bool more = !body.empty() && body.back() == '\\';
                    joined += ' ';
                    joined.append(more ? body.substr(0, body.size() - 1) : body);
                    if (joined.size() > kMaxTopologyLineBytes)
                        fail({file, first_line, context},
                             "continued line (joined with '\\') is longer than the limit of " +
                                 size_text(kMaxTopologyLineBytes));
                    if (!more) break;
                }
                logical = joined;
            }
            const std::string_view t = trim(logical.substr(0, logical.find(';')));
            if (t.empty()) continue;
            if (t.front() == '#') {
                directive(Where{file, first_line, context}, t, conds);
            } else if (conds.empty() || conds.back().active()) {
                emit(Where{file, first_line, context}, t);
            }
        }
        if (!conds.empty())
            fail(conds.back().where, quote_excerpt(conds.back().directive) + " has no matching #endif before " + file +
                                         " ends at line " + std::to_string(line_no));
    }

    static void check_line(const std::string& file, int line_no, const std::string& context, std::string_view line) {
        if (line.size() > kMaxTopologyLineBytes)
            fail({file, line_no, context}, "line is longer than the limit of " + size_text(kMaxTopologyLineBytes));
        if (line.find('\0') != std::string_view::npos)
            fail({file, line_no, context}, "line contains a NUL byte (not a text file?)");
    }

    void directive(const Where& where, std::string_view line, std::vector<Conditional>& conds) {
        std::string_view rest = trim(line.substr(1));
        std::size_t n = 0;
        while (n < rest.size() && is_ident_char(rest[n])) ++n;
        const std::string keyword(rest.substr(0, n));
        const std::string_view arg = trim(rest.substr(n));
        const bool active = conds.empty() || conds.back().active();

        if (keyword == "ifdef" || keyword == "ifndef") {
            bool value = false;
            if (active) {
                const std::string_view name = single_name(where, keyword, arg);
                value = macros_.find(name) != macros_.end();
                if (keyword == "ifndef") value = !value;
            }
            conds.push_back({where, "#" + keyword + " " + std::string(arg), active, value});
            return;
        }
        if (keyword == "else") {
            // Trailing text ("#else ; FLEXIBLE" leaves none, "#else POSRES" some) is ignored, as in grompp.
            if (conds.empty()) fail(where, "#else without a matching #ifdef or #ifndef in this file");
            Conditional& c = conds.back();
            if (c.in_else)
                fail(where, "second #else for " + quote_excerpt(c.directive) + " at " + c.where.file + ":" +
                                std::to_string(c.where.line));
            c.in_else = true;
            return;
        }
        if (keyword == "endif") {
            if (conds.empty()) fail(where, "#endif without a matching #ifdef or #ifndef in this file");
            conds.pop_back();
            return;
        }
        // Refused even in a skipped branch: their #endif would otherwise close the wrong #ifdef.
        if (keyword == "if" || keyword == "elif")
            fail(where, "preprocessor directive #" + keyword +
                            " is not supported (only #ifdef, #ifndef, #else and #endif conditionals)");
        if (!active) return;  // #include, #define and anything else in a skipped branch

        if (keyword == "include") return include(where, arg);
        if (keyword == "define") return define(where, arg);
        if (keyword == "undef") {
            const auto it = macros_.find(single_name(where, keyword, arg));
            if (it != macros_.end()) macros_.erase(it);
            return;
        }
        if (keyword.empty())
            fail(where, "malformed preprocessor line " + quote_excerpt(line) + " (expected '#' and a directive name)");
        fail(where, "preprocessor directive " + quote_excerpt("#" + keyword) +
                        " is not supported (supported: #include, #define, #undef, #ifdef, #ifndef, #else, #endif)");
    }

    static std::string_view single_name(const Where& where, const std::string& keyword, std::string_view arg) {
        if (arg.empty()) fail(where, "#" + keyword + " needs a macro name");
        if (!is_identifier(arg))
            fail(where, "#" + keyword + " expects one macro name " + kMacroNameRule + ", not " + quote_excerpt(arg));
        return arg;
    }

    void define(const Where& where, std::string_view arg) {
        if (arg.empty()) fail(where, "#define needs a macro name");
        std::size_t n = 0;
        while (n < arg.size() && !is_space(arg[n])) ++n;
        const std::string_view name = arg.substr(0, n);
        if (!is_identifier(name))
            fail(where, "#define name " + quote_excerpt(name) + " is not a macro name " + kMacroNameRule);
        macros_.insert_or_assign(std::string(name), std::string(trim(arg.substr(n))));
    }

    void include(const Where& where, std::string_view arg) {
        const char open = arg.empty() ? '\0' : arg.front();
        const std::size_t close = open == '"'   ? arg.find('"', 1)
                                  : open == '<' ? arg.find('>', 1)
                                                : std::string_view::npos;
        if (close == std::string_view::npos)
            fail(where,
                 "malformed #include " + quote_excerpt(arg) + " (expected #include \"file\" or #include <file>)");
        const std::string name(arg.substr(1, close - 1));
        if (name.empty()) fail(where, "#include with an empty file name");
        if (!trim(arg.substr(close + 1)).empty())
            fail(where, "unexpected text " + quote_excerpt(trim(arg.substr(close + 1))) + " after #include " +
                            quote_excerpt(name, open == '"' ? '"' : '<'));

        // grompp searches "file" and <file> alike: the including file's folder, -I, the library.
        std::vector<std::string> candidates;
        std::vector<std::string> searched;
        if (fs::path(name).is_absolute()) {
            candidates.push_back(name);
        } else {
            const fs::path here = fs::path(where.file).parent_path();
            candidates.push_back(here.empty() ? name : (here / name).string());
            searched.push_back(here.empty() ? "." : here.string());
            for (const std::string& dir : search_dirs_) {
                candidates.push_back((fs::path(dir) / name).string());
                searched.push_back(dir);
            }
        }
        std::string found;
        for (const std::string& candidate : candidates) {
            std::error_code ec;
            if (fs::exists(fs::status(candidate, ec))) {
                found = candidate;
                break;
            }
        }
        if (found.empty()) {
            std::string message = "cannot find included file " + quote_excerpt(name, '"');
            if (!searched.empty()) {
                message += " (searched ";
                for (std::size_t i = 0; i < searched.size(); ++i) message += (i ? ", " : "") + searched[i];
                message += ")";
            }
            fail(where, message);
        }

        const fs::path key = canonical_key(found);
        for (const fs::path& open_file : open_)
            if (open_file == key)
                fail(where,
                     "recursive #include of " + quote_excerpt(name, '"') + " (" + found + " is already being read)");
        if (open_.size() >= static_cast<std::size_t>(kMaxIncludeDepth))
            fail(where, "#include " + quote_excerpt(name, '"') + " nests deeper than the limit of " +
                            std::to_string(kMaxIncludeDepth) + " files");

        std::string text;
        const std::string why = load_text(found, text);
        if (!why.empty())
            fail(where, "cannot open included file " + quote_excerpt(name, '"') + ": " + found + " " + why);
        total_bytes_ += text.size();
        // Includes that are not recursive can still multiply (each file including the next one twice).
        if (total_bytes_ > kMaxTopologyTotalBytes)
            fail(where, "the topology and its included files exceed the limit of " + size_text(kMaxTopologyTotalBytes) +
                            " in total (counting each time a file is included)");

        sites_.push_back(where.file + ":" + std::to_string(where.line));
        std::string context = " (included from ";
        for (std::size_t i = 0; i < sites_.size(); ++i) context += (i ? ", " : "") + sites_[i];
        context += ")";
        open_.push_back(key);
        process_file(found, text, context);
        open_.pop_back();
        sites_.pop_back();
    }

    void emit(Where where, std::string_view line) {
        std::string text(line);
        if (!macros_.empty()) expand(where, text);
        out_.push_back({std::move(where), std::move(text)});
    }

    // Substitutes macros until nothing changes, so a value may use macros defined
    // before or after it.
    void expand(const Where& where, std::string& text) {
        std::string next;
        std::string_view last_macro;
        for (int round = 0;; ++round) {
            if (!substitute_once(where, text, next, last_macro) || next == text) return;
            if (round + 1 >= kMaxMacroRounds)
                fail(where, "macro " + quote_excerpt(last_macro) + " still expands after " +
                                std::to_string(kMaxMacroRounds) +
                                " rounds (a #define that refers to itself, directly or through others?)");
            text.swap(next);
        }
    }

    // One pass over the whole-word tokens of in; false when none is a macro with a
    // value (empty ones, like #define FLEXIBLE, are left in place as grompp does).
    bool substitute_once(const Where& where, const std::string& in, std::string& out, std::string_view& last_macro) {
        bool replaced = false;
        std::size_t copied = 0;
        std::size_t i = 0;
        while (i < in.size()) {
            if (!is_ident_char(in[i])) {
                ++i;
                continue;
            }
            std::size_t j = i;
            while (j < in.size() && is_ident_char(in[j])) ++j;
            if (!is_digit(in[i])) {
                const auto it = macros_.find(std::string_view(in).substr(i, j - i));
                if (it != macros_.end() && !it->second.empty()) {
                    if (!replaced) out.clear();
                    replaced = true;
                    last_macro = it->first;
                    out.append(in, copied, i - copied);
                    out += it->second;
                    copied = j;
                    if (out.size() > kMaxTopologyLineBytes)
                        fail(where, "line is longer than the limit of " + size_text(kMaxTopologyLineBytes) +
                                        " after substituting macro " + quote_excerpt(it->first));
                }
            }
            i = j;
        }
        if (replaced) out.append(in, copied, std::string::npos);
        return replaced;
    }

    std::vector<std::string> search_dirs_;
    MacroMap macros_;
    std::vector<fs::path> open_;      // canonical paths of the files being read, the top one first
    std::vector<std::string> sites_;  // "file:line" of each #include being followed
    std::size_t total_bytes_ = 0;
    std::vector<PreprocessedLine> out_;
};

}  // namespace

std::vector<PreprocessedLine> preprocess_topology(const std::string& path, const PreprocessOptions& options) {
    return Preprocessor(options).run(path);
}

std::vector<std::string> default_topology_dirs() {
    std::vector<std::string> dirs;
    const auto add = [&dirs](std::string dir) {
        if (dir.empty()) return;
        for (const std::string& d : dirs)
            if (d == dir) return;
        dirs.push_back(std::move(dir));
    };
    if (const char* lib = std::getenv("GMXLIB")) {
        std::string_view rest(lib);
        while (true) {
            const std::size_t colon = rest.find(':');
            add(std::string(rest.substr(0, colon)));
            if (colon == std::string_view::npos) break;
            rest.remove_prefix(colon + 1);
        }
    }
    if (const char* data = std::getenv("GMXDATA"); data && *data) add((fs::path(data) / "top").string());
    add("/usr/share/gromacs/top");
    return dirs;
}

}  // namespace mdcore::input
