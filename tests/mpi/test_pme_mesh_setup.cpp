// Set-up errors of the MPI PME classes, in one process (a singleton MPI run, no
// mpirun): bad PME parameters and impossible PME-rank layouts are refused with a
// message naming the value and the limit. The MPI runs themselves are in
// test_parallel_pme.cpp.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "domdec/pme_rank.h"
#include "domdec/pme_rank_mesh.h"
#include "pme/parallel_pme_mesh.h"
#include "pme/pme.h"

namespace mdcore {
namespace {

class MpiEnvironment : public ::testing::Environment {
public:
    void SetUp() override { MPI_Init(nullptr, nullptr); }
    void TearDown() override { MPI_Finalize(); }
};
const auto* const kMpi = ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

template <typename Make>
std::string refusal(Make make) {
    try {
        make();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "accepted";
}

const Box kBox{{3.0, 3.0, 3.0}};

TEST(PmeMeshSetup, BadPmeParametersAreRefused) {
    EXPECT_NE(refusal([] {
                  ParallelPmeMesh m(MPI_COMM_WORLD, kBox, {24, 24, 24}, 3, 3.1, 1.0, 1);
              }).find("order must be 4, 5 or 6, got 3"),
              std::string::npos);
    EXPECT_NE(refusal([] {
                  ParallelPmeMesh m(MPI_COMM_WORLD, kBox, {24, 7, 24}, 4, 3.1, 1.0, 1);
              }).find("grid dimension 7 below 2*order = 8"),
              std::string::npos);
    EXPECT_NE(refusal([] {
                  ParallelPmeMesh m(MPI_COMM_WORLD, kBox, {24, 24, 24}, 4, 0.0, 1.0, 1);
              }).find("beta"),
              std::string::npos);
}

// The in-process case (no mpirun needed): one rank's mesh against the serial Pme on
// random charges, within test_parallel_pme's float limits.
TEST(PmeMeshSetup, OneRankMeshMatchesSerialPme) {
    constexpr int n = 60;
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(-1.0, 4.0);  // some atoms outside the box: any image
    std::vector<double> x(n), y(n), z(n), q(n);
    for (int i = 0; i < n; ++i) x[i] = u(rng), y[i] = u(rng), z[i] = u(rng), q[i] = i % 2 ? 0.8 : -0.8;
    std::vector<float> fx(n), fy(n), fz(n), sx(n), sy(n), sz(n);
    ParallelPmeMesh mesh(MPI_COMM_WORLD, kBox, {25, 24, 27}, 4, 3.1, 1.0, 1);
    const MeshResult r = mesh.compute(n, x.data(), y.data(), z.data(), q.data(), fx.data(), fy.data(), fz.data());
    Pme serial(kBox, {25, 24, 27}, 4, 3.1, 1.0, 1);
    double virial[9];
    const double e = serial.compute(n, x.data(), y.data(), z.data(), q.data(), sx.data(), sy.data(), sz.data(), virial);
    EXPECT_NEAR(r.energy, e, 1e-6 * std::abs(e));
    double vmax = 0, f2 = 0;
    for (double v : virial) vmax = std::max(vmax, std::abs(v));
    for (int c = 0; c < 9; ++c) EXPECT_NEAR(r.virial[c], virial[c], 2e-6 * vmax) << c;
    for (int i = 0; i < n; ++i) f2 += sx[i] * sx[i] + sy[i] * sy[i] + sz[i] * sz[i];
    const double limit = 1e-4 * std::sqrt(f2 / (3 * n));
    for (int i = 0; i < n; ++i) {
        EXPECT_NEAR(fx[i], sx[i], limit) << i;
        EXPECT_NEAR(fy[i], sy[i], limit) << i;
        EXPECT_NEAR(fz[i], sz[i], limit) << i;
    }
}

TEST(PmeMeshSetup, PmeRanksNeedPpRanksToServe) {
    // One process: --npme 1 leaves no PP rank.
    EXPECT_NE(refusal([] { PmeRankMesh m(MPI_COMM_WORLD, 1); }).find("--npme 1 with 1 ranks leaves 0 PP ranks"),
              std::string::npos);
    EXPECT_NE(refusal([] { PmeRankMesh m(MPI_COMM_WORLD, 0); }).find("npme must lie in [1, number of PP ranks]"),
              std::string::npos);
    const PmeRankSetup setup{kBox, {24, 24, 24}, 4, 3.1, 1.0, 1, 1};
    EXPECT_NE(refusal([&] { run_pme_rank(MPI_COMM_WORLD, MPI_COMM_WORLD, setup); }).find("leaves 0 PP ranks"),
              std::string::npos);
}

}  // namespace
}  // namespace mdcore
