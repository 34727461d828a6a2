// GROMACS .gro/.top reading and writing: the shared SPC/E reference, round trips,
// and malformed inputs that must fail with the file and line in the message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "../common/error_message.h"
#include "gromacs_test_inputs.h"
#include "io/gromacs_io.h"
#include "mdcore/text_file.h"

#ifndef MDT_TEST_DATA_DIR
#error "MDT_TEST_DATA_DIR is set by tests/CMakeLists.txt"
#endif

namespace mdcore {
namespace {

using namespace mdcore::testing;  // NOLINT: the shared inputs and helpers

class GromacsIo : public GromacsTempDir {};

double lj_c6(double sigma, double eps) { return 4.0 * eps * std::pow(sigma, 6); }
double lj_c12(double sigma, double eps) { return 4.0 * eps * std::pow(sigma, 12); }

TEST(GromacsReference, ReadsWater3nm) {
    const System sys = read_gromacs_system(kWaterGro, kWaterTop);
    ASSERT_EQ(sys.natoms(), 2652u);
    EXPECT_EQ(sys.kind, "gro");
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(sys.box.lengths[d], 3.0, 1e-9);
    ASSERT_EQ(sys.settles.size(), 884u);
    EXPECT_EQ(sys.removed_dof, 3 + 3 * 884);
    EXPECT_EQ(sys.settles[0].o, 0);
    EXPECT_EQ(sys.settles[0].h1, 1);
    EXPECT_EQ(sys.settles[0].h2, 2);
    EXPECT_EQ(sys.settles.back().o, 2649);
    EXPECT_DOUBLE_EQ(sys.settles[0].d_oh, 0.1);
    EXPECT_DOUBLE_EQ(sys.settles[0].d_hh, 0.1633);

    double qsum = 0.0;
    for (double q : sys.charge) qsum += q;
    EXPECT_NEAR(qsum, 0.0, 1e-9);
    EXPECT_DOUBLE_EQ(sys.charge[0], -0.8476);
    EXPECT_DOUBLE_EQ(sys.charge[1], 0.4238);
    EXPECT_DOUBLE_EQ(sys.mass[0], 15.9994);
    EXPECT_DOUBLE_EQ(sys.mass[1], 1.008);
    EXPECT_DOUBLE_EQ(sys.mass[2], 1.008);

    ASSERT_EQ(sys.atom_types.size(), 2u);
    EXPECT_EQ(sys.atom_types[0].name, "OW");
    EXPECT_EQ(sys.atom_types[1].name, "HW");
    EXPECT_EQ(sys.type[0], 0);
    EXPECT_EQ(sys.type[1], 1);
    ASSERT_EQ(sys.lj.ntypes, 2);
    EXPECT_NEAR(sys.lj.c6_at(0, 0), lj_c6(0.316557, 0.650194), 1e-12);
    EXPECT_NEAR(sys.lj.c12_at(0, 0), lj_c12(0.316557, 0.650194), 1e-15);
    EXPECT_EQ(sys.lj.c6_at(0, 1), 0.0);
    EXPECT_EQ(sys.lj.c12_at(1, 1), 0.0);

    ASSERT_EQ(sys.exclusions.size(), sys.natoms());
    for (std::size_t i = 0; i < sys.natoms(); ++i) {
        ASSERT_EQ(sys.exclusions[i].size(), 2u) << i;
        const int first = static_cast<int>(i / 3 * 3);
        for (int j : sys.exclusions[i]) EXPECT_TRUE(j >= first && j < first + 3 && j != static_cast<int>(i));
    }
    EXPECT_EQ(sys.exclusions[0], (std::vector<int>{1, 2}));

    EXPECT_EQ(sys.atom_name[0], "OW");
    EXPECT_EQ(sys.atom_name[2651], "HW2");
    EXPECT_EQ(sys.residue_name[0], "SOL");
    EXPECT_EQ(sys.residue_number[2651], 884);
    EXPECT_DOUBLE_EQ(sys.positions[0][0], 0.246);
    EXPECT_DOUBLE_EQ(sys.positions[2651][2], 2.201);
    ASSERT_EQ(sys.velocities.size(), sys.natoms());
    EXPECT_EQ(sys.velocities[5][1], 0.0);
    EXPECT_NO_THROW(sys.validate());
}

TEST_F(GromacsIo, RoundTripThroughWriteGro) {
    System sys = read_gromacs_system(kWaterGro, kWaterTop);
    for (std::size_t i = 0; i < sys.natoms(); ++i) {
        const double x = static_cast<double>(i);
        sys.velocities[i] = {0.1234 * static_cast<double>(i % 7), -0.5, 1e-3 * x};
    }
    const std::string out = path("out.gro");
    write_gro(out, sys, "round trip");

    const GroFile gro = read_gro(out);
    EXPECT_EQ(gro.title, "round trip");
    ASSERT_EQ(gro.positions.size(), sys.natoms());
    ASSERT_EQ(gro.velocities.size(), sys.natoms());
    for (std::size_t i = 0; i < sys.natoms(); ++i)
        for (int d = 0; d < 3; ++d) {
            EXPECT_NEAR(gro.positions[i][d], sys.positions[i][d], 5e-4 + 1e-12);
            EXPECT_NEAR(gro.velocities[i][d], sys.velocities[i][d], 5e-5 + 1e-12);
        }
    EXPECT_EQ(gro.atom_name, sys.atom_name);
    EXPECT_EQ(gro.residue_name, sys.residue_name);
    EXPECT_EQ(gro.residue_number, sys.residue_number);
    EXPECT_EQ(gro.box.lengths, sys.box.lengths);

    // The written file is a valid coordinate file for the same topology.
    const System again = read_gromacs_system(out, kWaterTop);
    EXPECT_EQ(again.natoms(), sys.natoms());
    EXPECT_NEAR(again.velocities[10][0], sys.velocities[10][0], 5e-5 + 1e-12);
}

TEST_F(GromacsIo, WriteGroFormatGenericNamesAndWrapping) {
    System sys;
    sys.box.lengths = {2.0, 2.5, 3.0};
    sys.positions = {{0.1, 0.2, 0.3}, {1.0, 1.5, 2.0}};
    const std::string out = path("generic.gro");
    write_gro(out, sys, "generic");
    std::ifstream in(out);
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(in, line)) lines.push_back(line);
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_EQ(lines[1], "    2");
    EXPECT_EQ(lines[2], "    1MOL      X    1   0.100   0.200   0.300");
    EXPECT_EQ(lines[3], "    2MOL      X    2   1.000   1.500   2.000");
    EXPECT_EQ(lines[4], "   2.00000   2.50000   3.00000");

    sys.atom_name = {"OW", "HW1"};
    sys.residue_name = {"SOL", "SOL"};
    sys.residue_number = {123456, 100000};
    write_gro(out, sys, "wrap");
    const GroFile gro = read_gro(out);
    EXPECT_EQ(gro.residue_number, (std::vector<int>{23456, 0}));
    EXPECT_EQ(gro.atom_name, (std::vector<std::string>{"OW", "HW1"}));
    EXPECT_TRUE(gro.velocities.empty());
}

TEST_F(GromacsIo, WriteGroWrapsAtomNumbers) {
    System sys;
    sys.box.lengths = {5.0, 5.0, 5.0};
    sys.positions.assign(100001, Vec3{1.0, 2.0, 3.0});
    const std::string out = path("big.gro");
    write_gro(out, sys, "big");
    std::ifstream in(out);
    std::string line;
    for (int i = 0; i < 2 + 100000; ++i) std::getline(in, line);
    EXPECT_EQ(line.substr(15, 5), "    0");  // atom 100001 -> 1, atom 100000 -> 0
    std::getline(in, line);
    EXPECT_EQ(line.substr(15, 5), "    1");
    EXPECT_EQ(read_gro(out).positions.size(), 100001u);
}

TEST_F(GromacsIo, WriteForces) {
    const std::string out = path("forces.txt");
    write_forces(out, {{1.0, -2.5, 3.25e-7}, {0.0, 0.0, 0.0}});
    std::ifstream in(out);
    std::string a, b;
    std::getline(in, a);
    std::getline(in, b);
    EXPECT_EQ(a, "1.000000e+00 -2.500000e+00 3.250000e-07");
    EXPECT_EQ(b, "0.000000e+00 0.000000e+00 0.000000e+00");
    EXPECT_THROW(write_forces(path("no/such/dir/forces.txt"), {{1.0, 1.0, 1.0}}), std::runtime_error);
    EXPECT_THROW(write_gro(path("no/such/dir/x.gro"), System{}, "x"), std::runtime_error);
}

TEST_F(GromacsIo, ReadsSmallTopologyWithDefaultMassAndVelocities) {
    const std::string gro = write("w.gro",
                                  "with velocities\n"
                                  "3\n"
                                  "    1SOL     OW    1   0.246   0.664   0.115  0.1000 -0.2000  0.3000\n"
                                  "    1SOL    HW1    2   0.171   0.617   0.162  1.0000  2.0000  3.0000\n"
                                  "    1SOL    HW2    3   0.260   0.621   0.026 -1.0000 -2.0000 -3.0000\n"
                                  "   2.0 2.0 2.0 0 0 0 0 0 0\n");  // 9-value box with zero off-diagonals
    const std::string top = write("w.top", replace_once(kTwoWaterTop, "SOL 2", "SOL 1"));
    const System sys = read_gromacs_system(gro, top);
    ASSERT_EQ(sys.natoms(), 3u);
    EXPECT_DOUBLE_EQ(sys.mass[2], 1.008);
    EXPECT_DOUBLE_EQ(sys.velocities[0][1], -0.2);
    EXPECT_DOUBLE_EQ(sys.velocities[2][2], -3.0);
    EXPECT_DOUBLE_EQ(sys.box.lengths[1], 2.0);
    EXPECT_EQ(sys.removed_dof, 6);
}

TEST_F(GromacsIo, HigherPrecisionGroUsesDecimalPointSpacing) {
    // %10.5f coordinates: a whitespace-free field layout that only the inferred width splits.
    const std::string gro = write("p.gro",
                                  "precise\n"
                                  "1\n"
                                  "    1AR      AR    1   0.12345-123.12345  12.34567\n"
                                  " 100.0 100.0 100.0\n");  // y within 3 box lengths of the box
    const GroFile g = read_gro(gro);
    ASSERT_EQ(g.positions.size(), 1u);
    EXPECT_DOUBLE_EQ(g.positions[0][0], 0.12345);
    EXPECT_DOUBLE_EQ(g.positions[0][1], -123.12345);
    EXPECT_DOUBLE_EQ(g.positions[0][2], 12.34567);
}

TEST_F(GromacsIo, IncludeNextToTopology) {
    write("water.itp", kAtomTypes + kMoleculeType);
    fs::create_directories(dir_ / "sub");
    const std::string top = write("sub/topol.top", kDefaults + "#include \"../water.itp\"  ; force field\n" + kSystem);
    const std::string gro = write("w.gro", kTwoWaterGro);
    const System sys = read_gromacs_system(gro, top);
    EXPECT_EQ(sys.natoms(), 6u);
    EXPECT_EQ(sys.settles.size(), 2u);
    EXPECT_EQ(sys.settles[1].o, 3);
    EXPECT_EQ(sys.exclusions[4], (std::vector<int>{3, 5}));
    EXPECT_NO_THROW(sys.validate());
}

TEST_F(GromacsIo, CombinationRules1And3) {
    const std::string gro = write("w.gro", kTwoWaterGro);
    // comb-rule 1: the atom types give c6 and c12 directly.
    const std::string top1 = write("c1.top", replace_once(replace_once(kTwoWaterTop, "1      2         no", "1 1 no"),
                                                          "3.16557e-01  6.50194e-01", "0.0026173456 2.634129e-06"));
    const System s1 = read_gromacs_system(gro, top1);
    EXPECT_DOUBLE_EQ(s1.lj.c6_at(0, 0), 0.0026173456);
    EXPECT_DOUBLE_EQ(s1.lj.c12_at(0, 0), 2.634129e-06);
    EXPECT_NEAR(s1.atom_types[0].sigma, 0.316557, 1e-5);
    EXPECT_TRUE(s1.lj.is_geometric());
    // comb-rule 3: geometric sigma/epsilon, equal to geometric c6/c12.
    const std::string top3 = write("c3.top", replace_once(replace_once(kTwoWaterTop, "1      2         no", "1 3 no"),
                                                          "0.00000e+00  0.00000e+00", "0.1 0.2"));
    const System s3 = read_gromacs_system(gro, top3);
    EXPECT_NEAR(s3.lj.c6_at(0, 1), lj_c6(std::sqrt(0.316557 * 0.1), std::sqrt(0.650194 * 0.2)), 1e-12);
    EXPECT_NEAR(s3.lj.c12_at(0, 1), lj_c12(std::sqrt(0.316557 * 0.1), std::sqrt(0.650194 * 0.2)), 1e-15);
}

TEST_F(GromacsIo, AtomTypesColumnVariants) {
    const std::string gro = write("w.gro", kTwoWaterGro);
    // name bonded-type at.num ... / name mass ...; an unused type with ptype V is fine.
    const std::string types =
        "[ atomtypes ]\n"
        "  OW  OW_b  8  15.99940  0.0  A  3.16557e-01  6.50194e-01\n"
        "  HW  1.00800  0.0  A  0.0  0.0\n"
        "  MW  MW_b  0.0  0.0  V  0.0  0.0\n"
        "  LP  0  0.0  0.0  D  0.0  0.0\n\n";
    const System sys = read_gromacs_system(gro, write("v.top", kDefaults + types + kMoleculeType + kSystem));
    ASSERT_EQ(sys.atom_types.size(), 2u);
    EXPECT_NEAR(sys.lj.c6_at(0, 0), lj_c6(0.316557, 0.650194), 1e-12);
    EXPECT_DOUBLE_EQ(sys.mass[1], 1.008);
}

// --- malformed inputs -------------------------------------------------------

TEST_F(GromacsIo, UnsupportedDirectiveNamesFileLineAndDirective) {
    const std::string gro = write("w.gro", kTwoWaterGro);
    const std::string text =
        replace_once(kTwoWaterTop, "[ settles ]", "[ virtual_sites3 ]\n1 2 3 1 1 0.1 0.1\n\n[ settles ]");
    const std::string top = write("vsite.top", text);
    // [ virtual_sites3 ] sits on line 17 of the file.
    expect_input_error([&] { read_gromacs_system(gro, top); }, {"vsite.top:17:", "[ virtual_sites3 ]", "not supported"});
    const std::string pairs = write("pairs.top", kTwoWaterTop + "\n[ pairs ]\n");
    expect_input_error([&] { read_gromacs_system(gro, pairs); }, {"pairs.top:", "pairs"});
    // A function type mdcore does not evaluate (3 = Morse) is refused by name.
    const std::string morse = write("morse.top", replace_once(kTwoWaterTop, "[ settles ]", "[ bonds ]\n1 2 3 0.1 400 20\n\n[ settles ]"));
    expect_input_error([&] { read_gromacs_system(gro, morse); }, {"morse.top:18:", "[ bonds ] function type 3", "not supported"});
}

TEST_F(GromacsIo, BadNumberInAtoms) {
    const std::string gro = write("w.gro", kTwoWaterGro);
    const std::string top = write("bad.top", replace_once(kTwoWaterTop, "-0.8476", "-0.84x6"));
    expect_input_error([&] { read_gromacs_system(gro, top); }, {"bad.top:13:", "-0.84x6", "charge"});
}

TEST_F(GromacsIo, MissingInclude) {
    const std::string gro = write("w.gro", kTwoWaterGro);
    const std::string top = write("inc.top", kDefaults + "#include \"nowhere.itp\"\n" + kSystem);
    expect_input_error([&] { read_gromacs_system(gro, top); }, {"inc.top:5:", "nowhere.itp"});
}

TEST_F(GromacsIo, RecursiveInclude) {
    const std::string gro = write("w.gro", kTwoWaterGro);
    write("a.itp", "#include \"b.itp\"\n");
    write("b.itp", "\n#include \"a.itp\"\n");
    const std::string top = write("rec.top", kDefaults + "#include \"a.itp\"\n" + kSystem);
    expect_input_error([&] { read_gromacs_system(gro, top); }, {"b.itp:2:", "recursive"});
}

TEST_F(GromacsIo, AtomNameMismatch) {
    const std::string gro = write("w.gro", replace_once(kTwoWaterGro, "    2SOL    HW1", "    2SOL     HX"));
    const std::string top = write("w.top", kTwoWaterTop);
    expect_input_error([&] { read_gromacs_system(gro, top); }, {"w.gro:7:", "'HX'", "'HW1'"});
}

TEST_F(GromacsIo, AtomCountMismatch) {
    const std::string gro = write("w.gro", kTwoWaterGro);
    const std::string top = write("w.top", replace_once(kTwoWaterTop, "SOL 2", "SOL 3"));
    expect_input_error([&] { read_gromacs_system(gro, top); }, {"w.gro:2:", "6 atoms", "9"});
}

TEST_F(GromacsIo, TriclinicBox) {
    const std::string gro =
        write("tri.gro", replace_once(kTwoWaterGro, "   3.00000   3.00000   3.00000",
                                      "   3.00000   3.00000   3.00000   0.00000   0.00000"
                                      "   1.00000   0.00000   0.00000   0.00000"));
    expect_input_error([&] { read_gro(gro); }, {"tri.gro:9:", "triclinic"});
}

TEST_F(GromacsIo, CombRule4) {
    const std::string gro = write("w.gro", kTwoWaterGro);
    const std::string top = write("c4.top", replace_once(kTwoWaterTop, "1      2         no", "1      4         no"));
    expect_input_error([&] { read_gromacs_system(gro, top); }, {"c4.top:3:", "comb-rule 4"});
}

// grompp's conditionals and macros: the branch taken depends on the defines of the
// file and of the run, and a macro's value replaces its name in data lines.
TEST_F(GromacsIo, PreprocessorConditionals) {
    const std::string gro = write("w.gro", kTwoWaterGro);
    const std::string charged = replace_once(kTwoWaterTop, "-0.8476", "QO");
    const std::string text = "#ifdef HALF\n#define QO -0.4238\n#else\n#define QO -0.8476\n#endif\n" +
                             replace_once(charged, "0.4238   1.00800\n  3", "QH   1.00800\n  3");
    const std::string top = write("if.top", "#define QH 0.4238\n" + text);
    EXPECT_DOUBLE_EQ(read_gromacs_system(gro, top).charge[0], -0.8476);
    TopologyOptions half;
    half.defines = {{"HALF", ""}};
    EXPECT_DOUBLE_EQ(read_gromacs_system(gro, top, half).charge[0], -0.4238);
    const std::string open = write("open.top", "#ifdef X\n" + kTwoWaterTop);
    expect_input_error([&] { read_gromacs_system(gro, open); }, {"open.top:1:", "#ifdef"});
    const std::string elif = write("elif.top", "#if X\n#endif\n" + kTwoWaterTop);
    expect_input_error([&] { read_gromacs_system(gro, elif); }, {"elif.top:1:", "#if"});
}

TEST_F(GromacsIo, MalformedGroFiles) {
    const std::string bad_x = write("x.gro", replace_once(kTwoWaterGro, "   0.664", "   0.6a4"));
    expect_input_error([&] { read_gro(bad_x); }, {"x.gro:3:", "0.6a4"});
    const std::string short_file = write("short.gro", "t\n    3\n    1SOL     OW    1   0.246   0.664   0.115\n");
    expect_input_error([&] { read_gro(short_file); }, {"short.gro:4:", "end of file"});
    const std::string bad_count = write("count.gro", "t\nthree\n");
    expect_input_error([&] { read_gro(bad_count); }, {"count.gro:2:", "three"});
    const std::string short_line = write("line.gro", replace_once(kTwoWaterGro, "   1.162\n", "\n"));
    expect_input_error([&] { read_gro(short_line); }, {"line.gro:7:", "missing coordinate z"});
    const std::string two_box = write("box.gro", replace_once(kTwoWaterGro, "   3.00000   3.00000   3.00000", "3 3"));
    expect_input_error([&] { read_gro(two_box); }, {"box.gro:9:", "box"});
    expect_input_error([&] { read_gro(path("missing.gro")); }, {"missing.gro"});
}

// A .gro is read with the bounds of every user input: a regular file, at most
// 1 GiB, lines at most 1 MiB; a bad line is quoted short and printable.
bool printable(const std::string& s) {
    for (const char c : s)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
    return true;
}

TEST_F(GromacsIo, GroReaderIsBounded) {
    if (fs::exists("/dev/zero"))
        expect_input_error([&] { read_gro("/dev/zero"); },
                           {"/dev/zero: cannot read the .gro file", "not a regular file"});
    expect_input_error([&] { read_gro(dir_.string()); }, {"cannot read the .gro file", "is a directory"});
    // A sparse file: over the limit without writing a gigabyte.
    const std::string big = write("big.gro", "");
    fs::resize_file(big, kMaxGroFileBytes + 1);
    expect_input_error([&] { read_gro(big); }, {"big.gro: cannot read the .gro file", "limit of 1 GiB"});
    const std::string long_line = write("long.gro", "t\n    1\n" + std::string(kMaxInputLineBytes + 1, '1') + "\n");
    const std::string message = mdtest::message_of<InputError>([&] { read_gro(long_line); });
    EXPECT_NE(message.find("long.gro:3: line is longer than the limit of 1 MiB"), std::string::npos) << message;
    EXPECT_LT(message.size(), 300u);
}

TEST_F(GromacsIo, BinaryGroIsQuotedShortAndPrintable) {
    std::string binary = "t\n";
    for (int i = 0; i < 4000; ++i) binary += static_cast<char>(i % 256 == 10 ? 1 : i % 256);
    const std::string gro = write("bin.gro", binary + "\n");
    const std::string message = mdtest::message_of<InputError>([&] { read_gro(gro); });
    EXPECT_NE(message.find("bin.gro:2:"), std::string::npos) << message;
    EXPECT_TRUE(printable(message)) << message;
    EXPECT_LT(message.size(), 300u) << message;
}

TEST_F(GromacsIo, MalformedTopologies) {
    const std::string gro = write("w.gro", kTwoWaterGro);
    const auto fails = [&](const std::string& name, const std::string& text, std::vector<std::string> fragments) {
        const std::string top = write(name, text);
        fragments.push_back(name + ":");
        expect_input_error([&] { read_gromacs_system(gro, top); }, fragments);
    };
    fails("nodefaults.top", kAtomTypes + kMoleculeType + kSystem, {"before"});
    fails("nbfunc.top", replace_once(kTwoWaterTop, "1      2         no", "2 2"), {"nbfunc"});
    fails("unknowntype.top", replace_once(kTwoWaterTop, "2    HW   1", "2    HX   1"), {"unknown atom type 'HX'"});
    fails("unknownmol.top", replace_once(kTwoWaterTop, "SOL 2", "WAT 2"), {"unknown molecule type 'WAT'"});
    fails("numbering.top", replace_once(kTwoWaterTop, "  2    HW   1", "  5    HW   1"), {"consecutively"});
    fails("excl.top", replace_once(kTwoWaterTop, "  3 1 2", "  3 1 4"), {"outside the molecule"});
    fails("settle.top", replace_once(kTwoWaterTop, "  1   1     0.1  0.16330", "  2   1     0.1  0.16330"),
          {"settle"});
    fails("nomols.top", kDefaults + kAtomTypes + kMoleculeType, {"no [ molecules ]"});
    fails("libinc.top", "#include <nowhere.ff/forcefield.itp>\n", {"libinc.top:1:", "nowhere.ff/forcefield.itp"});
    fails("bstate.top", replace_once(kTwoWaterTop, "-0.8476  15.99940", "-0.8476  15.99940 OW 0.0 16.0"),
          {"B-state"});
    fails("ptype.top", replace_once(kTwoWaterTop, "0.0     A      3.16557e-01", "0.0     S      3.16557e-01"),
          {"particle type S"});
    fails("header.top", replace_once(kTwoWaterTop, "[ atomtypes ]", "[ atomtypes"), {"malformed"});
}

}  // namespace
}  // namespace mdcore
