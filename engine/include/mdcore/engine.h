#pragma once
// libmdcore's entry points: System + RunConfig (+ RunControl) -> RunReport.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mdcore/run_config.h"
#include "mdcore/run_report.h"
#include "mdcore/system.h"

namespace mdcore {

// How resolve_config judges a config beyond its own rules.
struct ResolveOptions {
    // Refuse a run whose estimated memory does not fit this machine (MemAvailable, the
    // cgroup limit, ulimit), as mdcore run does. A caller judging a config for another
    // machine (a Slurm login node planning for compute nodes, a prediction for a stored
    // hardware id) sets it false: this machine's memory says nothing about that one. The
    // pair list's 32-bit index limit holds on every machine and is checked either way.
    bool check_host_memory = true;
    // 0: the ranks this process was started on (the MPI world). N > 0: judge the config
    // as if started on N ranks (a tuner planning trials it will launch under mpirun).
    int planned_ranks = 0;
};

// Resolves the heuristics of a RunConfig for a system; throws std::invalid_argument
// naming the parameter when a value is impossible (e.g. rc above half the box).
EffectiveConfig resolve_config(const System& system, const RunConfig& config,
                               const RunControl& control, const ResolveOptions& options = {});

// Thrown by run() when an energy, a force or the kinetic energy stops being finite:
// report() has status "failed", failed_step and error set, and what was measured
// up to that step.
class RunFailed : public std::runtime_error {
public:
    explicit RunFailed(RunReport report) : std::runtime_error(report.error), report_(std::move(report)) {}
    const RunReport& report() const { return report_; }

private:
    RunReport report_;
};

// Where a run's `threads` OpenMP threads would be pinned on this machine under
// control.pin (docs/user/mdcore-run.md, "Threads, pinning and waits"); throws std::invalid_argument
// for a --pin on that the CPUs this process may use cannot hold.
ThreadStats plan_thread_pinning(const RunControl& control, int threads);

// Runs MD in place on `system` (positions and velocities advance), its threads
// pinned as plan_thread_pinning says; throws RunFailed (above) when the state
// becomes non-finite.
RunReport run(System& system, const RunConfig& config, const RunControl& control);

// Forces (kJ/mol/nm, per atom in input order) and energies of the current state.
struct ForceResult {
    std::vector<Vec3> forces;
    double lj = 0.0;
    double coulomb_sr = 0.0;
    double coulomb_recip = 0.0;
    BondedEnergies bonded;
    double dispersion_correction = 0.0;  // kJ/mol, DispCorr
    double pressure_dc = 0.0;            // bar, DispCorr EnerPres / AllEnerPres
    double potential = 0.0;
    EffectiveConfig config;
};
ForceResult compute_forces(const System& system, const RunConfig& config);

std::string engine_version();
std::string build_compiler();
std::string build_flags();
// SIMD levels this binary has kernels for and the CPU supports, narrowest first.
std::vector<SimdLevel> available_simd_levels();

}  // namespace mdcore
