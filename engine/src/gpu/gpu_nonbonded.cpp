// Host side of the GPU nonbonded task: buffers, the stream, copies, launches and
// CUDA-event timings. C++ with the CUDA runtime API; the kernels are nbnxm_gpu.cu.
#include "gpu/gpu_nonbonded.h"

#include <cuda_runtime.h>

#include <chrono>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gpu/cuda_buffers.h"
#include "gpu/gpu_nonbonded_device.h"
#include "gpu/nbnxm_gpu.cuh"
#include "mdcore/units.h"
#include "pairlist/cluster_pair_search.h"

namespace mdcore {
namespace {

using gpu::check;
using gpu::DeviceBuffer;
using gpu::PinnedBuffer;

constexpr float kFarAway = -1.0e4f;  // empty GPU slots: never within any cut-off
// cj4 groups per force-kernel block (see set_list). On the H200 with water-24k
// (nstlist 100, inner list 1.0 nm) the kernel took 0.242 ms/step unsplit, 0.133
// at 16, 0.112 at 8, 0.103 at 4 and 0.104 at 2.
constexpr int kMaxGroupsPerBlock = 4;

}  // namespace

GpuNonbonded::GpuNonbonded(const System& system, const GpuDevice& device, double rc, double ewald_beta,
                           double rlist_inner, int prune_parts, int threads)
    : system_(system), dev_(std::make_unique<Device>()), rc_(rc), beta_(ewald_beta), rlist_inner_(rlist_inner),
      prune_parts_(prune_parts), threads_(std::max(1, threads)) {
    check(cudaSetDevice(device.id), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&dev_->stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreateWithFlags(&dev_->x_ready, cudaEventDisableTiming), "cudaEventCreate");
    const int nt = system.lj.ntypes;
    dev_->ntypes = nt;
    std::vector<float2> lj(static_cast<std::size_t>(nt) * nt);
    for (int k = 0; k < nt * nt; ++k)
        lj[k] = make_float2(static_cast<float>(6.0 * system.lj.c6[k]), static_cast<float>(12.0 * system.lj.c12[k]));
    dev_->lj.upload(lj.data(), lj.size());
    float shift[kNumShifts][3];
    fill_shift_table(system.box, shift);
    std::vector<float3> shifts(kNumShifts);
    for (int k = 0; k < kNumShifts; ++k) shifts[k] = make_float3(shift[k][0], shift[k][1], shift[k][2]);
    dev_->shift.upload(shifts.data(), shifts.size());
    dev_->energies.reserve(3);
    dev_->h_energies.reserve(3);
}

GpuNonbonded::~GpuNonbonded() {
    if (dev_ && dev_->stream) cudaStreamSynchronize(dev_->stream);
}

void GpuNonbonded::set_list(const ClusterGrid& grid, const PairList& outer, const std::vector<int>& order) {
    check(cudaStreamSynchronize(dev_->stream), "cudaStreamSynchronize");  // a rolling prune may still read the old list
    layout_ = gpu::group_super_clusters(grid);
    gpu::build_gpu_pair_list(outer, layout_, list_, threads_);
    const int nslots = layout_.num_gpu_slots();
    gpu_to_cpu_.resize(nslots);
    dev_->q.assign(nslots, 0.0f);
    std::vector<int> type(nslots, 0);
    const double q_scale = std::sqrt(units::kCoulomb / system_.epsilon_r);
    for (int g = 0; g < nslots; ++g) {
        const int c = layout_.cpu_slot(g);
        const int atom = c < 0 ? -1 : order[c];
        gpu_to_cpu_[g] = atom < 0 ? -1 : c;
        if (atom < 0) continue;
        type[g] = system_.type[atom];
        dev_->q[g] = static_cast<float>(system_.charge[atom] * q_scale);
    }
    dev_->type.upload(type.data(), type.size());
    // The force kernel's blocks: long Sci entries split into runs of at most
    // kMaxGroupsPerBlock cj4 groups (their i-forces meet in the atomics), so the
    // blocks are many and short enough to fill and balance the GPU.
    launch_sci_.clear();
    std::vector<int> cj4_sci(list_.cj4.size());
    for (const gpu::Sci& s : list_.sci)
        for (int g = s.cj4_begin; g < s.cj4_end; g += kMaxGroupsPerBlock) {
            launch_sci_.push_back({s.sci, s.shift, g, std::min(s.cj4_end, g + kMaxGroupsPerBlock)});
            for (int k = g; k < launch_sci_.back().cj4_end; ++k) cj4_sci[k] = static_cast<int>(launch_sci_.size()) - 1;
        }
    dev_->sci.upload(launch_sci_.data(), launch_sci_.size());
    dev_->cj4_sci.upload(cj4_sci.data(), cj4_sci.size());
    dev_->outer.upload(list_.cj4.data(), list_.cj4.size());
    dev_->inner.upload(list_.cj4.data(), list_.cj4.size());  // pruned below before first use
    dev_->masks.upload(list_.masks.data(), list_.masks.size());
    dev_->xq.reserve(nslots);
    dev_->f.reserve(nslots);
    dev_->h_xq.reserve(nslots);
    dev_->h_f.reserve(nslots);
    steps_since_search_ = 0;
}

void GpuNonbonded::prune_part(int part) {
    const long n = static_cast<long>(list_.cj4.size());
    const int parts = std::max(1, prune_parts_);
    gpu::PruneArgs a{dev_->xq.p,     dev_->shift.p, dev_->sci.p,  dev_->cj4_sci.p,
                     dev_->outer.p,  dev_->inner.p, dev_->masks.p, static_cast<float>(rlist_inner_ * rlist_inner_),
                     static_cast<int>(n * part / parts), static_cast<int>(n * (part + 1) / parts)};
    if (part < 0) {  // all of it
        a.cj4_begin = 0;
        a.cj4_end = static_cast<int>(n);
    }
    check(gpu::launch_prune(a, dev_->stream), "prune kernel");
}

void GpuNonbonded::launch(const float* x, const float* y, const float* z, bool energy, bool forces_to_host) {
    Device& d = *dev_;
    collect_times();  // the last step's rolling prune, done by now in the common case
    const int nslots = layout_.num_gpu_slots();
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (int g = 0; g < nslots; ++g) {
        const int c = gpu_to_cpu_[g];
        d.h_xq.p[g] = c < 0 ? make_float4(kFarAway, kFarAway, kFarAway, 0.0f) : make_float4(x[c], y[c], z[c], d.q[g]);
    }
    d.begin(kCopyUp);
    check(cudaMemcpyAsync(d.xq.p, d.h_xq.p, nslots * sizeof(float4), cudaMemcpyHostToDevice, d.stream), "copy x up");
    d.end(kCopyUp);
    check(cudaEventRecord(d.x_ready, d.stream), "cudaEventRecord");
    enqueue_step(energy, forces_to_host);
}

void GpuNonbonded::launch_resident(bool energy) {
    collect_times();
    enqueue_step(energy, /*forces_to_host=*/false);
}

void GpuNonbonded::enqueue_step(bool energy, bool forces_to_host) {
    Device& d = *dev_;
    const int nslots = layout_.num_gpu_slots();
    const bool pruning = rlist_inner_ < list_.rlist;
    check(cudaMemsetAsync(d.f.p, 0, nslots * sizeof(float3), d.stream), "zero f");
    if (energy) check(cudaMemsetAsync(d.energies.p, 0, 3 * sizeof(double), d.stream), "zero energies");
    // After a search (and every step without rolling parts) the whole list is pruned first.
    if (pruning && (steps_since_search_ == 0 || prune_parts_ == 0)) {
        d.begin(kPrune);
        prune_part(-1);
        d.end(kPrune);
    }
    gpu::NbKernelArgs a{};
    a.atoms = {d.xq.p, d.type.p, d.lj.p, d.ntypes, d.shift.p};
    a.list = {d.sci.p, pruning ? d.inner.p : d.outer.p, d.masks.p, static_cast<int>(launch_sci_.size())};
    const float rc2 = static_cast<float>(rc_ * rc_);
    a.constants = {rc2, static_cast<float>(1.0 / (static_cast<double>(rc2) * rc2 * rc2)), 0.0f,
                   static_cast<float>(beta_), beta_ > 0 ? static_cast<float>(std::erfc(beta_ * rc_) / rc_) : 0.0f};
    a.constants.rc_inv12 = a.constants.rc_inv6 * a.constants.rc_inv6;
    a.out = {d.f.p, d.energies.p};
    a.energy = energy;
    d.begin(kForces);
    check(gpu::launch_nonbonded(a, d.stream), "nonbonded kernel");
    d.end(kForces);
    d.begin(kCopyDown);
    if (forces_to_host)
        check(cudaMemcpyAsync(d.h_f.p, d.f.p, nslots * sizeof(float3), cudaMemcpyDeviceToHost, d.stream), "copy f down");
    if (energy)
        check(cudaMemcpyAsync(d.h_energies.p, d.energies.p, 3 * sizeof(double), cudaMemcpyDeviceToHost, d.stream),
              "copy energies down");
    d.end(kCopyDown);
    // Rolling pruning of the next part overlaps the CPU's work on this step.
    if (pruning && prune_parts_ > 0) {
        d.begin(kRollingPrune);
        prune_part(static_cast<int>(steps_since_search_ % prune_parts_));
        d.end(kRollingPrune);
    }
    energy_ = energy;
    ++steps_since_search_;
}

GpuNonbondedEnergies GpuNonbonded::finish_energies() {
    Device& d = *dev_;
    GpuNonbondedEnergies e;
    if (!energy_) return e;  // nothing to wait for: the forces stay on the device
    const auto t0 = std::chrono::steady_clock::now();
    check(cudaEventSynchronize(d.timers.stop(kCopyDown)), "waiting for the energies");
    cpu_wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    e.lj = d.h_energies.p[0];
    e.coulomb = d.h_energies.p[1];
    e.pairs_in_cutoff = d.h_energies.p[2];
    return e;
}

GpuNonbondedEnergies GpuNonbonded::finish(float* fx, float* fy, float* fz) {
    Device& d = *dev_;
    const auto t0 = std::chrono::steady_clock::now();
    check(cudaEventSynchronize(d.timers.stop(kCopyDown)), "waiting for the forces");
    cpu_wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int nslots = layout_.num_gpu_slots();
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (int g = 0; g < nslots; ++g) {
        const int c = gpu_to_cpu_[g];
        if (c < 0) continue;
        fx[c] += d.h_f.p[g].x;
        fy[c] += d.h_f.p[g].y;
        fz[c] += d.h_f.p[g].z;
    }
    GpuNonbondedEnergies e;
    if (energy_) {
        e.lj = d.h_energies.p[0];
        e.coulomb = d.h_energies.p[1];
        e.pairs_in_cutoff = d.h_energies.p[2];
    }
    collect_times();
    return e;
}

void GpuNonbonded::collect_times() { dev_->timers.collect(kernel_seconds_); }

void GpuNonbonded::reset_times() {
    kernel_seconds_.clear();
    cpu_wait_seconds_ = 0.0;
}

}  // namespace mdcore
