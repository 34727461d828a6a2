#include "memory_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "pairlist/cluster_grid.h"
#include "util/format.h"
#include "util/machine_memory.h"
#include "util/thread_count.h"

namespace mdcore {
namespace {

// Bytes per atom of the System: positions, velocities (2 x 24), type, charge, mass.
constexpr double kSystemBytesPerAtom = 68;
// Exclusion lists (vector header + heap block) and three names of a topology atom.
constexpr double kTopologyBytesPerAtom = 56 + 72;
// Per sorted slot: SortedState (8 doubles + 3 floats), kernel copies (6 floats +
// type), charge, order, SETTLE reference copies, grid work arrays.
constexpr double kRunBytesPerSlot = 76 + 28 + 12 + 24 + 24;
// Per slot and thread: a force buffer of 3 floats times the j-force copies (two
// where a register holds two copies of a j-cluster: 4x8 and 8x4 on AVX-512).
constexpr double kForceBytesPerSlotThread = 3 * 4 * 2;
// Per slot with PME: a B-spline stencil (order up to 6, 3 dimensions).
constexpr double kPmeStencilBytesPerSlot = 360;
// Per outer j-entry (16 bytes): per-thread build buffers (growth up to 2x), the
// list (1.25x reserve), the pruned inner list and the keep flags.
constexpr double kPairlistBytesPerEntry = 16 * 4.5 + 1;

double pairlist_entries(double natoms, const Box& box, const EffectiveConfig& cfg, double ncol) {
    const int ci = cluster_i_size(cfg.cluster), cj = cluster_j_size(cfg.cluster);
    const double density = natoms / box.volume();
    // A j-cluster is listed when its bounding box comes within rlist of the
    // i-cluster's: the search volume is a sphere grown by about a column side
    // (not at all for 1x1, whose boxes are points). This overestimates measured
    // lists by 10-40% (tests/engine/test_memory_estimate.cpp).
    const double side = ci == 1 && cj == 1 ? 0.0 : std::sqrt(box.lengths[0] * box.lengths[1] / ncol);
    const double reach = cfg.rlist + side;
    const double j_in_range = density * 4.0 / 3.0 * std::numbers::pi * reach * reach * reach / cj;
    const double nci = natoms / ci + ncol, ncj = natoms / cj + ncol;
    // Half list: each cluster pair once; never more than all pairs.
    return std::min(0.5 * nci * j_in_range + nci, nci * ncj);
}

}  // namespace

std::string MemoryEstimate::summary() const {
    return "about " + format_bytes(total()) + " (atoms " + format_bytes(atom_bytes) + ", cluster grid " +
           format_bytes(grid_bytes) + ", pair list " + format_bytes(pairlist_bytes) + ", PME " +
           format_bytes(pme_bytes) + ")";
}

MemoryEstimate estimate_run_memory(double natoms, const Box& box, bool with_topology, const EffectiveConfig& cfg) {
    const int ci = cluster_i_size(cfg.cluster), cj = cluster_j_size(cfg.cluster);
    const int base = std::max(ci, cj);
    const auto columns = cluster_grid_columns(box, natoms, ci, cj);
    const double ncol = static_cast<double>(columns[0]) * columns[1];
    const double slots = natoms + ncol * 0.5 * base;  // columns padded to whole clusters
    const int threads = std::max(1, cfg.threads);

    MemoryEstimate e;
    e.atom_bytes = natoms * (kSystemBytesPerAtom + (with_topology ? kTopologyBytesPerAtom : 0.0)) +
                   slots * (kRunBytesPerSlot + kForceBytesPerSlotThread * threads);
    // Columns: start, fill and j-begin ints; clusters: two float boxes, masks,
    // columns; atoms: wrapped coordinates, column, slot, binning order and its check.
    e.grid_bytes = ncol * 12 + slots * (28.0 / ci + 28.0 / cj + 4.0 / ci) + natoms * 25;
    e.pairlist_entries = pairlist_entries(natoms, box, cfg, ncol);
    e.pairlist_bytes = e.pairlist_entries * kPairlistBytesPerEntry;
    if (cfg.pme) {
        const double points = static_cast<double>(cfg.pme_grid[0]) * cfg.pme_grid[1] * cfg.pme_grid[2];
        const double complex_points = static_cast<double>(cfg.pme_grid[0]) * cfg.pme_grid[1] * (cfg.pme_grid[2] / 2 + 1);
        // Real grid per thread (4 B), complex transform (8 B) and the influence table (8 B).
        e.pme_bytes = points * 4.0 * threads + complex_points * 16.0 + slots * kPmeStencilBytesPerSlot;
    }
    return e;
}

MemoryEstimate estimate_run_memory(const System& system, const EffectiveConfig& config) {
    const bool topology = !system.exclusions.empty() || !system.atom_name.empty();
    return estimate_run_memory(static_cast<double>(system.natoms()), system.box, topology, config);
}

void require_memory(const MemoryEstimate& estimate, const std::string& what, bool check_host) {
    if (check_host) {
        const MachineMemory machine = machine_memory();
        if (estimate.total() > machine.usable_bytes)
            throw std::invalid_argument(what + " needs " + estimate.summary() + " of memory, but " +
                                        machine.description);
    }
    // j-entries are addressed by 32-bit ranges (pair_list.h).
    constexpr double kMaxEntries = std::numeric_limits<std::int32_t>::max();
    if (estimate.pairlist_entries > kMaxEntries)
        throw std::invalid_argument(what + ": the pair list would hold about " + format_g(estimate.pairlist_entries) +
                                    " cluster pairs, above its limit of " + format_g(kMaxEntries) +
                                    " (32-bit indices)");
}

void require_memory_for_atoms(double natoms, const Box& box, double rc, bool with_topology, const std::string& what) {
    EffectiveConfig cfg;
    cfg.cluster = ClusterShape::k4x4;
    cfg.rlist = rc;
    cfg.threads = default_thread_count();
    require_memory(estimate_run_memory(natoms, box, with_topology, cfg), what);
    // Slots and list ranges are 32-bit ints (only a machine with terabytes gets here).
    constexpr double kMaxAtoms = 1 << 30;
    if (natoms > kMaxAtoms)
        throw std::invalid_argument(what + " has " + format_g(natoms) + " atoms, above the engine's limit of " +
                                    format_g(kMaxAtoms) + " (32-bit indices)");
}

}  // namespace mdcore
