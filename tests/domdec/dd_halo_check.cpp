// An MPI program (run under mpirun by test_dd_mpi): checks one layout's halo.
// Every rank predicts, from the whole system, which groups each rank must
// receive (zone bits, periodic shift), then runs the real halo setup and
// exchanges and compares: coordinates that encode the atom's global index must
// arrive with exactly the predicted shift, and forces sent back must add up on
// each home atom to the number of halo copies of it.
// Usage: dd_halo_check NXxNYxNZ water|lj|lj-empty-cell0   (exit 0: all matched)
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "domdec/halo_exchange.h"
#include "domdec/local_atoms.h"
#include "mdcore/generators.h"

namespace mdcore {
namespace {

constexpr double kCommDistance = 0.9;  // nm; below every cell edge of the systems here

struct Expected {
    int zone = 0;
    Vec3 shift{0, 0, 0};
};

// Groups rank `cell` must receive, by global group.
std::map<int, Expected> expected_halo(const System& sys, const UpdateGroups& groups, const DdCell& cell) {
    std::map<int, Expected> out;
    Vec3 x[3];
    for (int g = 0; g < groups.size(); ++g) {
        for (int k = 0; k < groups.atom_count(g); ++k) x[k] = sys.positions[groups.atoms[groups.atom_begin[g] + k]];
        const Vec3 c = group_centre(x, groups.atom_count(g), sys.box);
        Expected e;
        bool inside = true;
        for (int d = 0; d < 3 && inside; ++d) {
            if (!cell.decomposed(d)) continue;
            const double L = sys.box.lengths[d];
            const double w = c[d] - L * std::floor(c[d] / L);
            const int n = cell.cells[d];
            const int z = ((cell.index_of(w, d) - cell.index[d]) % n + n) % n;
            if (z > 1) inside = false;
            if (z == 1) {
                e.zone |= 1 << d;
                e.shift[d] = cell.index[d] + 1 == n ? L : 0.0;
                inside = w + e.shift[d] - cell.hi[d] < kCommDistance;
            }
        }
        if (inside && e.zone != 0) out[g] = e;
    }
    return out;
}

System test_system(const std::string& kind, const std::array<int, 3>& cells) {
    if (kind == "water") {
        WaterSpec spec;
        spec.nwater = 600;
        spec.relax_steps = 0;
        return make_water_system(spec);
    }
    LjFluidSpec spec = lj_spec();
    spec.natoms = 1500;
    System sys = make_lj_fluid(spec);
    if (kind != "lj-empty-cell0") return sys;
    // Rank 0's cell is emptied: it sends nothing and still receives its halo.
    const DdCell first = dd_cell_of(0, cells, sys.box);
    System kept = sys;
    kept.positions.clear();
    kept.velocities.clear();
    kept.type.clear();
    kept.charge.clear();
    kept.mass.clear();
    kept.atom_name.clear();
    kept.residue_name.clear();
    kept.residue_number.clear();
    for (std::size_t a = 0; a < sys.natoms(); ++a) {
        bool in_first = true;
        for (int d = 0; d < 3; ++d) {
            const double L = sys.box.lengths[d];
            const double w = sys.positions[a][d] - L * std::floor(sys.positions[a][d] / L);
            in_first = in_first && first.index_of(w, d) == first.index[d];
        }
        if (in_first) continue;
        kept.positions.push_back(sys.positions[a]);
        kept.velocities.push_back(sys.velocities[a]);
        kept.type.push_back(sys.type[a]);
        kept.charge.push_back(sys.charge[a]);
        kept.mass.push_back(sys.mass[a]);
    }
    return kept;
}

int check(const std::array<int, 3>& cells, const std::string& kind, int rank, int size) {
    const System sys = test_system(kind, cells);
    const UpdateGroups groups = make_update_groups(sys);
    const DdCell cell = dd_cell_of(rank, cells, sys.box);
    LocalAtoms local = local_home_atoms(initial_home_groups(sys, groups, cell), groups, sys.box);
    HaloExchange halo;
    halo.setup(local, groups, cell, sys.box, kCommDistance, MPI_COMM_WORLD);
    int failures = 0;
    auto fail = [&](const std::string& what) {
        if (++failures <= 10) std::fprintf(stderr, "rank %d (%s %s): %s\n", rank, kind.c_str(), "", what.c_str());
    };
    const std::map<int, Expected> expected = expected_halo(sys, groups, cell);
    std::map<int, int> seen;
    for (int g = local.home_groups; g < local.group_count(); ++g) {
        const int gid = local.group[g];
        ++seen[gid];
        const auto it = expected.find(gid);
        if (it == expected.end()) fail("group " + std::to_string(gid) + " received but not in the halo");
        else if (it->second.zone != local.group_zone[g])
            fail("group " + std::to_string(gid) + " zone " + std::to_string(local.group_zone[g]) + ", expected " +
                 std::to_string(it->second.zone));
    }
    for (const auto& [gid, e] : expected)
        if (seen[gid] != 1) fail("group " + std::to_string(gid) + " received " + std::to_string(seen[gid]) + " times");

    // Coordinates encoding the global index; the halo part must carry the shift.
    std::vector<double> x(3 * local.size(), std::nan(""));
    for (int a = 0; a < local.home_atoms; ++a)
        for (int k = 0; k < 3; ++k) x[3 * a + k] = 8.0 * local.global[a];
    halo.exchange_coordinates(x);
    for (int g = local.home_groups; g < local.group_count(); ++g) {
        const auto it = expected.find(local.group[g]);
        if (it == expected.end()) continue;
        for (int a = local.group_begin[g]; a < local.group_begin[g + 1]; ++a)
            for (int k = 0; k < 3; ++k)
                if (x[3 * a + k] != 8.0 * local.global[a] + it->second.shift[k])
                    fail("atom " + std::to_string(local.global[a]) + " coordinate " + std::to_string(k) + " is " +
                         std::to_string(x[3 * a + k]) + ", expected " +
                         std::to_string(8.0 * local.global[a] + it->second.shift[k]));
    }

    // Forces: 1 per halo copy, summed back on the owner.
    std::vector<float> f(3 * local.size(), 0.0f);
    for (int a = local.home_atoms; a < local.size(); ++a)
        for (int k = 0; k < 3; ++k) f[3 * a + k] = 1.0f;
    halo.exchange_forces(f);
    std::map<int, int> copies;  // global group -> ranks holding it as halo
    for (int r = 0; r < size; ++r)
        for (const auto& [gid, e] : expected_halo(sys, groups, dd_cell_of(r, cells, sys.box))) ++copies[gid];
    for (int g = 0; g < local.home_groups; ++g)
        for (int a = local.group_begin[g]; a < local.group_begin[g + 1]; ++a)
            if (f[3 * a] != static_cast<float>(copies[local.group[g]]))
                fail("home atom " + std::to_string(local.global[a]) + " got force " + std::to_string(f[3 * a]) +
                     " from its halo copies, expected " + std::to_string(copies[local.group[g]]));
    std::printf("rank %d: %d home atoms, %d halo atoms, %zu halo groups expected, %d failures\n", rank,
                local.home_atoms, halo.halo_atoms(), expected.size(), failures);
    return failures;
}

}  // namespace
}  // namespace mdcore

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::array<int, 3> cells{};
    if (argc != 3 || std::sscanf(argv[1], "%dx%dx%d", &cells[0], &cells[1], &cells[2]) != 3 ||
        cells[0] * cells[1] * cells[2] != size) {
        if (rank == 0) std::fprintf(stderr, "usage: mpirun -np N dd_halo_check NXxNYxNZ water|lj|lj-empty-cell0\n");
        MPI_Finalize();
        return 2;
    }
    const int mine = mdcore::check(cells, argv[2], rank, size);
    int total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
