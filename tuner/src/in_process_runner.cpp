// Runs mdcore in this process through the library API (tests and quick checks; no
// isolation from crashes and no timeout).
#include <chrono>
#include <stdexcept>

#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdtune/runner.h"

namespace mdtune {
namespace {

// Typed conversion of a tuner Config into the engine's RunConfig.
mdcore::RunConfig to_run_config(const Config& c) {
    mdcore::RunConfig rc;
    for (const auto& [param, value] : c.values()) {
        auto integer = [&] { return static_cast<int>(std::get<long>(value)); };
        auto real = [&] {
            return std::holds_alternative<long>(value) ? static_cast<double>(std::get<long>(value)) : std::get<double>(value);
        };
        switch (param) {
            case Param::Cluster: {
                const auto shape = mdcore::parse_cluster_shape(std::get<std::string>(value));
                if (!shape) throw std::invalid_argument("unknown cluster shape");
                rc.cluster = *shape;
                break;
            }
            case Param::Nstlist: rc.nstlist = integer(); break;
            case Param::Nstprune: rc.nstprune = integer(); break;
            case Param::Rlist: rc.rlist = real(); break;
            case Param::PmeScale: rc.pme_scale = real(); break;
            case Param::PmeSpacing: rc.pme_spacing = real(); break;
            case Param::PmeOrder: rc.pme_order = integer(); break;
            case Param::Threads: rc.threads = integer(); break;
            case Param::Simd: {
                const auto level = mdcore::parse_simd_level(std::get<std::string>(value));
                if (!level) throw std::invalid_argument("unknown SIMD level");
                rc.simd = *level;
                break;
            }
        }
    }
    return rc;
}

class InProcessRunner : public Runner {
public:
    RunOutcome run_once(const Proposal& p, int /*repeat*/) override {
        RunOutcome out;
        const auto start = std::chrono::steady_clock::now();
        try {
            mdcore::System sys = mdcore::make_named_system(p.system.kind, p.system.natoms, p.system.seed);
            mdcore::RunControl control;
            control.steps = p.measure.steps;
            control.warmup = p.measure.warmup;
            out.report = mdcore::run(sys, to_run_config(p.config), control);
            out.status = TrialStatus::Ok;
        } catch (const std::exception& e) {
            out.status = TrialStatus::Failed;
            out.stderr_tail = e.what();
        }
        out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return out;
    }
};

}  // namespace

std::unique_ptr<Runner> make_in_process_runner() { return std::make_unique<InProcessRunner>(); }

}  // namespace mdtune
