#pragma once
// The nonbonded task on a CUDA device (--nb gpu), seen from the host: after each
// search the GPU list (gpu_pair_list.h) and per-slot parameters go up once; every
// step x goes up and f comes down asynchronously through pinned buffers on one
// stream, the force kernel and rolling pruning run in between, and the CPU is free
// until finish() (PME, update and search overlap the GPU). Host header: no CUDA
// types here, so the engine compiles it with or without CUDA; defined only in
// CUDA builds (gpu_nonbonded.cpp).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpu/gpu_device.h"
#include "gpu/gpu_pair_list.h"
#include "mdcore/system.h"
#include "pairlist/cluster_grid.h"
#include "pairlist/pair_list.h"

namespace mdcore {

struct GpuNonbondedEnergies {
    double lj = 0.0;
    double coulomb = 0.0;  // Ewald real space with exclusion corrections (no self term)
    double pairs_in_cutoff = 0.0;
};

class GpuNonbonded {
public:
    // rlist_inner == rlist: no pruning; else the inner list is pruned in
    // `prune_parts` rolling parts, one part after each step's force kernel. The
    // host's share (list build, staging x, adding forces) runs on `threads` threads.
    GpuNonbonded(const System& system, const GpuDevice& device, double rc, double ewald_beta, double rlist_inner,
                 int prune_parts, int threads);
    ~GpuNonbonded();
    GpuNonbonded(const GpuNonbonded&) = delete;
    GpuNonbonded& operator=(const GpuNonbonded&) = delete;

    // After a search: the 8x4 outer list on `grid`, slot order[slot] = atom or -1.
    void set_list(const ClusterGrid& grid, const PairList& outer, const std::vector<int>& order);
    // Starts x up (sorted CPU slots), pruning and the force kernel; returns at once.
    // forces_to_host false: the forces stay on the device (--update gpu).
    void launch(const float* x, const float* y, const float* z, bool energy, bool forces_to_host = true);
    // The same on the positions already on the device (the GPU update moved them).
    void launch_resident(bool energy);
    // Waits for the step's forces and ADDS them to fx/fy/fz (sorted CPU slots).
    GpuNonbondedEnergies finish(float* fx, float* fy, float* fz);
    // With the forces left on the device: the energies (an energy step waits for them).
    GpuNonbondedEnergies finish_energies();

    // The device side, for the tasks that share its positions and forces
    // (gpu_nonbonded_device.h; CUDA builds only).
    struct Device;
    Device& device() { return *dev_; }
    const gpu::SuperClusterLayout& layout() const { return layout_; }
    int num_slots() const { return layout_.num_gpu_slots(); }
    // Per GPU slot: the sorted CPU slot, or -1 for an empty one.
    const std::vector<int>& gpu_to_cpu() const { return gpu_to_cpu_; }

    // CUDA-event seconds per kernel and copy, and the CPU's waiting time, summed
    // since the last reset.
    const std::map<std::string, double>& kernel_seconds() const { return kernel_seconds_; }
    double cpu_wait_seconds() const { return cpu_wait_seconds_; }
    void reset_times();
    const gpu::GpuPairList& pair_list() const { return list_; }

private:
    void prune_part(int part);
    void enqueue_step(bool energy, bool forces_to_host);
    void collect_times();

    const System& system_;
    std::unique_ptr<Device> dev_;
    double rc_, beta_, rlist_inner_;
    int prune_parts_;
    int threads_;
    gpu::SuperClusterLayout layout_;
    gpu::GpuPairList list_;
    std::vector<gpu::Sci> launch_sci_;  // list_.sci split into force-kernel blocks
    std::vector<int> gpu_to_cpu_;  // per GPU slot: sorted CPU slot or -1
    long steps_since_search_ = 0;
    bool energy_ = false;
    std::map<std::string, double> kernel_seconds_;
    double cpu_wait_seconds_ = 0.0;
};

}  // namespace mdcore
