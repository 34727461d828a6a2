// Prediction: features match mdcore's own resolution, candidates never break a
// constraint or the accuracy target, and the output mappings (GROMACS, SVG).
#include <gtest/gtest.h>

#include "model_test_util.h"
#include "mdtune/core/feasibility.h"
#include "mdtune/models/gromacs_settings.h"
#include "mdtune/models/predictor.h"
#include "mdtune/models/svg_plot.h"

namespace mdtune {
namespace {

TEST(Features, StandInResolvesExactlyAsMdcoreRecords) {
    // mdcore run --system water --nwater 500 on AVX-512 recorded: 4x8, rlist 1.032,
    // rlist_inner 1.000, PME grid 21^3 (see docs/user/run_report.md for the fields).
    const models::SystemModel sys({mdcore::SystemKind::Water, 1500, 1});
    EXPECT_EQ(sys.features().natoms, 1500);
    EXPECT_NEAR(sys.features().number_density, 99.98, 0.05);
    EXPECT_DOUBLE_EQ(sys.features().charged_fraction, 1.0);
    EXPECT_EQ(sys.features().constraints, 500);
    const auto eff = sys.resolve(Config{}, test::test_hardware());
    EXPECT_EQ(eff.cluster, mdcore::ClusterShape::k4x8);
    EXPECT_EQ(eff.nstlist, 20);
    EXPECT_NEAR(eff.rlist, 1.032, 1e-9);
    EXPECT_NEAR(eff.rlist_inner, 1.000, 1e-9);
    EXPECT_EQ(eff.pme_grid, (std::array<int, 3>{21, 21, 21}));
    EXPECT_EQ(eff.threads, 4);  // the target machine's cores, not this one's
    EXPECT_EQ(eff.simd, mdcore::SimdLevel::Avx512);

    models::HardwareFeatures avx2 = test::test_hardware();
    avx2.simd_levels = {"none", "avx2"};
    EXPECT_EQ(sys.resolve(Config{}, avx2).cluster, mdcore::ClusterShape::k4x4);
    const models::SystemModel lj({mdcore::SystemKind::Lj, 2000, 1});
    EXPECT_DOUBLE_EQ(lj.features().charged_fraction, 0.0);
    EXPECT_FALSE(lj.resolve(Config{}, avx2).pme);
    EXPECT_EQ(lj.resolve(Config{}, test::test_hardware()).cluster, mdcore::ClusterShape::k8x4);  // no charges
}

// A fingerprint's SIMD levels follow mdcore's rule: AVX-512 needs F, VL and DQ.
TEST(Features, SimdLevelsFollowMdcoresRule) {
    HardwareInfo info;
    info.id = "hw-f-only";
    info.hardware_threads = 4;
    info.simd = {"avx2", "fma", "avx512f"};
    EXPECT_EQ(models::hardware_features(info).simd_levels, (std::vector<std::string>{"none", "avx2"}));
    info.simd = {"avx2", "fma", "avx512f", "avx512vl", "avx512dq"};
    EXPECT_EQ(models::hardware_features(info).simd_levels, (std::vector<std::string>{"none", "avx2", "avx512"}));
    info.simd = {"avx2"};
    EXPECT_EQ(models::hardware_features(info).simd_levels, (std::vector<std::string>{"none"}));
}

TEST(Features, WorkTermsScaleAsThePhysicsSays) {
    const auto hw = test::test_hardware();
    const models::SystemModel small({mdcore::SystemKind::Water, 3000, 1}), big({mdcore::SystemKind::Water, 24000, 1});
    Config c;
    c.set(Param::Nstlist, 20L);
    const models::Features fs = models::compute_features(hw, small.features(), small.resolve(c, hw));
    const models::Features fb = models::compute_features(hw, big.features(), big.resolve(c, hw));
    EXPECT_NEAR(fb.pair_work / fs.pair_work, 8.0, 0.01);     // N rho V at equal density and rlist
    EXPECT_NEAR(fb.spread_work / fs.spread_work, 8.0, 1e-9);  // N order^3
    EXPECT_GT(fb.fft_work / fs.fft_work, 8.0);                // G log G
    Config longer = c;
    longer.set(Param::Nstlist, 80L);
    const models::Features fl = models::compute_features(hw, small.features(), small.resolve(longer, hw));
    EXPECT_GT(fl.rlist, fs.rlist);             // a longer list lifetime needs a larger buffer
    EXPECT_LT(fl.search_work, fs.search_work);  // but searches less often
    // Cluster efficiency: a 4x8 list evaluates more pairs than 4x4 for the same
    // radius, a searched list more than a pruned one, and both more than the sphere.
    for (models::ListKind k : {models::ListKind::Searched, models::ListKind::Pruned})
        EXPECT_GT(models::cluster_list_volume(4, 8, 100, 1.0, k), models::cluster_list_volume(4, 4, 100, 1.0, k));
    EXPECT_GT(models::cluster_list_volume(4, 4, 100, 1.0, models::ListKind::Searched), models::cluster_list_volume(4, 4, 100, 1.0, models::ListKind::Pruned));
    EXPECT_GT(models::cluster_list_volume(4, 4, 100, 1.0, models::ListKind::Pruned), 4.18879);
    // Against mdcore's own counts (docs: SPC/E, 1,500 atoms, rlist 1.067 / 1.011):
    // 4x4 outer 833,088 and pruned 610,388 pairs; 8x4 outer 1,070,112, pruned 754,480.
    const double half_n_rho = 0.5 * 1500 * 99.98;
    EXPECT_NEAR(half_n_rho * models::cluster_list_volume(4, 4, 99.98, 1.067, models::ListKind::Searched) / 833088, 1.0, 0.1);
    EXPECT_NEAR(half_n_rho * models::cluster_list_volume(4, 4, 99.98, 1.011, models::ListKind::Pruned) / 610388, 1.0, 0.1);
    EXPECT_NEAR(half_n_rho * models::cluster_list_volume(8, 4, 99.98, 1.067, models::ListKind::Searched) / 1070112, 1.0, 0.12);
    EXPECT_NEAR(half_n_rho * models::cluster_list_volume(8, 4, 99.98, 1.011, models::ListKind::Pruned) / 754480, 1.0, 0.12);
    // LJ without a buffer: no pruning, the kernels run on the searched list.
    const models::SystemModel lj({mdcore::SystemKind::Lj, 4000, 1});
    Config c20;
    c20.set(Param::Nstlist, 20L);
    const models::Features flj = models::compute_features(hw, lj.features(), lj.resolve(c20, hw));
    if (flj.rlist_inner >= flj.rlist) {
        EXPECT_FALSE(flj.pruned);
        EXPECT_EQ(flj.prune_work, 0.0);
        EXPECT_EQ(flj.pair_work, flj.outer_pairs);
    }
    EXPECT_TRUE(fs.pruned);
}

TEST(Predictor, NeverProposesAConfigThatBreaksAConstraint) {
    const auto hw = test::test_hardware("hw-test", 2);
    auto samples = test::synthetic_samples(test::test_hardware("hw-test", 4));
    models::CostModel model;
    model.fit(samples);
    // 1,500 water atoms: half the box is 1.233 nm, so pme_scale 1.3 (rc 1.3 nm) cannot run.
    const SystemDescriptor water{mdcore::SystemKind::Water, 1500, 1};
    models::CandidateGrid grid;
    grid.threads = {1, 2, 4};  // 4 exceeds this machine
    const std::string bad = "cluster=4x8;nstlist=40;pme_scale=1.1;threads=2";
    const models::Ranking r = models::rank_configs(model, water, hw, grid, {bad});
    ASSERT_FALSE(r.ranked.empty());
    EXPECT_EQ(r.ranked.size() + r.rejected.size(), grid.configs(r.system_features, hw).size());
    for (const models::RankedConfig& c : r.ranked) {
        // The one feasibility check (mdtune/core/feasibility.h) sweeps use too.
        EXPECT_EQ(infeasible_reason(water, c.config, hw.caps()), "") << c.config.canonical();
        EXPECT_LE(std::get<long>(*c.config.get(Param::Threads)), 2);
        EXPECT_LT(c.effective.rc, 0.5 * std::cbrt(r.system_features.volume));
        EXPECT_GE(c.effective.rlist, c.effective.rc);
        EXPECT_TRUE(c.effective.rlist_from_estimate);  // the buffer keeps the drift target
        EXPECT_NE(c.config.canonical(), bad);
        EXPECT_GT(c.prediction.ms, 0);
        EXPECT_LE(c.ns_lo, c.ns_per_day);
        EXPECT_GE(c.ns_hi, c.ns_per_day);
    }
    std::size_t too_big = 0, too_many_threads = 0, invalid = 0;
    for (const models::RejectedConfig& x : r.rejected) {
        too_big += x.reason.find("must be below half the shortest box edge") != std::string::npos;
        too_many_threads += x.reason.find("exceeds the 2 hardware threads") != std::string::npos;
        invalid += x.config.canonical() == bad;
    }
    EXPECT_GT(too_big, 0u);
    EXPECT_GT(too_many_threads, 0u);
    EXPECT_EQ(invalid, 1u);
    // Fastest first among the covered configs, then among those with settings the
    // training never had (nstlist 80 here).
    for (std::size_t k = 1; k < r.ranked.size(); ++k) {
        const models::Prediction &a = r.ranked[k - 1].prediction, &b = r.ranked[k].prediction;
        EXPECT_TRUE(a.covered() || !b.covered());
        if (a.covered() == b.covered()) EXPECT_LE(a.ms, b.ms);
    }
    ASSERT_TRUE(r.default_config);
    EXPECT_EQ(r.default_config->config.canonical(), "");
}

TEST(Predictor, LjSystemsGetNoPmeBalanceAndTheDefaultThreadGrid) {
    const auto hw = test::test_hardware("hw-test", 3);
    const models::SystemModel lj({mdcore::SystemKind::Lj, 4000, 1});
    const auto configs = models::CandidateGrid{}.configs(lj.features(), hw);
    // Threads 1, 2, 3 on one rank, and 2 ranks x 1 thread (the layouts that fill 3 cores).
    EXPECT_EQ(configs.size(), 3u * 4u * (3u + 1u));
    std::size_t two_ranks = 0;
    for (const Config& c : configs) {
        EXPECT_EQ(c.get(Param::PmeScale), nullptr);
        if (c.value<long>(Param::Ranks)) {
            EXPECT_EQ(c.value<long>(Param::Ranks), 2);
            EXPECT_EQ(c.value<long>(Param::Threads), 1);
            ++two_ranks;
        }
    }
    EXPECT_EQ(two_ranks, 3u * 4u);
    models::HardwareFeatures many = hw;
    many.cores = 64;
    many.physical_cores = 32;
    std::set<long> threads;
    for (const Config& c : models::CandidateGrid{}.configs(lj.features(), many)) threads.insert(std::get<long>(*c.get(Param::Threads)));
    EXPECT_EQ(threads, (std::set<long>{1, 2, 4, 8, 16, 32, 64}));
}

TEST(Predictor, RecordedInvalidConfigsAreCollectedPerMachineAndKind) {
    const auto hw = test::test_hardware();
    auto trials = test::synthetic_trials(hw);
    trials[0].result.status = TrialStatus::Invalid;
    trials[1].result.status = TrialStatus::Invalid;
    trials[1].hardware_id = "hw-other";
    auto bad = models::invalid_configs(trials, hw.id, trials[0].system.kind);
    EXPECT_EQ(bad, (std::set<std::string>{trials[0].config.canonical()}));
    // A longer Ok run of the same config (another size of the kind) clears it;
    // a shorter one does not.
    db::StoredTrial longer = trials[0];
    longer.system.natoms = 4000;
    longer.result.status = TrialStatus::Ok;
    longer.measure.steps = trials[0].measure.steps - 1;
    trials.push_back(longer);
    EXPECT_EQ(models::invalid_configs(trials, hw.id, trials[0].system.kind).size(), 1u);
    trials.back().measure.steps = trials[0].measure.steps * 5;
    EXPECT_TRUE(models::invalid_configs(trials, hw.id, trials[0].system.kind).empty());
}

// A GROMACS trial (its report names a GROMACS build) is not mdcore's data: its
// settings and times would teach mdcore's model about another program.
TEST(Predictor, OtherEnginesTrialsAreNotTrainingData) {
    const auto hw = test::test_hardware();
    auto trials = test::synthetic_trials(hw);
    const std::map<std::string, models::HardwareFeatures> hardware{{hw.id, hw}};
    const std::size_t all = models::make_samples(trials, hardware).size();
    ASSERT_GT(all, 1u);
    trials[0].result.report = mdcore::RunReport{};
    trials[0].result.report->build.engine_version = "GROMACS 2022.5-Debian_2022.5_2";
    EXPECT_EQ(trial_engine(trials[0].result), "gromacs");
    EXPECT_EQ(trial_engine(trials[1].result), "mdcore");
    EXPECT_EQ(models::make_samples(trials, hardware).size(), all - 1);
    trials[0].result.status = TrialStatus::Invalid;
    EXPECT_TRUE(models::invalid_configs(trials, hw.id, trials[0].system.kind).empty());
}

TEST(Output, GromacsSettingsFollowThePmeBalance) {
    const auto hw = test::test_hardware();
    const models::SystemModel water({mdcore::SystemKind::Water, 3000, 1});
    Config c;
    c.set(Param::Cluster, std::string("4x8"));
    c.set(Param::Nstlist, 40L);
    c.set(Param::PmeScale, 1.2);
    c.set(Param::Threads, 2L);
    const models::GromacsSettings g = models::gromacs_settings(water.features(), water.resolve(c, hw));
    std::map<std::string, std::string> mdp(g.mdp.begin(), g.mdp.end());
    EXPECT_EQ(mdp["nstlist"], "40");
    EXPECT_EQ(mdp["rcoulomb"], "1.2");
    EXPECT_EQ(mdp["rvdw"], "1.2");
    EXPECT_EQ(mdp["fourierspacing"], "0.144");
    EXPECT_EQ(mdp["coulombtype"], "PME");
    EXPECT_NE(g.mdrun.find("-ntomp 2"), std::string::npos);
    EXPECT_EQ(models::mdcore_command({mdcore::SystemKind::Water, 3000, 1}, c),
              "mdcore run --system water --nwater 1000 --seed 1 --cluster 4x8 --nstlist 40 --pme-scale 1.2 --threads 2");
    const models::SystemModel lj({mdcore::SystemKind::Lj, 2000, 1});
    const models::GromacsSettings gl = models::gromacs_settings(lj.features(), lj.resolve(Config{}, hw));
    for (const auto& [k, v] : gl.mdp) EXPECT_NE(k, "rcoulomb");
}

// A stored fingerprint with a GPU (a fixture: this machine has none) gives the
// models its GPU features and the feasibility check its GPU.
TEST(Output, GpuFeaturesFromAStoredFingerprint) {
    HardwareInfo info;
    info.id = "hw-gpu-fixture";
    info.hardware_threads = 16;
    info.gpus.push_back({"NVIDIA H200", 141L << 30, "9.0", 132, 1980, 4800.0});
    const models::HardwareFeatures f = models::hardware_features_from_json(info.to_json());
    EXPECT_TRUE(f.has_gpu);
    EXPECT_TRUE(f.caps().has_gpu);
    EXPECT_EQ(f.gpu_model, "NVIDIA H200");
    EXPECT_EQ(f.gpu_multiprocessors, 132);
    EXPECT_EQ(f.gpu_clock_mhz, 1980);
    EXPECT_DOUBLE_EQ(f.gpu_memory_bandwidth_gbs, 4800.0);
    info.gpus.clear();
    EXPECT_FALSE(models::hardware_features_from_json(info.to_json()).has_gpu);
}

// The offload modes print as GROMACS' mdrun flags, and as mdcore's.
TEST(Output, GromacsSettingsNameTheOffloadModes) {
    auto hw = test::test_hardware();
    hw.has_gpu = true;
    const models::SystemModel water({mdcore::SystemKind::Water, 3000, 1});
    Config c;
    c.set(Param::NbOffload, std::string("gpu"));
    c.set(Param::PmeOffload, std::string("gpu"));
    c.set(Param::UpdateOffload, std::string("cpu"));
    c.set(Param::GpuId, 1L);
    const models::GromacsSettings g = models::gromacs_settings(water.features(), water.resolve(c, hw));
    EXPECT_NE(g.mdrun.find(" -nb gpu -pme gpu -update cpu -gpu_id 1"), std::string::npos) << g.mdrun;
    EXPECT_EQ(models::mdcore_command({mdcore::SystemKind::Water, 3000, 1}, c),
              "mdcore run --system water --nwater 1000 --seed 1 --nb gpu --pme gpu --update cpu --gpu-id 1");
    const models::GromacsSettings cpu = models::gromacs_settings(water.features(), water.resolve(Config{}, hw));
    EXPECT_NE(cpu.mdrun.find(" -nb cpu"), std::string::npos) << cpu.mdrun;
}

TEST(Output, SvgHasOneLinePerSeriesAndFilledOrHollowMarkers) {
    std::vector<models::PlotSeries> series{
        {"hw-a (water)", {{1500, 200, true}, {3000, 110, true}, {48000, 7, false}}},
        {"hw-b <fast>", {{1500, 400, false}, {3000, 210, false}}},
    };
    const std::string svg = models::render_svg(series, "ns/day by size");
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    auto count = [&](const std::string& what) {
        std::size_t n = 0;
        for (auto p = svg.find(what); p != std::string::npos; p = svg.find(what, p + 1)) ++n;
        return n;
    };
    EXPECT_EQ(count("<polyline"), 2u);
    EXPECT_NE(svg.find("hw-b &lt;fast&gt;"), std::string::npos);
    EXPECT_EQ(count("(measured)</title>"), 2u);
    EXPECT_EQ(count("(predicted)</title>"), 3u);
    EXPECT_NE(svg.find("atoms (log scale)"), std::string::npos);
    EXPECT_THROW(models::render_svg({}, "empty"), std::invalid_argument);
}

}  // namespace
}  // namespace mdtune
