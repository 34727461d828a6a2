// Search-space files: parsing, every rejection naming its key, the product of the
// dims, and the feasibility rules (checked against mdcore's own generators).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "mdcore/generators.h"
#include "mdtune/tuner/space.h"

namespace mdtune {
namespace {

const char* kExample = R"(# a water sweep
[system]
kind = "water"            # lj | argon | lammps-lj | water | water-ions
natoms = [3000, 12000]
seed = 1

[space]
cluster = ["4x4", "4x8", "8x4"]
nstlist = [10, 20, 40, 80]
pme_scale = [1.0, 1.1, 1.2]
threads = [1, 2]

[measure]
steps = 2000
warmup = 200
repeats = 3
timeout_s = 120
)";

// Parses `text` and returns the SpaceError message ("" when it parsed).
std::string error_of(const std::string& text) {
    try {
        tuner::parse_space(text, "space.txt");
    } catch (const tuner::SpaceError& e) {
        return e.what();
    }
    return "";
}

#define EXPECT_ERROR(text, needle)                                                    \
    do {                                                                              \
        const std::string msg_ = error_of(text);                                      \
        EXPECT_NE(msg_.find(needle), std::string::npos) << "message: '" << msg_ << "'"; \
        EXPECT_EQ(msg_.rfind("space.txt", 0), 0u) << "message: '" << msg_ << "'";      \
    } while (0)

const std::string kSystem = "[system]\nkind = \"lj\"\nnatoms = 4000\n";

TEST(Space, ParsesTheExample) {
    const tuner::SearchSpace s = tuner::parse_space(kExample, "space.txt");
    EXPECT_EQ(s.source, "space.txt");
    EXPECT_EQ(s.text, kExample);
    ASSERT_EQ(s.systems.size(), 2u);
    EXPECT_EQ(s.systems[0].canonical(), "water:natoms=3000:seed=1");
    EXPECT_EQ(s.systems[1].canonical(), "water:natoms=12000:seed=1");
    ASSERT_EQ(s.dims.size(), 4u);  // file order, not key order
    EXPECT_EQ(s.dims[0].first, Param::Cluster);
    EXPECT_EQ(s.dims[1].first, Param::Nstlist);
    EXPECT_EQ(s.dims[2].first, Param::PmeScale);
    EXPECT_EQ(s.dims[3].first, Param::Threads);
    EXPECT_EQ(s.dims[1].second.size(), 4u);
    EXPECT_EQ(std::get<double>(s.dims[2].second[0]), 1.0);
    EXPECT_EQ(s.measure.steps, 2000);
    EXPECT_EQ(s.measure.warmup, 200);
    EXPECT_EQ(s.measure.repeats, 3);
    EXPECT_DOUBLE_EQ(s.measure.timeout_s, 120.0);
    EXPECT_EQ(s.size(), 2u * 3 * 4 * 3 * 2);
}

TEST(Space, ConfigsAreTheProductInFileOrder) {
    const tuner::SearchSpace s = tuner::parse_space(kExample, "space.txt");
    const std::vector<Config> c = s.configs();
    ASSERT_EQ(c.size(), 3u * 4 * 3 * 2);
    // First dim outermost, last dim fastest.
    EXPECT_EQ(c[0].canonical(), "cluster=4x4;nstlist=10;pme_scale=1;threads=1");
    EXPECT_EQ(c[1].canonical(), "cluster=4x4;nstlist=10;pme_scale=1;threads=2");
    EXPECT_EQ(c[2].canonical(), "cluster=4x4;nstlist=10;pme_scale=1.1;threads=1");
    EXPECT_EQ(c[6].canonical(), "cluster=4x4;nstlist=20;pme_scale=1;threads=1");
    EXPECT_EQ(c.back().canonical(), "cluster=8x4;nstlist=80;pme_scale=1.2;threads=2");
    std::set<std::string> distinct;
    for (const Config& x : c) distinct.insert(x.canonical());
    EXPECT_EQ(distinct.size(), c.size());
    EXPECT_EQ(s.configs().front().canonical(), c.front().canonical());  // deterministic
}

TEST(Space, DefaultsAndScalars) {
    const tuner::SearchSpace s = tuner::parse_space("[system]\nkind = \"argon\"\nnatoms = 500\n[space]\nsimd = \"avx2\"\n", "x");
    ASSERT_EQ(s.systems.size(), 1u);
    EXPECT_EQ(s.systems[0].seed, 1u);
    EXPECT_EQ(s.measure.steps, MeasureSettings{}.steps);
    ASSERT_EQ(s.configs().size(), 1u);
    EXPECT_EQ(s.configs()[0].canonical(), "simd=avx2");
    const tuner::SearchSpace bare = tuner::parse_space(kSystem, "x");
    ASSERT_EQ(bare.configs().size(), 1u);
    EXPECT_EQ(bare.configs()[0].canonical(), "");
}

TEST(Space, IntegersAreAcceptedForReals) {
    const tuner::SearchSpace s = tuner::parse_space(kSystem + "[space]\nrlist = [1, 1.2]\npme_spacing = 0.12\n", "x");
    EXPECT_EQ(std::get<double>(s.dims[0].second[0]), 1.0);
    EXPECT_EQ(s.configs()[1].canonical(), "rlist=1.2;pme_spacing=0.12");
}

TEST(Space, LoadsFromAFile) {
    const std::string path = ::testing::TempDir() + "/mdtune_space_test.toml";
    {
        std::ofstream(path) << kExample;
    }
    const tuner::SearchSpace s = tuner::load_space(path);
    EXPECT_EQ(s.source, path);
    EXPECT_EQ(s.systems.size(), 2u);
    std::remove(path.c_str());
    EXPECT_THROW(tuner::load_space(path), tuner::SpaceError);
}

TEST(SpaceErrors, UnknownNames) {
    EXPECT_ERROR(kSystem + "[space]\nnstlistt = [10]\n", "space.txt: [space] unknown parameter 'nstlistt'");
    EXPECT_ERROR(kSystem + "[spaces]\nnstlist = 10\n", "unknown section [spaces]");
    EXPECT_ERROR(kSystem + "steps = 10\n", "[system] unknown key 'steps'");
    EXPECT_ERROR(kSystem + "[measure]\nstep = 10\n", "[measure] unknown key 'step'");
    EXPECT_ERROR("top = 1\n" + kSystem, "unknown section [top]");
    EXPECT_ERROR("[system]\nkind = \"argonn\"\nnatoms = 10\n", "kind: unknown system 'argonn'");
}

TEST(SpaceErrors, MalformedTomlGivesLineAndColumn) {
    const std::string msg = error_of(kSystem + "[space]\nnstlist = [10, 20\n");
    EXPECT_EQ(msg.rfind("space.txt:5:", 0), 0u) << msg;
    const std::string msg2 = error_of("[system]\nkind = water\n");
    EXPECT_EQ(msg2.rfind("space.txt:2:", 0), 0u) << msg2;
}

TEST(SpaceErrors, EmptyListsNameTheKey) {
    EXPECT_ERROR(kSystem + "[space]\nnstlist = []\n", "[space] 'nstlist' is an empty list");
    EXPECT_ERROR("[system]\nkind = \"lj\"\nnatoms = []\n", "[system] 'natoms' is an empty list");
}

TEST(SpaceErrors, MissingSystem) {
    EXPECT_ERROR("[space]\nnstlist = 10\n", "missing section [system]");
    EXPECT_ERROR("", "missing section [system]");
    EXPECT_ERROR("[system]\nnatoms = 100\n", "[system] missing key 'kind'");
    EXPECT_ERROR("[system]\nkind = \"lj\"\n", "[system] missing key 'natoms'");
}

TEST(SpaceErrors, WaterAtomsMustBeWholeMolecules) {
    EXPECT_ERROR("[system]\nkind = \"water\"\nnatoms = [3000, 3001]\n", "natoms: 3001 is not a multiple of 3");
    EXPECT_ERROR("[system]\nkind = \"water-ions\"\nnatoms = 10\n", "natoms: 10 is not a multiple of 3");
    EXPECT_ERROR("[system]\nkind = \"lj\"\nnatoms = 0\n", "natoms: 0 must be positive");
    EXPECT_ERROR("[system]\nkind = \"lj\"\nnatoms = 10.5\n", "'natoms' must be an integer");
    EXPECT_ERROR("[system]\nkind = \"lj\"\nnatoms = [10, 10]\n", "natoms: 10 is listed twice");
    EXPECT_EQ(error_of("[system]\nkind = \"lj\"\nnatoms = 3001\n"), "");  // LJ: any count
}

TEST(SpaceErrors, MeasureSettings) {
    EXPECT_ERROR(kSystem + "[measure]\nsteps = 100\nwarmup = 100\n", "[measure] warmup (100) must be below steps (100)");
    EXPECT_ERROR(kSystem + "[measure]\nwarmup = 5000\n", "warmup (5000) must be below steps");
    EXPECT_ERROR(kSystem + "[measure]\nrepeats = 0\n", "repeats: 0 must be 1 or more");
    EXPECT_ERROR(kSystem + "[measure]\ntimeout_s = 0\n", "timeout_s: 0 must be positive");
    EXPECT_ERROR(kSystem + "[measure]\ntimeout_s = -2.5\n", "timeout_s: -2.5 must be positive");
    EXPECT_ERROR(kSystem + "[measure]\nsteps = 0\n", "steps: 0 must be positive");
    EXPECT_ERROR(kSystem + "[measure]\nsteps = \"many\"\n", "'steps' must be an integer");
    EXPECT_EQ(error_of(kSystem + "[measure]\ntimeout_s = 30.5\nsteps = 10\nwarmup = 9\n"), "");
}

TEST(SpaceErrors, ValueKindsAndDomains) {
    EXPECT_ERROR(kSystem + "[space]\nnstlist = [10, 20.5]\n", "'nstlist' must be an integer");
    EXPECT_ERROR(kSystem + "[space]\ncluster = 4\n", "'cluster' must be a string");
    EXPECT_ERROR(kSystem + "[space]\nrlist = \"1.0\"\n", "'rlist' must be a number");
    EXPECT_ERROR(kSystem + "[space]\ncluster = [\"4x4\", \"2x2\"]\n", "cluster: '2x2' is not one of 4x4, 4x8, 8x4, 1x1");
    EXPECT_ERROR(kSystem + "[space]\nsimd = \"sse\"\n", "simd: 'sse' is not one of");
    EXPECT_ERROR(kSystem + "[space]\npme_order = [4, 7]\n", "pme_order: 7 is not 4, 5 or 6");
    EXPECT_ERROR(kSystem + "[space]\nthreads = [0, 1]\n", "threads: 0 must be positive");
    EXPECT_ERROR(kSystem + "[space]\nnstprune = -1\n", "nstprune: -1 must be positive");
    EXPECT_ERROR(kSystem + "[space]\nrlist = -1.0\n", "rlist: -1 must be positive");
    EXPECT_ERROR(kSystem + "[space]\npme_scale = 0\n", "pme_scale: 0 must be positive");
    EXPECT_ERROR(kSystem + "[space]\npme_spacing = 0.0\n", "pme_spacing: 0 must be positive");
    EXPECT_ERROR(kSystem + "[space]\nnstlist = [10, 10]\n", "nstlist: value 10 is listed twice");
    EXPECT_ERROR(kSystem + "[space]\ncluster = { a = 1 }\n", "[space] 'cluster' must be a value or a list");
    EXPECT_ERROR(kSystem + "[space.sub]\nnstlist = 10\n", "[space] unknown parameter 'sub'");
    // Messages carry the line of the offending value.
    EXPECT_ERROR(kSystem + "[space]\nnstlist = [10, 20.5]\n", "(line 5)");
}

// ---- feasibility ----------------------------------------------------------

HardwareCaps caps() { return HardwareCaps{4, false, {"none", "avx2"}}; }

Config config(std::initializer_list<std::pair<Param, ParamValue>> values) {
    Config c;
    for (const auto& [p, v] : values) c.set(p, v);
    return c;
}

TEST(Feasibility, DefaultConfigOnAReasonableSystemIsFeasible) {
    const tuner::SearchSpace s = tuner::parse_space(kExample, "space.txt");
    for (const SystemDescriptor& sys : s.systems) {
        EXPECT_EQ(s.infeasible_reason(sys, Config{}, caps()), "");
        for (const Config& c : s.configs()) EXPECT_EQ(s.infeasible_reason(sys, c, caps()), "") << c.canonical();
    }
}

TEST(Feasibility, CutoffMustBeBelowHalfTheBox) {
    const tuner::SearchSpace s = tuner::parse_space(kExample, "space.txt");
    // 1000 waters: (1000 x 18.0154 amu / 0.997 g/cm^3)^(1/3) = 3.108 nm, half 1.554 nm.
    const SystemDescriptor water{"water", 3000, 1};
    EXPECT_EQ(s.infeasible_reason(water, config({{Param::PmeScale, 1.5}}), caps()), "");
    const std::string why = s.infeasible_reason(water, config({{Param::PmeScale, 1.6}}), caps());
    // mdcore's own refusal, from resolve_config on the stand-in system.
    EXPECT_NE(why.find("rc x pme-scale = 1.6 nm must be below half the shortest box edge (1.55371 nm)"), std::string::npos)
        << why;
    // 100 LJ atoms at rho* 0.8442: box 1.67 nm, so rc 0.85 is already too long.
    EXPECT_NE(s.infeasible_reason({"lj", 100, 1}, Config{}, caps()).find("must be below half the shortest box edge"),
              std::string::npos);
    EXPECT_EQ(s.infeasible_reason({"lj", 1000, 1}, Config{}, caps()), "");
}

// The box we predict must be the box mdcore builds, for every generator kind.
TEST(Feasibility, BoxMatchesTheGenerators) {
    const tuner::SearchSpace s = tuner::parse_space(kSystem, "x");
    auto threshold_scale = [&](const SystemDescriptor& sys, double rc, double box) {
        const double edge = 0.5 * box / rc;  // pme_scale at which rc x scale = box/2
        EXPECT_EQ(s.infeasible_reason(sys, config({{Param::PmeScale, edge * 0.999}}), caps()), "") << sys.canonical();
        EXPECT_NE(s.infeasible_reason(sys, config({{Param::PmeScale, edge * 1.001}}), caps()), "") << sys.canonical();
    };
    struct LjCase {
        const char* kind;
        mdcore::LjFluidSpec spec;
    };
    for (const LjCase& c : {LjCase{"lj", mdcore::lj_spec()}, LjCase{"argon", mdcore::argon_spec()},
                            LjCase{"lammps-lj", mdcore::lammps_lj_spec()}}) {
        mdcore::LjFluidSpec spec = c.spec;
        spec.natoms = 864;
        const mdcore::System sys = mdcore::make_lj_fluid(spec, c.kind);
        threshold_scale({c.kind, 864, 1}, spec.rc, sys.box.lengths[0]);
    }
    // A water box whose own rc fits (mdcore refuses the system otherwise, at any scale).
    mdcore::WaterSpec w;
    w.nwater = 1000;
    w.relax_steps = 0;
    const mdcore::System water = mdcore::make_water_system(w);
    threshold_scale({"water", 3000, 1}, w.rc, water.box.lengths[0]);
    threshold_scale({"water-ions", 3000, 1}, w.rc, water.box.lengths[0]);
}

TEST(Feasibility, HardwareLimits) {
    const tuner::SearchSpace s = tuner::parse_space(kSystem, "x");
    const SystemDescriptor lj{"lj", 4000, 1};
    EXPECT_EQ(s.infeasible_reason(lj, config({{Param::Threads, 4L}}), caps()), "");
    EXPECT_NE(s.infeasible_reason(lj, config({{Param::Threads, 8L}}), caps()).find("threads = 8 exceeds the 4"),
              std::string::npos);
    EXPECT_EQ(s.infeasible_reason(lj, config({{Param::Simd, std::string("auto")}}), caps()), "");
    EXPECT_EQ(s.infeasible_reason(lj, config({{Param::Simd, std::string("avx2")}}), caps()), "");
    EXPECT_NE(s.infeasible_reason(lj, config({{Param::Simd, std::string("avx512")}}), caps()).find("simd = avx512"),
              std::string::npos);
}

TEST(Feasibility, ListSettings) {
    const tuner::SearchSpace s = tuner::parse_space(kSystem, "x");
    const SystemDescriptor lj{"lj", 4000, 1};
    EXPECT_EQ(s.infeasible_reason(lj, config({{Param::Nstlist, 20L}, {Param::Nstprune, 20L}}), caps()), "");
    // mdcore's meaning: nstprune >= nstlist turns pruning off, so the point runs.
    EXPECT_EQ(s.infeasible_reason(lj, config({{Param::Nstlist, 10L}, {Param::Nstprune, 20L}}), caps()), "");
    EXPECT_EQ(s.infeasible_reason(lj, config({{Param::Nstprune, 20L}}), caps()), "");  // nstlist default: not judged
    EXPECT_NE(s.infeasible_reason(lj, config({{Param::Rlist, 0.8}}), caps()).find("--rlist 0.8 must be at least rc (0.85)"),
              std::string::npos);
    EXPECT_EQ(s.infeasible_reason(lj, config({{Param::Rlist, 0.9}}), caps()), "");
    // rlist is compared with the scaled cut-off.
    EXPECT_NE(s.infeasible_reason(lj, config({{Param::Rlist, 0.9}, {Param::PmeScale, 1.2}}), caps()), "");
    EXPECT_EQ(s.infeasible_reason(lj, config({{Param::PmeOrder, 8L}}), caps()), "pme_order: 8 is not 4, 5 or 6");
}

TEST(Feasibility, PmeSettingsOnChargeFreeSystemsAreAllowed) {
    const tuner::SearchSpace s = tuner::parse_space(kSystem, "x");
    const Config c = config({{Param::PmeScale, 1.1}, {Param::PmeSpacing, 0.16}, {Param::PmeOrder, 5L}});
    EXPECT_EQ(s.infeasible_reason({"lj", 4000, 1}, c, caps()), "");
}

}  // namespace
}  // namespace mdtune
