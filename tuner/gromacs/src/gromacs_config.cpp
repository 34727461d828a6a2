#include "mdtune/gromacs/gromacs_config.h"

#include <cstdio>
#include <cstdlib>

namespace mdtune::gromacs {
namespace {

constexpr Param kTunables[] = {Param::Threads,    Param::Ranks,     Param::Npme,          Param::Dd,
                               Param::Nstlist,    Param::NbOffload, Param::PmeOffload,    Param::UpdateOffload,
                               Param::GpuId,      Param::PmeScale,  Param::PmeSpacing,    Param::PmeOrder,
                               Param::PmeGrid};

std::string real_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// A number the .mdp gives, else GROMACS' default.
double mdp_number(std::string_view mdp, std::string_view key, double fallback) {
    const auto v = mdp_value(mdp, key);
    if (!v || v->empty()) return fallback;
    char* end = nullptr;
    const double x = std::strtod(v->c_str(), &end);
    return end == v->c_str() ? fallback : x;
}

}  // namespace

bool has_tunable(Param p) {
    for (Param t : kTunables)
        if (t == p) return true;
    return false;
}

std::string tunable_names() {
    std::string out;
    for (Param t : kTunables) out += (out.empty() ? "" : ", ") + std::string(param_info(t).name);
    return out;
}

MdpSettings grompp_settings(const Config& config, std::string_view mdp) {
    MdpSettings out;
    const auto grid = config.value<std::string>(Param::PmeGrid);
    const bool explicit_grid = grid && *grid != "0x0x0" && *grid != "auto";
    // A scale of 1 is the .mdp as it is (and the same prepared input as the default).
    if (const auto s = config.value<double>(Param::PmeScale); s && *s != 1.0) {
        out.emplace_back("rcoulomb", real_text(mdp_number(mdp, "rcoulomb", 1.0) * *s));
        if (!config.get(Param::PmeSpacing) && !explicit_grid)
            out.emplace_back("fourierspacing", real_text(mdp_number(mdp, "fourierspacing", 0.12) * *s));
    }
    if (const auto spacing = config.value<double>(Param::PmeSpacing)) {
        const double s = config.value<double>(Param::PmeScale).value_or(1.0);
        out.emplace_back("fourierspacing", real_text(*spacing * s));
    }
    // A spacing only rules where no grid is fixed: clear the .mdp's grid.
    const bool scaled = config.value<double>(Param::PmeScale).value_or(1.0) != 1.0;
    if (!explicit_grid && (scaled || config.get(Param::PmeSpacing)))
        for (const char* k : {"fourier-nx", "fourier-ny", "fourier-nz"}) out.emplace_back(k, "0");
    if (explicit_grid) {
        int n[3] = {0, 0, 0};
        if (std::sscanf(grid->c_str(), "%dx%dx%d", &n[0], &n[1], &n[2]) == 3) {
            out.emplace_back("fourier-nx", std::to_string(n[0]));
            out.emplace_back("fourier-ny", std::to_string(n[1]));
            out.emplace_back("fourier-nz", std::to_string(n[2]));
        }
    }
    if (const auto order = config.value<long>(Param::PmeOrder)) out.emplace_back("pme-order", std::to_string(*order));
    return out;
}

std::vector<std::string> mdrun_flags(const Config& config, bool thread_mpi) {
    std::vector<std::string> out;
    if (const auto r = config.value<long>(Param::Ranks); r && thread_mpi) out.insert(out.end(), {"-ntmpi", std::to_string(*r)});
    if (const auto t = config.value<long>(Param::Threads)) out.insert(out.end(), {"-ntomp", std::to_string(*t)});
    if (const auto k = config.value<long>(Param::Npme)) out.insert(out.end(), {"-npme", std::to_string(*k)});
    if (const auto dd = config.value<std::string>(Param::Dd); dd && *dd != "auto" && *dd != "0x0x0") {
        int n[3] = {0, 0, 0};
        if (std::sscanf(dd->c_str(), "%dx%dx%d", &n[0], &n[1], &n[2]) == 3)
            out.insert(out.end(), {"-dd", std::to_string(n[0]), std::to_string(n[1]), std::to_string(n[2])});
    }
    if (const auto n = config.value<long>(Param::Nstlist)) out.insert(out.end(), {"-nstlist", std::to_string(*n)});
    if (const auto nb = config.value<std::string>(Param::NbOffload)) out.insert(out.end(), {"-nb", *nb});
    if (const auto pme = config.value<std::string>(Param::PmeOffload)) out.insert(out.end(), {"-pme", *pme});
    if (const auto up = config.value<std::string>(Param::UpdateOffload)) out.insert(out.end(), {"-update", *up});
    if (const auto id = config.value<long>(Param::GpuId)) out.insert(out.end(), {"-gpu_id", std::to_string(*id)});
    return out;
}

std::string infeasible_reason(const Config& config, const GmxBuild& build, std::string_view mdp) {
    for (const auto& [p, v] : config.values())
        if (!has_tunable(p))
            return "GROMACS has no tunable " + std::string(param_info(p).name) + " (it has " + tunable_names() + ")";
    const bool gpu_task = config.value<std::string>(Param::NbOffload) == "gpu" ||
                          config.value<std::string>(Param::PmeOffload) == "gpu" ||
                          config.value<std::string>(Param::UpdateOffload) == "gpu";
    if (gpu_task && !build.has_gpu())
        return "a GPU task needs a GROMACS built with GPU support (this one: GPU support " +
               (build.gpu_support.empty() ? std::string("unknown") : build.gpu_support) + ")";
    // GROMACS runs PME on one GPU rank at most, and the mesh on the GPU needs the nonbonded there too.
    if (config.value<std::string>(Param::PmeOffload) == "gpu" && config.value<std::string>(Param::NbOffload) == "cpu")
        return "PME on the GPU needs the nonbonded task on the GPU (-nb gpu)";
    // With the Verlet scheme GROMACS allows rcoulomb > rvdw (PME) but never below.
    if (const auto s = config.value<double>(Param::PmeScale); s && *s < 1.0) {
        const double rc = mdp_number(mdp, "rcoulomb", 1.0) * *s;
        const double rvdw = mdp_number(mdp, "rvdw", 1.0);
        if (rc < rvdw - 1e-9)
            return "pme_scale " + real_text(*s) + " puts rcoulomb (" + real_text(rc) + " nm) below rvdw (" +
                   real_text(rvdw) + " nm), which GROMACS refuses";
    }
    if (const auto ranks = config.value<long>(Param::Ranks); ranks && config.value<long>(Param::Npme))
        if (*config.value<long>(Param::Npme) >= *ranks)
            return "npme " + std::to_string(*config.value<long>(Param::Npme)) + " leaves no particle-particle rank of " +
                   std::to_string(*ranks);
    return {};
}

}  // namespace mdtune::gromacs
