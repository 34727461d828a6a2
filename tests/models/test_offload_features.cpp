// Offload modes in the models (GROMACS' modes B, C and E): which tasks run on the GPU, and the GPU's
// size, reach the features; each model's inputs tell modes B, C and E apart, and the
// cost model moves a task's CPU work terms to GPU terms when the task moves.
#include <gtest/gtest.h>

#include <string_view>

#include "mdtune/models/cost_model.h"
#include "mdtune/models/features.h"
#include "mdtune/models/knn.h"
#include "mdtune/models/ridge.h"
#include "model_test_util.h"

namespace mdtune {
namespace {

models::HardwareFeatures gpu_machine() {
    models::HardwareFeatures hw = test::test_hardware("hw-gpu", 16);
    hw.has_gpu = true;
    hw.gpu_model = "NVIDIA H200";
    hw.gpu_multiprocessors = 132;
    hw.gpu_clock_mhz = 1980;
    hw.gpu_memory_bandwidth_gbs = 4814.3;
    return hw;
}

Config mode(const char* nb, const char* pme, const char* update) {
    Config c;
    c.set(Param::NbOffload, std::string(nb));
    c.set(Param::PmeOffload, std::string(pme));
    c.set(Param::UpdateOffload, std::string(update));
    return c;
}

std::size_t task_index(std::string_view name) {
    const auto tasks = models::cost_tasks();
    for (std::size_t t = 0; t < tasks.size(); ++t)
        if (tasks[t].name == name) return t;
    ADD_FAILURE() << "no cost task " << name;
    return 0;
}

TEST(OffloadFeatures, ModesReachTheFeaturesAndEveryModelsInputs) {
    const auto hw = gpu_machine();
    const models::SystemModel water({mdcore::SystemKind::Water, 24000, 1});
    auto features = [&](const Config& c) { return models::compute_features(hw, water.features(), water.resolve(c, hw)); };
    const models::Features cpu = features(mode("cpu", "cpu", "cpu"));
    const models::Features b = features(mode("gpu", "cpu", "cpu"));
    const models::Features c = features(mode("gpu", "gpu", "cpu"));
    const models::Features e = features(mode("gpu", "gpu", "gpu"));
    EXPECT_EQ(cpu.nb_gpu + cpu.pme_gpu + cpu.update_gpu, 0.0);
    EXPECT_EQ(cpu.gpu_multiprocessors, 0.0);  // a CPU run does not depend on the GPU
    EXPECT_EQ(b.nb_gpu, 1.0);
    EXPECT_EQ(b.pme_gpu, 0.0);
    EXPECT_EQ(c.pme_gpu, 1.0);
    EXPECT_EQ(c.update_gpu, 0.0);
    EXPECT_EQ(e.update_gpu, 1.0);
    EXPECT_EQ(e.gpu_multiprocessors, 132.0);
    EXPECT_DOUBLE_EQ(e.gpu_bandwidth_gbs, 4814.3);
    const models::Features modes[] = {cpu, b, c, e};
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j) {
            EXPECT_NE(models::RidgeModel::feature_vector(modes[i]), models::RidgeModel::feature_vector(modes[j]))
                << "ridge: modes " << i << " and " << j;
            EXPECT_NE(models::KnnModel::feature_vector(modes[i]), models::KnnModel::feature_vector(modes[j]))
                << "knn: modes " << i << " and " << j;
        }
}

TEST(OffloadFeatures, CostTermsFollowTheTaskToTheGpu) {
    const auto hw = gpu_machine();
    const models::SystemModel water({mdcore::SystemKind::Water, 24000, 1});
    auto features = [&](const Config& c) { return models::compute_features(hw, water.features(), water.resolve(c, hw)); };
    const std::size_t nb = task_index("nonbonded"), spread = task_index("pme_spread"),
                      constraints = task_index("constraints");
    const Eigen::VectorXd nb_cpu = models::cost_terms(nb, features(mode("cpu", "cpu", "cpu")));
    const Eigen::VectorXd nb_b = models::cost_terms(nb, features(mode("gpu", "cpu", "cpu")));
    // The first 12 nonbonded terms are the CPU kernels', the next 5 the GPU task's.
    EXPECT_GT(nb_cpu.head(12).sum(), 0.0);
    EXPECT_EQ(nb_cpu.tail(5).sum(), 0.0);
    EXPECT_EQ(nb_b.head(12).sum(), 0.0);
    EXPECT_GT(nb_b.tail(5).sum(), 0.0);
    // Mode C: the CPU waits for the mesh in the nonbonded task; no CPU mesh work.
    const models::Features c = features(mode("gpu", "gpu", "cpu"));
    EXPECT_EQ(models::cost_terms(spread, c).sum(), 0.0);
    EXPECT_GT(models::cost_terms(nb, c).tail(2).sum(), 0.0);
    // Mode E: the whole GPU step is waited for in the update's task (SETTLE water:
    // constraints); the nonbonded task keeps only the launch (term 14).
    const models::Features e = features(mode("gpu", "gpu", "gpu"));
    const Eigen::VectorXd nb_e = models::cost_terms(nb, e);
    EXPECT_EQ(nb_e.tail(5).sum(), nb_e(14));
    EXPECT_EQ(nb_e(14), 1.0);
    EXPECT_EQ(models::cost_terms(constraints, e).head(3).sum(), 0.0);
    EXPECT_GT(models::cost_terms(constraints, e).tail(5).sum(), 0.0);
}

}  // namespace
}  // namespace mdtune
