// Runs mdcore in this process through the library API (tests and quick checks; no
// isolation from crashes and no timeout).
#include <chrono>

#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdcore/gromacs_input.h"
#include "mdtune/tuner/runner.h"

namespace mdtune::tuner {
namespace {

class InProcessRunner : public Runner {
public:
    RunOutcome run_once(const Proposal& p, int /*repeat*/) override {
        RunOutcome out;
        const auto start = std::chrono::steady_clock::now();
        const double cpu_before = self_cpu_seconds();  // the thread group: this process's OpenMP threads
        try {
            mdcore::RunConfig config = p.config.run_config();
            mdcore::RunControl control;
            mdcore::System sys;
            if (p.system.from_files()) {  // as mdcore run --gro --top --mdp with the config's flags
                mdcore::GromacsRunInput in = mdcore::read_gromacs_run_input(p.system.gro, p.system.top, p.system.mdp);
                sys = std::move(in.system);
                control = in.control;
                in.pme.apply(config, [&](mdcore::Tunable t) { return p.config.get(t) != nullptr; });
            } else {
                sys = mdcore::make_named_system(p.system.kind, p.system.natoms, p.system.seed);
            }
            control.steps = p.measure.steps;
            control.warmup = p.measure.warmup;
            out.report = mdcore::run(sys, config, control);
            out.status = TrialStatus::Ok;
        } catch (const std::exception& e) {
            out.status = TrialStatus::Failed;
            out.stderr_tail = e.what();
        }
        out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        out.cpu_s = self_cpu_seconds() - cpu_before;
        return out;
    }
};

}  // namespace

std::unique_ptr<Runner> make_in_process_runner() { return std::make_unique<InProcessRunner>(); }

}  // namespace mdtune::tuner
