#pragma once
// What a run will allocate, estimated before anything is allocated, so a run that
// cannot fit is refused with the estimate and the machine's memory (exit 2 from
// mdcore) instead of dying of std::bad_alloc, an FFTW failure or the OOM killer.
#include <string>

#include "mdcore/run_report.h"
#include "mdcore/system.h"

namespace mdcore {

struct MemoryEstimate {
    double atom_bytes = 0;      // System arrays and per-atom run state (incl. per-thread force buffers)
    double grid_bytes = 0;      // cluster grid columns, clusters and their bounding boxes
    double pairlist_bytes = 0;  // outer and inner lists with their build buffers
    double pme_bytes = 0;       // PME grids (a spread copy per thread), transform, influence table, stencils
    double pairlist_entries = 0;  // estimated j-entries of the outer list
    double total() const { return atom_bytes + grid_bytes + pairlist_bytes + pme_bytes; }
    std::string summary() const;  // "about 41.2 GiB (atoms ..., grid ..., pair list ..., PME ...)"
};

// natoms may be a count not yet allocated (generators check before building).
// with_topology: exclusions and atom names are stored (water, files).
MemoryEstimate estimate_run_memory(double natoms, const Box& box, bool with_topology, const EffectiveConfig& config);
MemoryEstimate estimate_run_memory(const System& system, const EffectiveConfig& config);

// Throws std::invalid_argument naming `what`, the estimate and the machine's memory
// when the estimate does not fit (unless check_host is false: another machine will run
// it), or when the pair list would outgrow its 32-bit indices.
void require_memory(const MemoryEstimate& estimate, const std::string& what, bool check_host = true);

// The check a generator makes before allocating natoms atoms: the run state for a
// pair list at rc (a lower bound of any real run) with the default threads.
void require_memory_for_atoms(double natoms, const Box& box, double rc, bool with_topology, const std::string& what);

}  // namespace mdcore
