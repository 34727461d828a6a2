// mdcore as an engine: the subprocess runner and identity the tuner always had.
#include "engines.h"

namespace mdtune::tuner {
namespace {

class MdcoreEngine : public Engine {
public:
    explicit MdcoreEngine(std::string path) : path_(std::move(path)) {}
    EngineKind kind() const override { return EngineKind::Mdcore; }
    MeasurementIdentity identity(const std::vector<std::string>& launcher, const char* const* envp) override {
        return identify_measurement(path_, launcher, envp);
    }
    std::string infeasible_reason(const SystemDescriptor&, const Config&) const override { return {}; }
    std::unique_ptr<Runner> runner(const LaunchPolicy& launch) const override {
        return make_subprocess_runner(path_, launch);
    }
    std::string command_line(const SystemDescriptor& system, const Config& config) const override {
        std::string line = "mdcore run";
        for (const auto& a : system.mdcore_args()) line += " " + a;
        for (const auto& a : config.mdcore_args()) line += " " + a;
        return line;
    }

private:
    std::string path_;
};

}  // namespace

std::unique_ptr<Engine> make_mdcore_engine(const std::string& mdcore_path) {
    return std::make_unique<MdcoreEngine>(mdcore_path);
}

}  // namespace mdtune::tuner
