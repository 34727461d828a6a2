// The MPI program behind test_parallel_pme.cpp, run under mpirun: every rank builds
// the same water + NaCl box and computes the serial Pme on all atoms as the
// reference; the atoms are then distributed over the PP ranks, the reciprocal part
// is computed by ParallelPmeMesh over all ranks (--npme 0) or by PmeRankMesh with
// the last K ranks running run_pme_rank (--npme K), over two steps (the second with
// every atom moved; with --npme 0 a third repeats the second without energy), and
// each PP rank checks energy, virial and the force on each of its atoms (by global
// index) against the reference. Exit 0 when all ranks pass, 1
// on a mismatch, 2 on a refused layout.
//   pme_mesh_check [--npme K] [--distribution random|spatial|stripes|boundary|empty]
//                  [--grid NXxNYxNZ] [--order P] [--threads T] [--split]
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "domdec/pme_rank.h"
#include "domdec/pme_rank_mesh.h"
#include "mdcore/generators.h"
#include "pme/parallel_pme_mesh.h"
#include "pme/pme.h"
#include "pme/pme_slabs.h"

namespace mdcore {
namespace {

struct Options {
    int npme = 0;
    std::string distribution = "random";
    PmeGrid grid{28, 25, 24};  // distinct sizes; 3 ranks get uneven slabs (9, 9, 10 and 8, 8, 9)
    int order = 4;
    int threads = 1;
    bool split = false;  // --npme K: begin() and finish() as two calls, work in between
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string key = argv[i];
        if (key == "--split") {
            o.split = true;
            continue;
        }
        if (i + 1 >= argc) throw std::invalid_argument("pme_mesh_check: " + key + " needs a value");
        const std::string value = argv[++i];
        bool ok = true;
        if (key == "--npme") o.npme = std::stoi(value);
        else if (key == "--distribution") o.distribution = value;
        else if (key == "--order") o.order = std::stoi(value);
        else if (key == "--threads") o.threads = std::stoi(value);
        else if (key == "--grid") ok = std::sscanf(value.c_str(), "%dx%dx%d", &o.grid.nx, &o.grid.ny, &o.grid.nz) == 3;
        else ok = false;
        if (!ok) throw std::invalid_argument("pme_mesh_check: bad option " + key + " " + value);
    }
    return o;
}

// SPC/E water with 0.5 mol/L NaCl, unrelaxed: a deterministic box of ~1,800 atoms.
System test_system() {
    WaterSpec spec;
    spec.nwater = 600;
    spec.nacl_molar = 0.5;
    spec.relax_steps = 0;
    spec.threads = 1;
    spec.seed = 7;
    return make_water_system(spec);
}

// Puts a few atoms exactly on the mesh's slab boundaries (grid planes x0_r) and on
// the box faces, so an atom's first stencil plane is the first plane of a slab.
void place_on_slab_boundaries(System& s, const PmeGrid& grid, int nranks) {
    const double L = s.box.lengths[0];
    for (int r = 0; r <= nranks; ++r) {
        const int plane = pme_slab_begin(grid.nx, r, nranks);
        s.positions[static_cast<std::size_t>(3 * r)][0] = L * plane / grid.nx;  // r = nranks: x = L, the image of 0
    }
    s.positions[1][0] = -L * pme_slab_begin(grid.nx, 1, nranks) / grid.nx;  // an image below the box
}

// PP rank of each atom.
std::vector<int> distribute(const System& s, const std::string& how, int n_pp) {
    std::vector<int> owner(s.natoms());
    std::mt19937 rng(11);
    const double L = s.box.lengths[0];
    for (std::size_t i = 0; i < s.natoms(); ++i) {
        if (how == "random") {
            owner[i] = static_cast<int>(rng() % n_pp);
        } else if (how == "stripes") {  // 3 x-stripes per rank, dealt round: gaps between a rank's planes
            double sx = s.positions[i][0] / L;
            sx -= std::floor(sx);
            owner[i] = std::min(3 * n_pp - 1, static_cast<int>(sx * 3 * n_pp)) % n_pp;
        } else if (how == "empty") {  // PP rank 0 gets nothing
            owner[i] = n_pp == 1 ? 0 : 1 + static_cast<int>(rng() % (n_pp - 1));
        } else {  // spatial, boundary: x-slabs of the box as a DD would cut them
            double sx = s.positions[i][0] / L;
            sx -= std::floor(sx);
            owner[i] = std::min(n_pp - 1, static_cast<int>(sx * n_pp));
        }
    }
    return owner;
}

struct Reference {
    double energy = 0;
    double virial[9] = {};
    std::vector<float> fx, fy, fz;
};

Reference serial_reference(const System& s, const Options& o, double beta) {
    const std::size_t n = s.natoms();
    std::vector<double> x(n), y(n), z(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = s.positions[i][0], y[i] = s.positions[i][1], z[i] = s.positions[i][2];
    Reference r;
    r.fx.assign(n, 0.0f), r.fy.assign(n, 0.0f), r.fz.assign(n, 0.0f);
    Pme pme(s.box, o.grid, o.order, beta, s.epsilon_r, 1);
    r.energy =
        pme.compute(n, x.data(), y.data(), z.data(), s.charge.data(), r.fx.data(), r.fy.data(), r.fz.data(), r.virial);
    return r;
}

// This PP rank's atoms.
struct Home {
    std::vector<int> global;
    std::vector<double> x, y, z, q;
    std::vector<float> fx, fy, fz;
};

Home home_atoms(const System& s, const std::vector<int>& owner, int rank) {
    Home h;
    for (std::size_t i = 0; i < s.natoms(); ++i) {
        if (owner[i] != rank) continue;
        h.global.push_back(static_cast<int>(i));
        h.x.push_back(s.positions[i][0]), h.y.push_back(s.positions[i][1]), h.z.push_back(s.positions[i][2]);
        h.q.push_back(s.charge[i]);
    }
    h.fx.assign(h.global.size(), 0.0f), h.fy = h.fx, h.fz = h.fx;
    return h;
}

// Float-derived limits: the grids are float (eps 6e-8); a grid value sums 10^2-10^3
// rounded contributions in an order that depends on the distribution, and the FFT adds
// ~log2(16,800) roundings. Measured at 2-5 ranks: energy <= 4e-8 relative, virial
// <= 1e-7 of its largest component, forces <= 4e-6 of the RMS force (1 rank matches
// the serial Pme exactly). The limits are 20-25x above that.
constexpr double kEnergyRel = 1e-6, kVirialRel = 2e-6, kForceRelRms = 1e-4;

int check(const char* label, int rank, const MeshResult& got, const Reference& ref, const Home& h) {
    int failures = 0;
    const double de = std::abs(got.energy - ref.energy);
    if (de > kEnergyRel * std::abs(ref.energy)) {
        ++failures;
        std::printf("%s rank %d: energy %.10g vs serial %.10g\n", label, rank, got.energy, ref.energy);
    }
    double vmax = 0, dv = 0;
    for (int c = 0; c < 9; ++c) vmax = std::max(vmax, std::abs(ref.virial[c]));
    for (int c = 0; c < 9; ++c) dv = std::max(dv, std::abs(got.virial[c] - ref.virial[c]));
    if (dv > kVirialRel * vmax) {
        ++failures;
        std::printf("%s rank %d: virial off by %.3g of %.3g\n", label, rank, dv, vmax);
    }
    double sum2 = 0;
    for (std::size_t i = 0; i < ref.fx.size(); ++i)
        sum2 += ref.fx[i] * ref.fx[i] + ref.fy[i] * ref.fy[i] + ref.fz[i] * ref.fz[i];
    const double rms = std::sqrt(sum2 / (3.0 * ref.fx.size()));
    double df = 0;
    for (std::size_t k = 0; k < h.global.size(); ++k) {
        const int i = h.global[k];
        const double d =
            std::max({std::abs(h.fx[k] - ref.fx[i]), std::abs(h.fy[k] - ref.fy[i]), std::abs(h.fz[k] - ref.fz[i])});
        df = std::max(df, d);
        if (d <= kForceRelRms * rms) continue;
        if (++failures <= 20)  // the first ones tell the story
            std::printf("%s rank %d: atom %d force (%g %g %g) vs serial (%g %g %g)\n", label, rank, i, h.fx[k], h.fy[k],
                        h.fz[k], ref.fx[i], ref.fy[i], ref.fz[i]);
    }
    std::printf("%s rank %d: %zu atoms, energy rel %.2e, virial rel %.2e, force max/rms %.2e\n", label, rank,
                h.global.size(), ref.energy != 0 ? de / std::abs(ref.energy) : de, vmax > 0 ? dv / vmax : dv, df / rms);
    return failures;
}

// Every atom moved (and wrapped differently) for the second step.
void move_atoms(System& s) {
    for (std::size_t i = 0; i < s.natoms(); ++i)
        for (int a = 0; a < 3; ++a) s.positions[i][a] += 0.37 + 0.011 * a + 1e-4 * static_cast<double>(i % 17);
}

int run(const Options& o) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n_pp = size - o.npme;
    System s = test_system();
    const int mesh_ranks = o.npme > 0 ? o.npme : size;
    if (o.distribution == "boundary") place_on_slab_boundaries(s, o.grid, mesh_ranks);
    const double beta = ewald_beta(s.rc, s.ewald_rtol);

    // --npme K: the last K ranks run the PME loop among themselves.
    const bool is_pme_rank = o.npme > 0 && rank >= n_pp;
    MPI_Comm group;
    MPI_Comm_split(MPI_COMM_WORLD, is_pme_rank ? 1 : 0, rank, &group);
    if (is_pme_rank) {
        const PmeRankSetup setup{s.box, o.grid, o.order, beta, s.epsilon_r, o.threads, n_pp};
        run_pme_rank(MPI_COMM_WORLD, group, setup);
        MPI_Comm_free(&group);
        return 0;
    }
    int failures = 0;
    std::unique_ptr<MeshSolver> mesh;
    PmeRankMesh* pme_ranks = nullptr;
    if (o.npme > 0) {
        auto m = std::make_unique<PmeRankMesh>(MPI_COMM_WORLD, o.npme);
        pme_ranks = m.get();
        mesh = std::move(m);
    } else {
        mesh = std::make_unique<ParallelPmeMesh>(MPI_COMM_WORLD, s.box, o.grid, o.order, beta, s.epsilon_r, o.threads);
    }
    for (int step = 0; step < 3; ++step) {
        if (step == 1) move_atoms(s);
        // Step 2 repeats step 1 on a step without energy: the slab mesh's forces-only
        // solve must give the same forces, and zero energy and virial.
        const bool forces_only = step == 2 && o.npme == 0;
        mesh->set_energy_wanted(!forces_only);
        Reference ref = serial_reference(s, o, beta);
        if (forces_only) {
            ref.energy = 0;
            for (double& v : ref.virial) v = 0;
        }
        Home h = home_atoms(s, distribute(s, o.distribution, n_pp), rank);
        MeshResult got;
        if (pme_ranks && o.split) {
            pme_ranks->begin(h.global.size(), h.x.data(), h.y.data(), h.z.data(), h.q.data());
            std::fill(h.x.begin(), h.x.end(), -1e9);  // begin() copied them: overwriting must not matter
            got = pme_ranks->finish(h.fx.data(), h.fy.data(), h.fz.data());
        } else {
            got = mesh->compute(h.global.size(), h.x.data(), h.y.data(), h.z.data(), h.q.data(), h.fx.data(),
                                h.fy.data(), h.fz.data());
        }
        const std::string label = "step " + std::to_string(step);
        failures += check(label.c_str(), rank, got, ref, h);
    }
    if (pme_ranks) pme_ranks->stop();
    mesh.reset();
    MPI_Comm_free(&group);
    return failures;
}

}  // namespace
}  // namespace mdcore

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int code = 0;
    try {
        const mdcore::Options o = mdcore::parse(argc, argv);
        const int failures = mdcore::run(o);
        int all = 0;
        MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0) std::printf(all == 0 ? "PASS\n" : "FAIL: %d mismatches\n", all);
        code = all == 0 ? 0 : 1;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        code = 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return code;
}
