// A user's own system, not a generated kind: a .gro/.top read with mdcore's reader, described
// like a generated box (atoms, box, density, charges, constraints from the files),
// keyed by a digest of the files' contents, stored and read back, given in a space.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <tuple>

#include "../common/address_space_limit.h"
#include "../common/file_text.h"
#include "../common/temp_dir_test.h"
#include "mdtune/core/input_error.h"
#include "mdtune/core/system_files.h"
#include "mdtune/db/store.h"
#include "mdtune/models/features.h"
#include "mdtune/models/ridge.h"
#include "mdtune/tuner/space.h"

namespace mdtune {
namespace {

const std::string kData = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm/";
// A 2,644-atom CHARMM27 peptide in TIP3P water; its .top #includes charmm27.ff.
const std::string kPeptide = std::string(MDT_TEST_DATA_DIR) + "/topologies/charmm27/";
const char* kForceFields = "/usr/share/gromacs/top/charmm27.ff";

// A production-like .mdp that changes every setting the tuner's view depends on.
const char* kPeptideMdp =
    "integrator = md\ndt = 0.0015\nnsteps = 5000\ncutoff-scheme = Verlet\ncoulombtype = PME\n"
    "rcoulomb = 1.1\nrvdw = 1.1\nfourierspacing = 0.14\npme-order = 4\newald-rtol = 1e-6\n"
    "verlet-buffer-tolerance = 0.004\ntcoupl = V-rescale\ntc-grps = System\ntau-t = 0.1\nref-t = 310\n"
    "constraints = h-bonds\n";

class SystemFiles : public mdtest::TempDirTest {};

// The digest describe_system_files keys a box by (mdtune::process::Fnv1a, 16 hex digits).
std::string fnv1a(const std::string& bytes) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

TEST_F(SystemFiles, DescribedFromTheFilesLikeAGeneratedBox) {
    const SystemDescriptor d = describe_system_files(kData + "conf.gro", kData + "topol.top");
    EXPECT_TRUE(d.from_files());
    EXPECT_EQ(d.natoms, 2652);
    EXPECT_EQ(d.kind_name(), "gro");
    EXPECT_EQ(d.canonical(), "gro:natoms=2652:files=" + d.files_digest);
    EXPECT_EQ(d.files_digest.size(), 16u);
    EXPECT_EQ(d.mdcore_args(), (std::vector<std::string>{"--gro", kData + "conf.gro", "--top", kData + "topol.top"}));
    // Without an .mdp the id is the one databases written before .mdp files were taken hold.
    EXPECT_EQ(d.canonical(), "gro:natoms=2652:files=a89200874e89c7db");
    EXPECT_TRUE(d.mdp.empty());
    // The same content elsewhere is the same system; one changed byte is another.
    write("conf.gro", mdtest::file_text(kData + "conf.gro"));
    write("topol.top", mdtest::file_text(kData + "topol.top"));
    EXPECT_EQ(describe_system_files(path("conf.gro"), path("topol.top")).canonical(), d.canonical());
    write("topol.top", mdtest::file_text(kData + "topol.top") + "\n");
    EXPECT_NE(describe_system_files(path("conf.gro"), path("topol.top")).files_digest, d.files_digest);

    const models::SystemModel sys(d);  // the features generated boxes get, from the files
    EXPECT_EQ(sys.features().kind, "gro");
    EXPECT_EQ(sys.features().natoms, 2652);
    EXPECT_DOUBLE_EQ(sys.features().charged_fraction, 1.0);  // SPC/E: every site charged
    EXPECT_EQ(sys.features().constraints, 2652 / 3);
    EXPECT_EQ(sys.features().distance_constraints, 0);  // SETTLEs only
    EXPECT_EQ(sys.features().bonded_interactions, 0);
    EXPECT_NEAR(sys.features().number_density, 2652 / sys.features().volume, 1e-9);
    models::HardwareFeatures hw;
    hw.id = "hw";
    hw.cores = 2;
    hw.simd_levels = {"none", "avx2"};
    const mdcore::EffectiveConfig eff = sys.resolve(Config{}, hw);
    EXPECT_TRUE(eff.pme);
    EXPECT_EQ(eff.constraints, 2652 / 3);
    EXPECT_GE(eff.rlist, eff.rc);
}

TEST_F(SystemFiles, UnsupportedOrMissingFilesAreClearErrors) {
    write("bad.top", mdtest::file_text(kData + "topol.top") + "\n[ bonds ]\n1 2 1 0.1 1000\n");
    try {
        describe_system_files(kData + "conf.gro", path("bad.top"));
        FAIL() << "accepted [ bonds ]";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("bad.top"), std::string::npos) << what;
        EXPECT_NE(what.find("bonds"), std::string::npos) << what;
    }
    try {
        describe_system_files(path("nowhere.gro"), kData + "topol.top");
        FAIL() << "accepted a missing file";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--gro: " + path("nowhere.gro")), std::string::npos) << e.what();
    }
    // Devices are refused before a byte is read; a file over the limit, by its size.
    mdtest::AddressSpaceLimit limit(256 << 20);  // the unbounded read ran out of memory here
    for (const auto& [gro, top, fragment] :
         {std::tuple<std::string, std::string, std::string>{
              "/dev/zero", kData + "topol.top", "--gro: /dev/zero: cannot read the file: it is not a regular file"},
          {kData + "conf.gro", "/dev/zero", "--top: /dev/zero: cannot read the file: it is not a regular file"}}) {
        try {
            describe_system_files(gro, top);
            FAIL() << "accepted " << gro << " " << top;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        }
    }
}

TEST_F(SystemFiles, TrialsOfAUsersBoxAreStoredAndReadBackByDigest) {
    const SystemDescriptor d = describe_system_files(kData + "conf.gro", kData + "topol.top");
    db::Store store(path("t.db"));
    db::StoredTrial t;
    t.hardware_id = "hw";
    t.system = d;
    t.build_id = "b";
    t.result.status = TrialStatus::Ok;
    t.result.ms_median = 1.0;
    store.insert_trial(t);
    db::TrialFilter f;
    f.system_kind = "gro";
    const auto back = store.trials(f);
    ASSERT_EQ(back.size(), 1u);
    EXPECT_TRUE(back[0].system.from_files());
    EXPECT_EQ(back[0].system.canonical(), d.canonical());
    EXPECT_EQ(back[0].key().str(), t.key().str());
    // Paths are not part of the system's identity, but the database keeps where the box was read.
    EXPECT_EQ(back[0].system.gro, kData + "conf.gro");
    EXPECT_EQ(back[0].system.top, kData + "topol.top");
    EXPECT_TRUE(store.find_trial(t.key()));
}

// mdtune fit reads a box back from the paths the database kept; the digest must
// still match, else the trials are not this box's and are left out.
TEST_F(SystemFiles, ABoxReadBackFromTheDatabaseIsCheckedAgainstItsDigest) {
    write("conf.gro", mdtest::file_text(kData + "conf.gro"));
    write("topol.top", mdtest::file_text(kData + "topol.top") + "\n; edited after the sweep\n");
    auto stale = parse_file_system_id("gro:natoms=2652:files=0123456789abcdef");
    ASSERT_TRUE(stale);
    stale->gro = path("conf.gro");
    stale->top = path("topol.top");
    try {
        const models::SystemModel sys(*stale);
        FAIL() << "a changed box was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("changed since its trials were measured"), std::string::npos) << e.what();
    }
    auto moved = parse_file_system_id("gro:natoms=2652:files=fedcba9876543210");
    moved->gro = path("gone.gro");
    moved->top = path("topol.top");
    EXPECT_THROW(models::SystemModel{*moved}, std::invalid_argument);
}

TEST_F(SystemFiles, ASpaceNamesTheFilesRelativeToItself) {
    write("conf.gro", mdtest::file_text(kData + "conf.gro"));
    write("topol.top", mdtest::file_text(kData + "topol.top"));
    write("space.toml", "[system]\ngro = \"conf.gro\"\ntop = \"topol.top\"\n[space]\nnstlist = [10, 20]\n");
    const tuner::SearchSpace s = tuner::load_space(path("space.toml"));
    ASSERT_EQ(s.systems.size(), 1u);
    EXPECT_TRUE(s.systems[0].from_files());
    EXPECT_EQ(s.systems[0].gro, path("conf.gro"));
    EXPECT_EQ(s.systems[0].natoms, 2652);
    EXPECT_EQ(s.configs().size(), 2u);
    for (const char* bad : {"[system]\ngro = \"conf.gro\"\n[space]\nnstlist = [10]\n",
                            "[system]\ngro = \"conf.gro\"\ntop = \"topol.top\"\nkind = \"water\"\n[space]\nnstlist = [10]\n",
                            "[system]\ngro = \"missing.gro\"\ntop = \"topol.top\"\n[space]\nnstlist = [10]\n"}) {
        write("bad.toml", bad);
        EXPECT_THROW(tuner::load_space(path("bad.toml")), tuner::SpaceError) << bad;
    }
}

// A protein with its .mdp: the summary, the PME settings and the features are those
// of mdcore run --gro --top --mdp; the digest covers the .mdp.
TEST_F(SystemFiles, AnMdpGivesTheSettingsMdcoreRunUsesAndIsPartOfTheDigest) {
    if (!std::filesystem::exists(kForceFields)) GTEST_SKIP() << kForceFields << " is not installed (GROMACS' data)";
    const std::string gro = kPeptide + "conf.gro", top = kPeptide + "topol.top";
    const std::string mdp = write("md.mdp", kPeptideMdp);
    const SystemDescriptor plain = describe_system_files(gro, top);
    const SystemDescriptor d = describe_system_files(gro, top, mdp);
    EXPECT_EQ(d.natoms, 2644);
    EXPECT_EQ(d.mdp, mdp);
    EXPECT_NE(d.files_digest, plain.files_digest);
    EXPECT_EQ(d.canonical(), "gro:natoms=2644:files=" + d.files_digest);
    EXPECT_EQ(d.mdcore_args(), (std::vector<std::string>{"--gro", gro, "--top", top, "--mdp", mdp}));
    // The same .mdp elsewhere is the same system; an edited one (a comment) is another.
    EXPECT_EQ(describe_system_files(gro, top, write("copy.mdp", kPeptideMdp)).files_digest, d.files_digest);
    EXPECT_NE(describe_system_files(gro, top, write("edited.mdp", std::string(kPeptideMdp) + "; note\n")).files_digest,
              d.files_digest);

    const auto summary = system_summary(d);
    EXPECT_DOUBLE_EQ(summary->rc, 1.1);
    EXPECT_DOUBLE_EQ(summary->dt, 0.0015);
    EXPECT_DOUBLE_EQ(summary->temperature, 310.0);
    EXPECT_DOUBLE_EQ(summary->ewald_rtol, 1e-6);
    EXPECT_DOUBLE_EQ(summary->drift_tolerance, 0.004);
    EXPECT_GT(summary->distance_constraints, 0);  // constraints = h-bonds
    EXPECT_EQ(system_summary(plain)->distance_constraints, 0);
    EXPECT_DOUBLE_EQ(system_summary(plain)->rc, 1.0);  // mdcore run's own settings without an .mdp

    // fourierspacing applies where a config sets none, as under mdcore run --mdp.
    models::HardwareFeatures hw;
    hw.id = "hw";
    hw.cores = 2;
    hw.simd_levels = {"none", "avx2"};
    const models::SystemModel sys(d);
    EXPECT_DOUBLE_EQ(sys.resolve(Config{}, hw).pme_spacing, 0.14);
    Config spaced;
    spaced.set(Param::PmeSpacing, 0.12);
    EXPECT_DOUBLE_EQ(sys.resolve(spaced, hw).pme_spacing, 0.12);
    EXPECT_DOUBLE_EQ(models::SystemModel(plain).resolve(Config{}, hw).pme_spacing, 0.12);  // mdcore's default
    EXPECT_DOUBLE_EQ(system_run_config(d, Config{}).pme_spacing, 0.14);

    // What proteins add to the features: LINCS constraints and bonded terms per atom.
    const models::SystemFeatures& f = sys.features();
    EXPECT_EQ(f.distance_constraints, summary->distance_constraints);
    EXPECT_GT(f.bonded_interactions, f.distance_constraints);  // the peptide's angles, dihedrals, pairs, CMAP
    EXPECT_DOUBLE_EQ(f.dt, 0.0015);
    const models::Features x = models::compute_features(hw, f, sys.resolve(Config{}, hw));
    const Eigen::VectorXd v = models::RidgeModel::feature_vector(x);
    const auto& names = models::RidgeModel::feature_names();
    ASSERT_EQ(static_cast<std::size_t>(v.size()), names.size());
    EXPECT_EQ(names[names.size() - 2], "lincs_per_atom");
    EXPECT_DOUBLE_EQ(v(v.size() - 2), static_cast<double>(f.distance_constraints) / f.natoms);
    EXPECT_DOUBLE_EQ(v(v.size() - 1), static_cast<double>(f.bonded_interactions) / f.natoms);
}

TEST_F(SystemFiles, ARefusedOrMissingMdpIsOneLineNamingFileAndLine) {
    if (!std::filesystem::exists(kForceFields)) GTEST_SKIP() << kForceFields << " is not installed (GROMACS' data)";
    const std::string gro = kPeptide + "conf.gro", top = kPeptide + "topol.top";
    for (const auto& [text, where] : std::vector<std::pair<std::string, std::string>>{
             {"dt = 0.002\nwarp-drive = yes\n", "bad.mdp:2:"},
             {"dt = 0.002\npcoupl = C-rescale\n", "bad.mdp:2:"},
             {"fourierspacing = 0\n", "bad.mdp:1:"}}) {
        const std::string mdp = write("bad.mdp", text);
        try {
            describe_system_files(gro, top, mdp);
            ADD_FAILURE() << "accepted " << text;
        } catch (const InputError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(where), std::string::npos) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
    }
    try {
        describe_system_files(gro, top, path("nowhere.mdp"));
        FAIL() << "accepted a missing .mdp";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--mdp: " + path("nowhere.mdp")), std::string::npos) << e.what();
    }
}

// mdtune fit reads a box back with its .mdp from the paths the database kept.
TEST_F(SystemFiles, ABoxWithItsMdpIsStoredAndReadBack) {
    if (!std::filesystem::exists(kForceFields)) GTEST_SKIP() << kForceFields << " is not installed (GROMACS' data)";
    const SystemDescriptor d = describe_system_files(kPeptide + "conf.gro", kPeptide + "topol.top",
                                                     write("md.mdp", kPeptideMdp));
    db::Store store(path("t.db"));
    db::StoredTrial t;
    t.hardware_id = "hw";
    t.system = d;
    t.build_id = "b";
    t.result.status = TrialStatus::Ok;
    t.result.ms_median = 1.0;
    store.insert_trial(t);
    const auto back = store.trials();
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].system.canonical(), d.canonical());
    EXPECT_EQ(back[0].system.mdp, path("md.mdp"));
    EXPECT_EQ(back[0].system.mdcore_args().back(), path("md.mdp"));

    // A box this process has not read yet (fit in a new process): the digest, FNV-1a
    // over the three files, matches only when it is read with its .mdp.
    const std::string mdp = write("fresh.mdp", std::string(kPeptideMdp) + "; never read before\n");
    const std::string digest = fnv1a("gro\n" + mdtest::file_text(kPeptide + "conf.gro") + "\ntop\n" +
                                     mdtest::file_text(kPeptide + "topol.top") + "\nmdp\n" + mdtest::file_text(mdp));
    auto stored = parse_file_system_id("gro:natoms=2644:files=" + digest);
    ASSERT_TRUE(stored);
    stored->gro = kPeptide + "conf.gro";
    stored->top = kPeptide + "topol.top";
    SystemDescriptor without = *stored;  // first, so the right one is not cached yet
    try {
        const models::SystemModel sys(without);
        FAIL() << "read without its .mdp, the box was taken for the one measured";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("changed since its trials were measured"), std::string::npos) << e.what();
    }
    stored->mdp = mdp;
    const models::SystemModel sys(*stored);
    EXPECT_DOUBLE_EQ(sys.features().rc, 1.1);
    EXPECT_GT(sys.features().distance_constraints, 0);
}

TEST_F(SystemFiles, ASpaceNamesItsMdpRelativeToItself) {
    if (!std::filesystem::exists(kForceFields)) GTEST_SKIP() << kForceFields << " is not installed (GROMACS' data)";
    const std::string files = "[system]\ngro = \"" + kPeptide + "conf.gro\"\ntop = \"" + kPeptide + "topol.top\"\n";
    write("md.mdp", kPeptideMdp);
    write("space.toml", files + "mdp = \"md.mdp\"\n[space]\nnstlist = [10, 20]\n");
    const tuner::SearchSpace s = tuner::load_space(path("space.toml"));
    ASSERT_EQ(s.systems.size(), 1u);
    EXPECT_EQ(s.systems[0].mdp, path("md.mdp"));
    EXPECT_EQ(s.systems[0].canonical(),
              describe_system_files(kPeptide + "conf.gro", kPeptide + "topol.top", path("md.mdp")).canonical());
    EXPECT_EQ(system_summary(s.systems[0])->temperature, 310.0);

    write("bad.mdp", "dt = 0.002\nwarp-drive = yes\n");
    write("bad.toml", files + "mdp = \"bad.mdp\"\n[space]\nnstlist = [10]\n");
    try {
        tuner::load_space(path("bad.toml"));
        FAIL() << "accepted a refused .mdp";
    } catch (const tuner::SpaceError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(path("bad.mdp") + ":2:"), std::string::npos) << what;
        EXPECT_NE(what.find("warp-drive"), std::string::npos) << what;
        EXPECT_NE(what.find("(line 4)"), std::string::npos) << what;  // the space's mdp key
    }
    write("alone.toml", "[system]\nmdp = \"md.mdp\"\n[space]\nnstlist = [10]\n");
    EXPECT_THROW(tuner::load_space(path("alone.toml")), tuner::SpaceError);
}

}  // namespace
}  // namespace mdtune
