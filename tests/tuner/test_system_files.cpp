// A user's own system (issue 16): a .gro/.top read with mdcore's reader, described
// like a generated box (atoms, box, density, charges, constraints from the files),
// keyed by a digest of the files' contents, stored and read back, given in a space.
#include <gtest/gtest.h>


#include "../common/file_text.h"
#include "../common/temp_dir_test.h"
#include "mdtune/core/input_error.h"
#include "mdtune/core/system_files.h"
#include "mdtune/db/store.h"
#include "mdtune/models/features.h"
#include "mdtune/tuner/space.h"

namespace mdtune {
namespace {

const std::string kData = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm/";

class SystemFiles : public mdtest::TempDirTest {};

TEST_F(SystemFiles, DescribedFromTheFilesLikeAGeneratedBox) {
    const SystemDescriptor d = describe_system_files(kData + "conf.gro", kData + "topol.top");
    EXPECT_TRUE(d.from_files());
    EXPECT_EQ(d.natoms, 2652);
    EXPECT_EQ(d.kind_name(), "gro");
    EXPECT_EQ(d.canonical(), "gro:natoms=2652:files=" + d.files_digest);
    EXPECT_EQ(d.files_digest.size(), 16u);
    EXPECT_EQ(d.mdcore_args(), (std::vector<std::string>{"--gro", kData + "conf.gro", "--top", kData + "topol.top"}));
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

}  // namespace
}  // namespace mdtune
