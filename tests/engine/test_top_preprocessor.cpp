// The topology preprocessor (grompp's cpp subset): includes and their search order,
// conditionals, macros, limits, and the FILE:LINE (included from ...) of its errors.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "../common/temp_dir_test.h"
#include "io/top_preprocessor.h"
#include "mdcore/gromacs_input.h"

namespace mdcore::input {
namespace {

namespace fs = std::filesystem;

// Sets an environment variable for one test and restores it afterwards.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value)
            setenv(name, value->c_str(), 1);
        else
            unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_)
            setenv(name_, old_->c_str(), 1);
        else
            unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

class TopPreprocessor : public mdtest::TempDirTest {
protected:
    // GMXLIB and GMXDATA of the machine must not change what the tests find.
    ScopedEnv gmxlib_{"GMXLIB", std::nullopt};
    ScopedEnv gmxdata_{"GMXDATA", std::nullopt};

    std::string mkdir(const std::string& name) const {
        fs::create_directories(dir_ / name);
        return path(name);
    }
    std::vector<std::string> texts(const std::string& top, const PreprocessOptions& options = {}) const {
        std::vector<std::string> out;
        for (const PreprocessedLine& line : preprocess_topology(top, options)) out.push_back(line.text);
        return out;
    }
    // The message of the InputError that preprocessing top throws; each of `parts` must be in it.
    std::string error_of(const std::string& top, const std::vector<std::string>& parts,
                         const PreprocessOptions& options = {}) const {
        try {
            preprocess_topology(top, options);
        } catch (const InputError& e) {
            const std::string message = e.what();
            for (const std::string& part : parts)
                EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
            return message;
        }
        ADD_FAILURE() << top << " was accepted";
        return {};
    }
};

using Lines = std::vector<std::string>;

TEST_F(TopPreprocessor, CommentsWhitespaceAndEmptyLines) {
    const std::string top = write("a.top",
                                  "; a comment line\n"
                                  "\n"
                                  "   [ bonds ]   ; header comment\n"
                                  "\t1  2 \t 1 ; trailing comment\n"
                                  "   ;\n"
                                  "3 4;no space before the comment\n");
    const auto lines = preprocess_topology(top, {});
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].text, "[ bonds ]");
    EXPECT_EQ(lines[0].where.file, top);
    EXPECT_EQ(lines[0].where.line, 3);
    EXPECT_EQ(lines[0].where.context, "");
    EXPECT_EQ(lines[1].text, "1  2 \t 1");  // inner whitespace kept; the caller splits
    EXPECT_EQ(lines[1].where.line, 4);
    EXPECT_EQ(lines[2].text, "3 4");
    EXPECT_EQ(lines[2].where.line, 6);
}

TEST_F(TopPreprocessor, CrLfLineEnds) {
    const std::string top =
        write("crlf.top", "[ atoms ]\r\n1 2 \\\r\n 3\r\n#define X 5\r\n#ifdef X\r\nX\r\n#endif\r\n");
    EXPECT_EQ(texts(top), (Lines{"[ atoms ]", "1 2   3", "5"}));
}

TEST_F(TopPreprocessor, ContinuationLinesAreJoined) {
    const std::string top = write("cont.top",
                                  "a \\\n"
                                  "b\\   \n"  // whitespace after the '\' still continues
                                  "c\n"
                                  "; a comment ending in '\\' swallows the next line \\\n"
                                  "swallowed\n"
                                  "#define LONG 1 \\\n"
                                  "  2\n"
                                  "LONG\n"
                                  "last \\\n");  // '\' on the last line: nothing to join
    const auto lines = preprocess_topology(top, {});
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].text, "a  b c");
    EXPECT_EQ(lines[0].where.line, 1);  // where the logical line starts
    EXPECT_EQ(lines[1].text, "1    2");
    EXPECT_EQ(lines[1].where.line, 8);
    EXPECT_EQ(lines[2].text, "last");
    EXPECT_EQ(lines[2].where.line, 9);
}

TEST_F(TopPreprocessor, IncludeChainAndLineNumbers) {
    mkdir("sub");
    write("sub/b.itp", "; b\nin b\n#include \"../c.itp\"\nafter c\n");
    write("c.itp", "\n\nin c\n");
    const std::string top = write("a.top", "first\n\n#include \"sub/b.itp\"   ; comment after include\nlast\n");
    const auto lines = preprocess_topology(top, {});
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_EQ(lines[0].text, "first");
    EXPECT_EQ(lines[1].text, "in b");
    EXPECT_EQ(lines[1].where.file, path("sub/b.itp"));
    EXPECT_EQ(lines[1].where.line, 2);
    EXPECT_EQ(lines[1].where.context, " (included from " + top + ":3)");
    EXPECT_EQ(lines[2].text, "in c");
    EXPECT_EQ(fs::path(lines[2].where.file).filename(), "c.itp");
    EXPECT_EQ(lines[2].where.line, 3);
    EXPECT_EQ(lines[2].where.context, " (included from " + top + ":3, " + path("sub/b.itp") + ":3)");
    EXPECT_EQ(lines[3].text, "after c");
    EXPECT_EQ(lines[3].where.context, " (included from " + top + ":3)");
    EXPECT_EQ(lines[4].text, "last");
    EXPECT_EQ(lines[4].where.context, "");
}

TEST_F(TopPreprocessor, FailAppendsTheIncludeChain) {
    write("b.itp", "data\n");
    const std::string top = write("a.top", "\n#include \"b.itp\"\n");
    const auto lines = preprocess_topology(top, {});
    ASSERT_EQ(lines.size(), 1u);
    try {
        fail(lines[0].where, "bad data");
        FAIL() << "fail() returned";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), path("b.itp") + ":1: bad data (included from " + top + ":2)");
    }
    // Where stays aggregate-initialisable as {file, line}, without context.
    try {
        fail(Where{"x.top", 7}, "plain");
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), "x.top:7: plain");
    }
}

TEST_F(TopPreprocessor, AngleAndQuotedIncludesSearchAlike) {
    const std::string lib = mkdir("lib");
    write("lib/ff.itp", "from lib\n");
    const std::string top = write("a.top", "#include <ff.itp>\n#include \"ff.itp\"\n");
    EXPECT_EQ(texts(top, {{lib}, {}}), (Lines{"from lib", "from lib"}));
}

TEST_F(TopPreprocessor, IncludingFolderWinsOverIncludeDirs) {
    const std::string inc = mkdir("inc");
    write("inc/x.itp", "from include dir\n");
    write("x.itp", "from including folder\n");
    const std::string top = write("a.top", "#include \"x.itp\"\n");
    EXPECT_EQ(texts(top, {{inc}, {}}), (Lines{"from including folder"}));
}

TEST_F(TopPreprocessor, IncludeDirsInOrderThenGmxlibThenGmxdata) {
    const std::string inc1 = mkdir("inc1"), inc2 = mkdir("inc2");
    const std::string lib1 = mkdir("lib1"), lib2 = mkdir("lib2");
    mkdir("data/top");
    write("inc2/x.itp", "x from inc2\n");
    write("lib1/x.itp", "x from GMXLIB\n");
    write("lib2/y.itp", "y from second GMXLIB entry\n");
    write("lib1/z.itp", "z from GMXLIB\n");
    write("data/top/z.itp", "z from GMXDATA\n");
    write("data/top/w.itp", "w from GMXDATA\n");
    mkdir("top");
    const std::string top =
        write("top/a.top", "#include \"x.itp\"\n#include \"y.itp\"\n#include <z.itp>\n#include <w.itp>\n");
    ScopedEnv lib("GMXLIB", lib1 + ":" + lib2);
    ScopedEnv data("GMXDATA", path("data"));
    EXPECT_EQ(texts(top, {{inc1, inc2}, {}}),
              (Lines{"x from inc2", "y from second GMXLIB entry", "z from GMXLIB", "w from GMXDATA"}));
}

TEST_F(TopPreprocessor, DefaultTopologyDirs) {
    {
        ScopedEnv lib("GMXLIB", "/a::/b");  // empty entries are skipped
        ScopedEnv data("GMXDATA", "/g/");
        EXPECT_EQ(default_topology_dirs(), (Lines{"/a", "/b", "/g/top", "/usr/share/gromacs/top"}));
    }
    {
        ScopedEnv data("GMXDATA", "/usr/share/gromacs");  // listed once
        EXPECT_EQ(default_topology_dirs(), (Lines{"/usr/share/gromacs/top"}));
    }
    EXPECT_EQ(default_topology_dirs(), (Lines{"/usr/share/gromacs/top"}));
}

TEST_F(TopPreprocessor, AbsoluteIncludePath) {
    const std::string itp = write("abs.itp", "absolute\n");
    mkdir("elsewhere");
    const std::string top = write("elsewhere/a.top", "#include \"" + itp + "\"\n");
    EXPECT_EQ(texts(top), (Lines{"absolute"}));
    error_of(write("elsewhere/b.top", "#include \"" + path("nope.itp") + "\"\n"),
             {"b.top:1:", "cannot find included file \"" + path("nope.itp") + "\""});
}

TEST_F(TopPreprocessor, MissingIncludeNamesEveryFolderSearched) {
    const std::string inc = mkdir("inc");
    ScopedEnv lib("GMXLIB", path("gmxlib"));
    const std::string top = write("a.top", "[ x ]\n#include \"nowhere.itp\"\n");
    const std::string message =
        error_of(top,
                 {"a.top:2:", "cannot find included file \"nowhere.itp\"",
                  dir_.string() + ", " + inc + ", " + path("gmxlib") + ", /usr/share/gromacs/top"},
                 {{inc}, {}});
    EXPECT_EQ(message.find("included from"), std::string::npos);  // a.top is the top file
}

TEST_F(TopPreprocessor, RecursiveIncludeIsAnError) {
    write("a.itp", "#include \"b.itp\"\n");
    write("b.itp", "\n#include \"a.itp\"\n");
    const std::string top = write("rec.top", "x\n#include \"a.itp\"\n");
    error_of(top, {path("b.itp") + ":2: recursive #include of \"a.itp\"",
                   "(included from " + top + ":2, " + path("a.itp") + ":1)"});
    // Including the top file itself is recursive too.
    const std::string self = write("self.top", "#include \"self.top\"\n");
    error_of(self, {"self.top:1:", "recursive"});
}

TEST_F(TopPreprocessor, RepeatedIncludeIsNotRecursive) {
    write("w.itp", "water\n");
    const std::string top = write("a.top", "#include \"w.itp\"\n#include \"w.itp\"\n");
    EXPECT_EQ(texts(top), (Lines{"water", "water"}));
}

TEST_F(TopPreprocessor, IncludeDepthIsLimited) {
    // a0.top includes a1.top ... a(depth-1).top, which holds one data line.
    const auto chain = [this](int depth) {
        for (int k = 0; k < depth; ++k)
            write("a" + std::to_string(k) + ".top",
                  k + 1 < depth ? "#include \"a" + std::to_string(k + 1) + ".top\"\n" : "deepest\n");
        return path("a0.top");
    };
    // Exactly the limit, the top file counted, still reads.
    EXPECT_EQ(texts(chain(kMaxIncludeDepth)), (Lines{"deepest"}));
    error_of(chain(kMaxIncludeDepth + 1),
             {"a" + std::to_string(kMaxIncludeDepth - 1) + ".top:1:",
              "nests deeper than the limit of " + std::to_string(kMaxIncludeDepth) + " files"});
}

TEST_F(TopPreprocessor, OnlyRegularFilesAreRead) {
    mkdir("folder.itp");
    error_of(write("dir.top", "#include \"folder.itp\"\n"), {"dir.top:1:", "folder.itp", "is a directory"});
    if (fs::exists("/dev/zero")) {
        error_of(write("zero.top", "#include \"/dev/zero\"\n"), {"zero.top:1:", "/dev/zero", "not a regular file"});
        error_of("/dev/zero", {"/dev/zero: cannot open topology file", "not a regular file"});
    }
    error_of(path("folder.itp"), {"cannot open topology file", "is a directory"});
    error_of(path("missing.top"), {path("missing.top") + ": cannot open topology file: it does not exist"});
}

TEST_F(TopPreprocessor, LineAndFileSizesAreLimited) {
    const std::string long_line(kMaxTopologyLineBytes + 1, 'x');
    write("long.itp", "ok\n" + long_line + "\n");
    const std::string top = write("a.top", "#include \"long.itp\"\n");
    const std::string message = error_of(top, {"long.itp:2:", "longer than the limit of 1 MiB", "included from"});
    EXPECT_LT(message.size(), 400u);  // the line itself is not quoted

    // Each piece under the limit, joined over it.
    const std::string half(kMaxTopologyLineBytes / 2 + 1, 'y');
    error_of(write("joined.top", "\n" + half + " \\\n" + half + "\n"), {"joined.top:2:", "limit of 1 MiB"});

    // A sparse file: over the limit without writing 256 MiB.
    const std::string big = write("big.itp", "");
    fs::resize_file(big, kMaxTopologyFileBytes + 1);
    error_of(write("big.top", "#include \"big.itp\"\n"), {"big.top:1:", "big.itp", "limit of 256 MiB"});
    error_of(big, {"cannot open topology file", "limit of 256 MiB"});
}

TEST_F(TopPreprocessor, NulByteIsAnError) {
    error_of(write("nul.top", std::string("ok\nbad\0line\n", 12)), {"nul.top:2:", "NUL"});
}

TEST_F(TopPreprocessor, DefineUndefAndConditionals) {
    const std::string top = write("c.top",
                                  "#define A\n"
                                  "#ifdef A\n"
                                  "a defined\n"
                                  "#else\n"
                                  "a not defined\n"
                                  "#endif\n"
                                  "#ifndef B\n"
                                  "b not defined\n"
                                  "#  ifdef A\n"  // nested, whitespace after '#'
                                  "nested taken\n"
                                  "#  else\n"
                                  "nested skipped\n"
                                  "#  endif\n"
                                  "#endif\n"
                                  "#undef A\n"
                                  "#undef NEVER_DEFINED\n"
                                  "#ifdef A\n"
                                  "skipped after undef\n"
                                  "#endif\n"
                                  "  #ifndef A ; comments are removed first\n"
                                  "taken after undef\n"
                                  "#endif\n");
    EXPECT_EQ(texts(top), (Lines{"a defined", "b not defined", "nested taken", "taken after undef"}));
}

TEST_F(TopPreprocessor, SkippedBranchesIgnoreIncludesAndDefines) {
    const std::string top = write("s.top",
                                  "#ifdef POSRES\n"
                                  "#include \"posre_missing.itp\"\n"
                                  "#define X skipped\n"
                                  "#pragma anything\n"  // unknown directives are only refused where taken
                                  "#ifdef ANY garbage ;\n"
                                  "#else\n"
                                  "#define Y skipped-too\n"
                                  "#endif\n"
                                  "#else\n"
                                  "X Y\n"
                                  "#endif\n");
    EXPECT_EQ(texts(top), (Lines{"X Y"}));
}

TEST_F(TopPreprocessor, DefinesFromOptions) {
    const std::string top = write("o.top",
                                  "#ifdef POSRES\n"
                                  "posres on\n"
                                  "#endif\n"
                                  "fc POSRES_FC\n"
                                  "#define POSRES_FC 5000\n"  // a #define replaces the run's value
                                  "fc POSRES_FC\n");
    const PreprocessOptions options{{}, {{"POSRES", ""}, {"POSRES_FC", " 1000 "}}};
    EXPECT_EQ(texts(top, options), (Lines{"posres on", "fc 1000", "fc 5000"}));
    EXPECT_EQ(texts(top), (Lines{"fc POSRES_FC", "fc 5000"}));
    error_of(top, {"the define 'a.b' given for this run is not a macro name"}, {{}, {{"a.b", "1"}}});
}

TEST_F(TopPreprocessor, MacroSubstitution) {
    const std::string top = write("m.top",
                                  "#define torsion_ILE_N_CA_CB_CG2_mult1 0.0 0.8368 1 ; value comment\n"
                                  "#define FC   1000  \n"
                                  "#define FLEXIBLE\n"
                                  "[ FC ]\n"  // headers are data lines for the preprocessor
                                  "N CA CB CG2 9 torsion_ILE_N_CA_CB_CG2_mult1\n"
                                  "FCX xFC FC_ _FC 1FC FC1 FC\n"  // whole words only
                                  "a.FC FC-FC (FC)\n"             // '.', '-' and brackets end a word
                                  "FLEXIBLE stays\n"              // an empty macro is not substituted, as in grompp
                                  "#define FC 2\n"                // redefinition replaces
                                  "FC\n");
    EXPECT_EQ(texts(top), (Lines{"[ 1000 ]", "N CA CB CG2 9 0.0 0.8368 1", "FCX xFC FC_ _FC 1FC FC1 1000",
                                 "a.1000 1000-1000 (1000)", "FLEXIBLE stays", "2"}));
}

TEST_F(TopPreprocessor, MacrosExpandRepeatedly) {
    const std::string top = write("r.top",
                                  "#define OUTER INNER INNER\n"  // INNER is defined only later
                                  "#define INNER 7\n"
                                  "#define SELF SELF\n"
                                  "OUTER SELF\n"
                                  "#define LATER OUTER\n"
                                  "LATER\n");
    EXPECT_EQ(texts(top), (Lines{"7 7 SELF", "7 7"}));
}

TEST_F(TopPreprocessor, EndlessMacroExpansionIsAnError) {
    write("loop.itp", "#define PING PONG\n#define PONG PING x\n\nPING\n");
    const std::string top = write("a.top", "#include \"loop.itp\"\n");
    error_of(top, {"loop.itp:4:", "still expands after 100 rounds", "included from " + top + ":1"});
    // Growth past the line limit is caught within a round.
    const std::string wide(1000, 'w');
    std::string line;
    for (int i = 0; i < 2000; ++i) line += "W ";
    error_of(write("wide.top", "#define W " + wide + "\n" + line + "\n"), {"wide.top:2:", "limit of 1 MiB", "'W'"});
}

TEST_F(TopPreprocessor, NoSubstitutionOnDirectiveLines) {
    write("a.itp", "in a\n");
    const std::string top = write("d.top",
                                  "#define NAME OTHER\n"
                                  "#define OTHER 1\n"
                                  "#ifdef NAME\n"  // NAME itself, not OTHER
                                  "taken\n"
                                  "#endif\n"
                                  "#undef NAME\n"
                                  "NAME\n");
    EXPECT_EQ(texts(top), (Lines{"taken", "NAME"}));
    error_of(write("inc.top", "#define FILE \"a.itp\"\n#include FILE\n"), {"inc.top:2:", "malformed #include 'FILE'"});
}

TEST_F(TopPreprocessor, UnsupportedDirectives) {
    error_of(write("if.top", "x\n#if 1\n#endif\n"), {"if.top:2:", "#if is not supported"});
    error_of(write("elif.top", "#ifdef A\n#elif B\n#endif\n"), {"elif.top:2:", "#elif is not supported"});
    // Refused even where skipped, since their #endif would close the wrong block.
    error_of(write("skipif.top", "#ifdef A\n#if 0\n#endif\n#endif\n"), {"skipif.top:2:", "#if is not supported"});
    error_of(write("pragma.top", "#pragma once\n"), {"pragma.top:1:", "'#pragma' is not supported"});
    error_of(write("bare.top", "\n#\n"), {"bare.top:2:", "malformed preprocessor line '#'"});
    error_of(write("bang.top", "#!x\n"), {"bang.top:1:", "malformed preprocessor line '#!x'"});
}

TEST_F(TopPreprocessor, UnbalancedConditionals) {
    error_of(write("open.top", "x\n#ifdef POSRES\ny\n#ifndef Q\n#endif\n"),
             {"open.top:2:", "'#ifdef POSRES' has no matching #endif before " + path("open.top") + " ends at line 5"});
    error_of(write("endif.top", "#endif\n"), {"endif.top:1:", "#endif without a matching #ifdef"});
    error_of(write("else.top", "x\n#else\n"), {"else.top:2:", "#else without a matching #ifdef"});
    error_of(write("else2.top", "#ifdef A\n#else\n#else\n#endif\n"),
             {"else2.top:3:", "second #else for '#ifdef A' at " + path("else2.top") + ":1"});
    // Each file balances its own conditionals.
    write("closes.itp", "#endif\n");
    EXPECT_EQ(texts(write("cross.top", "#ifdef A\n#include \"closes.itp\"\n#endif\n")), Lines{});  // skipped
    error_of(write("cross2.top", "#ifndef A\n#include \"closes.itp\"\n#endif\n"),
             {"closes.itp:1:", "#endif without a matching", "(included from " + path("cross2.top") + ":2)"});
    write("opens.itp", "#ifndef A\n");
    error_of(write("cross3.top", "#include \"opens.itp\"\n#endif\n"), {"opens.itp:1:", "no matching #endif"});
}

TEST_F(TopPreprocessor, MalformedDirectives) {
    error_of(write("d1.top", "#define\n"), {"d1.top:1:", "#define needs a macro name"});
    error_of(write("d2.top", "#define 1X 2\n"), {"d2.top:1:", "#define name '1X' is not a macro name"});
    error_of(write("d3.top", "#define a.b 2\n"), {"#define name 'a.b' is not a macro name"});
    error_of(write("i1.top", "#ifdef\n#endif\n"), {"i1.top:1:", "#ifdef needs a macro name"});
    error_of(write("i2.top", "#ifndef A B\n#endif\n"), {"i2.top:1:", "#ifndef expects one macro name", "'A B'"});
    error_of(write("u1.top", "#undef\n"), {"u1.top:1:", "#undef needs a macro name"});
    error_of(write("n1.top", "#include\n"), {"n1.top:1:", "malformed #include ''"});
    error_of(write("n2.top", "#include \"a.itp\n"), {"n2.top:1:", "malformed #include"});
    error_of(write("n3.top", "#include a.itp\n"), {"malformed #include 'a.itp'"});
    error_of(write("n4.top", "#include \"\"\n"), {"n4.top:1:", "empty file name"});
    error_of(write("n5.top", "#include <a.itp> junk\n"), {"n5.top:1:", "unexpected text 'junk'"});
}

TEST_F(TopPreprocessor, MessagesQuoteAtMost80Characters) {
    const std::string name(5000, 'N');
    const std::string message = error_of(write("q.top", "#" + name + "\n"), {"q.top:1:", "'#NNNN", "...'"});
    EXPECT_LT(message.size(), 300u);
    const std::string binary = "#include \"\x01\x02" + std::string(200, 'b') + "\"\n";
    const std::string m2 = error_of(write("b.top", binary), {"cannot find included file \"??bbb", "...\""});
    EXPECT_LT(m2.size(), 400u);
}

// The force field DHFR's topology uses, from the GROMACS installation when there is one.
// pdb2gmx writes amber99sb-ildn's ILDN torsions as macros that ffbonded.itp defines.
TEST_F(TopPreprocessor, Amber99sbIldnForceField) {
    const std::string ff = "/usr/share/gromacs/top/amber99sb-ildn.ff";
    if (!fs::exists(ff + "/forcefield.itp")) GTEST_SKIP() << ff << " is absent (GROMACS' data files not installed)";
    const std::string top = write("ff.top",
                                  "#include \"amber99sb-ildn.ff/forcefield.itp\"\n"
                                  "[ moleculetype ]\nILE 3\n"
                                  "[ dihedrals ]\n"
                                  "   20    22    24    26     9    torsion_ILE_N_CA_CB_CG2_mult1\n"
                                  "   20    22    24    26     9    torsion_ILE_N_CA_CB_CG2_mult2\n"
                                  "#include \"amber99sb-ildn.ff/tip3p.itp\"\n"
                                  "[ system ]\nwater\n[ molecules ]\nSOL 1\n");
    const auto start = std::chrono::steady_clock::now();
    const auto lines = preprocess_topology(top, {});  // found through /usr/share/gromacs/top
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 1.0);  // about a millisecond; generous for loaded machines

    std::vector<std::string> dihedrals;
    std::string section;
    bool saw_settles = false, saw_bonds = false, saw_ff_dihedraltypes = false;
    for (const PreprocessedLine& line : lines) {
        for (const std::string& token : split_ws(line.text))
            EXPECT_NE(token.rfind("torsion_", 0), 0u) << line.where.file << ":" << line.where.line << ": " << line.text;
        if (line.text.front() == '[') {
            section = line.text;
            saw_settles = saw_settles || section == "[ settles ]";
            saw_bonds = saw_bonds || section == "[ bonds ]";
            if (section == "[ dihedraltypes ]") {
                saw_ff_dihedraltypes = true;
                EXPECT_EQ(fs::path(line.where.file).filename(), "ffbonded.itp");
                EXPECT_NE(line.where.context.find("forcefield.itp:"), std::string::npos) << line.where.context;
            }
        } else if (section == "[ dihedrals ]") {
            dihedrals.push_back(line.text);
        }
    }
    EXPECT_EQ(dihedrals, (Lines{"20    22    24    26     9    0.0        0.8158800        1",
                                "20    22    24    26     9    0.0       -3.5396640        2"}));
    EXPECT_TRUE(saw_ff_dihedraltypes);
    EXPECT_TRUE(saw_settles);  // tip3p.itp's rigid water: FLEXIBLE is not defined
    EXPECT_FALSE(saw_bonds);

    bool flexible_bonds = false;
    for (const PreprocessedLine& line : preprocess_topology(top, {{}, {{"FLEXIBLE", ""}}}))
        flexible_bonds = flexible_bonds || line.text == "[ bonds ]";
    EXPECT_TRUE(flexible_bonds);
}

}  // namespace
}  // namespace mdcore::input
