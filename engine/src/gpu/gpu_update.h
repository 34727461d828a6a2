#pragma once
// Leap-frog and SETTLE on the GPU (--update gpu, the paper's mode E), seen from
// the host: positions stay in the nonbonded task's device buffer and velocities
// next to them; both come back only when the CPU needs them (the search every
// nstlist steps, constraint checks on energy steps, the end of the run). The
// step waits for the nonbonded and PME forces on the device, updates, and
// returns the kinetic energy the thermostat needs. Host header: no CUDA types;
// defined only in CUDA builds (gpu_update.cpp).
#include <map>
#include <memory>
#include <string>

#include "integrate/leapfrog.h"
#include "integrate/settle.h"
#include "integrate/settle_update.h"
#include "mdcore/system.h"

namespace mdcore {

class GpuNonbonded;
class GpuPme;

class GpuUpdate {
public:
    // pme: the GPU PME task whose mesh forces join the update, or null (no charges).
    GpuUpdate(GpuNonbonded& nb, GpuPme* pme, const SettleParameters& settle, const Box& box, int threads);
    ~GpuUpdate();
    GpuUpdate(const GpuUpdate&) = delete;
    GpuUpdate& operator=(const GpuUpdate&) = delete;

    // After a search (the nonbonded task has its new slots): velocities, masses
    // and the SETTLE list go up; the positions go up with the next force launch.
    void set_state(const SortedState& state, const SettleUpdateList& settles);
    // Leap-frog with velocity scaling lambda, then SETTLE, once this step's forces
    // are done; waits and returns 2 x the kinetic energy of v(t + dt/2). Throws
    // std::runtime_error when SETTLE finds no solution for some molecule.
    double update(double dt, double lambda);
    // True from the first update until the next set_state: the device holds the
    // current positions and velocities, the host's copy is stale.
    bool state_on_device() const { return on_device_; }
    // The device's positions and velocities into `state` (sorted CPU slots).
    void download(SortedState& state);

    // CUDA-event seconds of the update kernel ("update") since the last reset, and the CPU's wait.
    const std::map<std::string, double>& kernel_seconds() const { return kernel_seconds_; }
    double cpu_wait_seconds() const { return cpu_wait_seconds_; }
    void reset_times();

private:
    struct Device;  // buffers, events (gpu_update.cpp)
    GpuNonbonded& nb_;
    GpuPme* pme_;
    std::unique_ptr<Device> dev_;
    int threads_;
    bool on_device_ = false;
    std::map<std::string, double> kernel_seconds_;
    double cpu_wait_seconds_ = 0.0;
};

}  // namespace mdcore
