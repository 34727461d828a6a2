// `mdtune mpi rules`, `show` and `evaluate` as library functions (tuner/mpi,
// mdtune/mpi/commands.h), without the mdtune binary, on synthetic measurements.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../common/temp_dir_test.h"
#include "mdtune/mpi/commands.h"
#include "mdtune/mpi/rank_cap.h"
#include "synthetic_mpi_db.h"

namespace mdtune::mpi {
namespace {

namespace fs = std::filesystem;

HardwareInfo machine(const std::string& id) {
    HardwareInfo hw;
    hw.id = id;
    hw.mpi_library = "Open MPI 4.1.4";
    return hw;
}

class MpiCommands : public mdtest::SyntheticMpiDbTest {
protected:
    mpi::RulesResult rules_for_test_hardware(db::Store& store) const {
        mpi::RulesRequest request;
        request.out = path("rules.conf");
        request.collectives = {models::mpi::Collective::Allreduce, models::mpi::Collective::Alltoall};
        request.hardware = "hw-test";
        return mpi::write_rules(store, machine("hw-elsewhere"), request);
    }
};

TEST_F(MpiCommands, WriteRulesFitsWritesAndStoresTheModels) {
    db::Store store(synthetic_db());
    const mpi::RulesResult r = rules_for_test_hardware(store);
    EXPECT_EQ(r.data.hardware_id, "hw-test");
    EXPECT_EQ(r.data.mpi_library, "Open MPI 4.1.4");
    EXPECT_EQ(r.data.rows.size(), 2u * 5 * 10 * 3);  // collectives x layouts x sizes x variants
    EXPECT_TRUE(r.data.note.empty());
    // Both models beat a default that is 10 % behind the best everywhere: both kept.
    ASSERT_EQ(r.guard.size(), 2u);
    for (const mpi::GuardDecision& g : r.guard) {
        EXPECT_TRUE(g.kept) << g.note();
        EXPECT_LT(g.held_out.geomean_regret, g.held_out.default_geomean_regret) << g.note();
    }
    EXPECT_GT(r.cv.overall.points, 0u);
    EXPECT_LT(r.cv.overall.geomean_regret, r.cv.overall.default_geomean_regret);

    // The file on disk is the one returned, and decides as the data says.
    const mpi::RulesFile on_disk = mpi::read_rules_file(path("rules.conf"));
    ASSERT_EQ(on_disk.collectives.size(), 2u);
    ASSERT_EQ(r.file.collectives.size(), 2u);
    EXPECT_GT(r.comm_sizes, 0u);
    EXPECT_GE(r.message_rules, r.comm_sizes);
    EXPECT_EQ(mpi::lookup(on_disk, 2, 4, 16)->algorithm, 3);
    EXPECT_EQ(mpi::lookup(on_disk, 2, 4, 4 << 20)->algorithm, 4);
    EXPECT_EQ(mpi::lookup(on_disk, 3, 4, 4 * (4 << 20))->algorithm, 4);  // alltoall: bytes per rank x ranks
    EXPECT_NE(mpi::describe_ridge(r.model, {models::mpi::Collective::Allreduce}).find("allreduce"), std::string::npos);

    db::MpiStore ms(store);
    EXPECT_TRUE(ms.latest_model("hw-test", "allreduce"));
    EXPECT_TRUE(ms.latest_model("hw-test", "alltoall"));
}

TEST_F(MpiCommands, ThisMachineFallsBackToTheOnlyHardwareWithANote) {
    db::Store store(synthetic_db());
    const mpi::Dataset d = mpi::load_dataset(store, machine("hw-elsewhere"), "this", {models::mpi::Collective::Allreduce});
    EXPECT_EQ(d.hardware_id, "hw-test");
    EXPECT_NE(d.note.find("hw-elsewhere"), std::string::npos) << d.note;
    EXPECT_EQ(d.rows.size(), 5u * 10 * 3);  // allreduce only
    EXPECT_EQ(d.obs.size(), d.rows.size());
}

TEST_F(MpiCommands, NoMeasurementsIsAnInputErrorAndWritesNothing) {
    db::Store store(path("empty.db"));
    mpi::RulesRequest request;
    request.out = path("r.conf");
    request.hardware = "hw-x";
    try {
        mpi::write_rules(store, machine("hw-x"), request);
        FAIL() << "no InputError";
    } catch (const mpi::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no MPI measurements for hardware hw-x"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(path("r.conf")));
}

TEST_F(MpiCommands, ShowSelectionListsMeasuredPredictedDefaultAndTheRulesFile) {
    db::Store store(synthetic_db());
    rules_for_test_hardware(store);
    mpi::ShowRequest request;
    request.collectives = {models::mpi::Collective::Allreduce};
    request.hardware = "hw-test";
    request.only_ranks = std::vector<int>{4};
    request.rules = mpi::read_rules_file(path("rules.conf"));
    request.worst = 3;
    const mpi::ShowResult r = mpi::show_selection(store, machine("hw-elsewhere"), request);
    ASSERT_EQ(r.rows.size(), 10u);  // one layout, ten sizes
    for (const mpi::ShowRow& row : r.rows) {
        EXPECT_EQ(row.collective, models::mpi::Collective::Allreduce);
        EXPECT_EQ(row.site.ranks(), 4);
        ASSERT_TRUE(row.best);
        EXPECT_NE(row.best->first.algorithm, 0);  // the default is never the best here
        ASSERT_TRUE(row.default_us);
        EXPECT_NEAR(*row.default_us / row.best->second, 1.1, 1e-9);
        ASSERT_TRUE(row.predicted);
        EXPECT_TRUE(row.rules_choice.has_value() || row.rules_silent);
    }
    EXPECT_EQ(r.rows.front().best->first.algorithm, 3);  // 8 B
    EXPECT_EQ(r.rows.back().best->first.algorithm, 4);   // 2 MiB
    ASSERT_TRUE(r.measured_best.count(models::mpi::Collective::Allreduce));
    EXPECT_NEAR(r.measured_best.at(models::mpi::Collective::Allreduce).geomean(), 1.1, 1e-9);
    EXPECT_EQ(r.measured_best.at(models::mpi::Collective::Allreduce).sizes, 10u);
    ASSERT_LE(r.worst.size(), 3u);
    for (std::size_t i = 1; i < r.worst.size(); ++i) EXPECT_GE(r.worst[i - 1].regret, r.worst[i].regret);
    EXPECT_GT(r.cv.folds, 1u);
}

TEST_F(MpiCommands, EvaluateRefusesUnreadableAndMalformedRulesBeforeLaunching) {
    db::Store store(path("e.db"));
    mpi::LaunchContext launch;
    mpi::EvalOptions options;
    options.binary = path("no-such-binary");
    EXPECT_THROW(mpi::evaluate_and_store(store, "hw-test", path("missing.conf"), launch, options, {}, {}), mpi::InputError);
    std::ofstream(path("bad.conf")) << "1\n2 1\n4 1\n8 3 0 0\n";
    EXPECT_THROW(mpi::evaluate_and_store(store, "hw-test", path("bad.conf"), launch, options, {}, {}), mpi::RulesError);
}

TEST(RankCap, OneMachineCapsAtFourRanksPerCoreASlurmAllocationAtItsTasks) {
    LaunchContext local;
    local.local_cores = 2;
    const RankCap cap = rank_cap(local, 0);
    EXPECT_EQ(cap.most, 8);  // the default rank lists (up to 8) still fit 2 cores
    EXPECT_EQ(cap.where, "this machine's 2 core(s) (4 ranks per core)");
    std::vector<int> dropped;
    EXPECT_EQ(within_cap({2, 4, 8, 9, 99999}, cap, dropped), (std::vector<int>{2, 4, 8}));
    EXPECT_EQ(dropped, (std::vector<int>{9, 99999}));
    LaunchContext srun;
    srun.kind = LauncherKind::Srun;
    EXPECT_EQ(rank_cap(srun, 4).most, 4);
    EXPECT_EQ(rank_cap(srun, 4).where, "the Slurm allocation's 4 task(s)");
    EXPECT_EQ(rank_cap(srun, 0).most, 0);  // unknown allocation: srun itself refuses
    LaunchContext hosts = local;
    hosts.hostfile = "hosts";
    EXPECT_EQ(rank_cap(hosts, 0).most, 0);  // the hostfile says where ranks go
}

}  // namespace
}  // namespace mdtune::mpi
