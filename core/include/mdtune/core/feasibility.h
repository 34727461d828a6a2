#pragma once
// The one feasibility check sweeps, predictions and tuning share: whether a
// (system, config) point can run on a machine. It is mdcore's own resolve_config
// on the system's summary (every rule mdcore applies to the config: rc x
// pme_scale below half the box, rlist limits, PME order and accuracy, memory)
// plus the machine's limits (threads, SIMD levels; ranks and GPUs join here).
// mdcore's memory check compares with this machine's memory, so it applies only
// when the caps describe this machine (HardwareCaps::local).
#include <memory>
#include <string>
#include <vector>

#include "mdcore/engine.h"
#include "mdcore/gromacs_input.h"
#include "mdcore/system_summary.h"
#include "mdtune/core/config.h"
#include "mdtune/core/trial.h"

namespace mdtune::inline core {

// What a machine offers, for the machine checks.
struct HardwareCaps {
    int cores = 1;                         // hardware threads usable
    bool has_gpu = false;
    std::vector<std::string> simd_levels;  // mdcore levels it runs, e.g. {"none","avx2","avx512"}
    // The machine this process runs on; false for another one (compute nodes planned from a
    // Slurm login node, a stored hardware id): its memory is not this machine's, so mdcore's
    // host-memory check is skipped (ResolveOptions::check_host_memory).
    bool local = true;
    // Ranks x threads per rank may exceed `cores` (a space's [launch] oversubscribe = true).
    bool oversubscribe = false;
};

// The MPI ranks a config launches (its `ranks`, else 1) and its OpenMP threads per
// rank (its `threads`, else the cores shared among the ranks, as mdcore's default).
int ranks_of(const Config& config);
int threads_per_rank(const Config& config, int cores);

// The system as resolve_config reads it (mdcore/system_summary.h): for a generated
// kind, what mdcore run --system would build, without building it. Computed once
// per descriptor and shared; throws std::invalid_argument for no atoms or what
// the generator refuses.
std::shared_ptr<const mdcore::SystemSummary> system_summary(const SystemDescriptor& system);
// Sets the summary system_summary answers for `system` (a user's box, read once by
// describe_system_files), with its .mdp's PME settings. A user's box read back from
// a database without its files has none: system_summary throws std::invalid_argument for it.
void remember_system_summary(const SystemDescriptor& system, std::shared_ptr<const mdcore::SystemSummary> summary,
                             const mdcore::MdpPmeSettings& mdp_pme = {});

// The RunConfig mdcore run takes for `config` on `system`: the config's tunables,
// and for a box with an .mdp its PME settings where the config sets none (as
// mdcore run --mdp with the config's flags). Throws as system_summary does.
mdcore::RunConfig system_run_config(const SystemDescriptor& system, const Config& config);

// The settings mdcore resolves `config` to for the system, on a machine whose
// SIMD level is `simd` (Auto: the config's or None): cluster default and
// threads follow the target, not this machine; the layout is the one mdcore picks
// when started on the config's ranks (ranks_of). Throws std::invalid_argument
// (mdcore's message) when mdcore would refuse the config.
mdcore::EffectiveConfig resolve_for_system(const SystemDescriptor& system, const Config& config,
                                           mdcore::SimdLevel simd, int threads,
                                           const mdcore::ResolveOptions& options = {});

// Why the point cannot run on `hw`, "" when it can.
std::string infeasible_reason(const SystemDescriptor& system, const Config& config, const HardwareCaps& hw);
// Only the machine's limits a config names (threads and ranks x threads against the
// cores, a SIMD level or a GPU the machine lacks): what another engine's trials
// are held to, since mdcore's own rules do not bind another program.
std::string machine_infeasible_reason(const Config& config, const HardwareCaps& hw);

}  // namespace mdtune::core
