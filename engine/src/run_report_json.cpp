#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

#include "mdcore/engine.h"
#include "mdcore/run_report.h"
#include "run_report_fields.h"
#include "util/format.h"

namespace mdcore {
namespace {

// A visitor for report_fields: sets each field in `j`.
auto put_into(nlohmann::json& j) {
    return [&j](const char* key, const auto& value) { j[key] = value; };
}

nlohmann::json energies(const EnergySample& e) {
    nlohmann::json j = nlohmann::json::object();
    report_fields::energies(e, put_into(j));
    nlohmann::json terms = nlohmann::json::object();
    for (const auto& [name, value] : gromacs_energy_terms(e)) terms[name] = value;
    j["gromacs_terms"] = terms;
    return j;
}

nlohmann::json config_block(const EffectiveConfig& c) {
    nlohmann::json j{{"cluster", std::string(to_string(c.cluster))},
                     {"rlist_source", c.rlist_from_estimate ? "estimate" : "override"},
                     {"simd", std::string(to_string(c.simd))},
                     {"thermostat", std::string(to_string(c.thermostat))}};
    report_fields::config_required(c, put_into(j));
    report_fields::config_optional(c, put_into(j));
    j["nb_offload"] = std::string(to_string(c.nb));
    j["pme_offload"] = std::string(to_string(c.pme_offload));
    j["update_offload"] = std::string(to_string(c.update));
    j["vdw_modifier"] = std::string(to_string(c.vdw_modifier));
    j["coulomb_type"] = std::string(to_string(c.coulomb_type));
    j["dispcorr"] = std::string(to_string(c.dispcorr));
    return j;
}

// Schema version 2: how the run was spread over MPI ranks.
nlohmann::json parallel_block(const ParallelStats& p, const EffectiveConfig& c) {
    nlohmann::json j{{"ranks", c.ranks},
                     {"dd", {c.dd[0], c.dd[1], c.dd[2]}},
                     {"npme", c.npme},
                     {"comm_distance", c.dd_comm_distance},
                     {"dd_reason", c.dd_reason}};
    report_fields::parallel_stats(p, put_into(j));
    return j;
}

nlohmann::json pairlist_block(const PairlistStats& p, const EffectiveConfig& c) {
    nlohmann::json j{{"cluster", std::string(to_string(c.cluster))},
                     {"rlist", c.rlist},
                     {"rlist_inner", c.rlist_inner},
                     {"nstlist", c.nstlist},
                     {"nstprune", c.nstprune}};
    report_fields::pairlist_stats(p, put_into(j));
    return j;
}

nlohmann::json build_block(const BuildInfo& b, SimdLevel kernel_simd) {
    nlohmann::json j{{"compiler", b.compiler},
                     {"flags", b.flags},
                     {"simd", std::string(to_string(kernel_simd))},
                     {"simd_available", b.simd_available},
                     {"git_commit", b.git_commit}};
    if (!b.build_id.empty()) j["build_id"] = b.build_id;
    return j;
}

}  // namespace

std::string effective_config_to_json(const EffectiveConfig& config) { return config_block(config).dump(); }

std::string pairlist_to_json(const PairlistStats& pairlist, const EffectiveConfig& config) {
    return pairlist_block(pairlist, config).dump();
}

std::string run_report_to_json(const RunReport& r, int indent) {
    nlohmann::json j;
    j["schema_version"] = kRunReportSchemaVersion;
    j["engine_version"] = r.build.engine_version;
    j["status"] = r.status;
    if (!r.error.empty()) j["error"] = r.error;
    if (r.status == "failed") j["failed_step"] = r.failed_step;
    j["build"] = build_block(r.build, r.config.simd);
    report_fields::system(r, put_into(j["system"]));
    j["config"] = config_block(r.config);
    j["steps"] = r.steps;
    j["warmup"] = r.warmup;
    j["ns_per_day"] = r.ns_per_day;
    j["ms_per_step"] = r.ms_per_step;
    j["timings"] = r.timings;
    j["pairlist"] = pairlist_block(r.pairlist, r.config);
    j["energies"] = {{"start", energies(r.start)}, {"end", energies(r.end)}};
    j["drift_per_atom_per_ps"] = r.drift_per_atom_per_ps;
    j["drift_stderr_per_atom_per_ps"] = r.drift_stderr_per_atom_per_ps;
    j["energy_samples"] = r.energy_samples;
    j["max_constraint_deviation"] = r.max_constraint_deviation;
    j["parallel"] = parallel_block(r.parallel, r.config);
    j["threads"] = {{"pin", std::string(to_string(r.threads.pin))}};
    report_fields::thread_stats(r.threads, put_into(j["threads"]));
    if (!r.gpu.name.empty())
        j["gpu"] = {{"name", r.gpu.name},
                    {"memory_bytes", r.gpu.memory_bytes},
                    {"compute_capability", r.gpu.compute_capability},
                    {"kernel_seconds", r.gpu.kernel_seconds},
                    {"cpu_wait_seconds", r.gpu.cpu_wait_seconds}};
    if (!r.setting_sources.empty()) j["setting_sources"] = r.setting_sources;
    return j.dump(indent);
}

std::string run_report_to_text(const RunReport& r) {
    const EffectiveConfig& c = r.config;
    std::ostringstream o;
    o << format_text("mdcore %s  system %s  %ld atoms  box %.4f x %.4f x %.4f nm  %.4f g/cm^3\n",
                     r.build.engine_version.c_str(), r.system_kind.c_str(), r.natoms, r.box[0], r.box[1], r.box[2],
                     r.mass_density);
    o << format_text(
        "config   cluster %s  simd %s  threads %d  rc %.4f  rlist %.4f (%s)  rlist_inner %.4f  nstlist %d  nstprune "
        "%d\n",
        std::string(to_string(c.cluster)).c_str(), std::string(to_string(c.simd)).c_str(), c.threads, c.rc, c.rlist,
        c.rlist_from_estimate ? "estimate" : "override", c.rlist_inner, c.nstlist, c.nstprune);
    o << format_text("run      %ld steps (%ld warm-up)  dt %.5g ps  thermostat %s\n", r.steps, r.warmup, c.dt,
                     std::string(to_string(c.thermostat)).c_str());
    o << format_text("speed    %.3f ns/day  %.4f ms/step\n", r.ns_per_day, r.ms_per_step);
    o << "timings ";
    for (const auto& [task, s] : r.timings) {
        o << format_text("  %s %.4f s", task.c_str(), s);
    }
    o << "\n";
    o << format_text("pairs    list %.0f  in cut-off %.0f  efficiency %.3f  searches %ld  prunes %ld\n",
                     r.pairlist.list_pairs, r.pairlist.pairs_in_cutoff, r.pairlist.efficiency, r.pairlist.searches,
                     r.pairlist.prunes);
    o << "threads  " << c.threads << (r.threads.pinned ? ", pinned to CPUs" : ", not pinned");
    for (int cpu : r.threads.cpus) o << " " << cpu;
    o << " (" << r.threads.pin_note << ")";
    if (!r.threads.wait.empty() && r.steps > r.warmup) {
        o << "; barrier wait per thread";
        for (double s : r.threads.wait) {
            o << format_text(" %.4f", 1e3 * s / static_cast<double>(r.steps - r.warmup));
        }
        o << " ms/step";
    }
    o << "\n";
    if (c.pme) {
        o << format_text("pme      grid %dx%dx%d  order %d  beta %.5f nm^-1  scale %.3f  constraints %d\n",
                         c.pme_grid[0], c.pme_grid[1], c.pme_grid[2], c.pme_order, c.ewald_beta, c.pme_scale,
                         c.constraints);
    }
    if (c.vdw_modifier != VdwModifier::PotentialShift || c.coulomb_type != CoulombType::Pme || c.dispcorr != DispCorr::No) {
        o << format_text("form     LJ %s", std::string(to_string(c.vdw_modifier)).c_str());
        if (c.vdw_modifier != VdwModifier::PotentialShift) {
            o << format_text(" from %.4g nm", c.rvdw_switch);
        }
        o << format_text("  Coulomb %s", std::string(to_string(c.coulomb_type)).c_str());
        if (c.coulomb_type == CoulombType::ReactionField) {
            o << format_text(" (epsilon_rf %.4g%s)", c.epsilon_rf, c.epsilon_rf == 0 ? ": infinity" : "");
        }
        if (c.dispcorr != DispCorr::No) o << "  DispCorr " << to_string(c.dispcorr);
        o << "\n";
    }
    if (c.nb == Offload::Gpu || !r.gpu.name.empty()) {
        o << format_text("offload  nb %s  pme %s  update %s  gpu %d: %s, %.1f GiB, sm %s  CPU wait %.4f s\n",
                         std::string(to_string(c.nb)).c_str(), std::string(to_string(c.pme_offload)).c_str(),
                         std::string(to_string(c.update)).c_str(), c.gpu_id, r.gpu.name.c_str(),
                         static_cast<double>(r.gpu.memory_bytes) / (1024.0 * 1024.0 * 1024.0),
                         r.gpu.compute_capability.c_str(), r.gpu.cpu_wait_seconds);
        o << "gpu time";
        for (const auto& [kernel, s] : r.gpu.kernel_seconds) {
            o << format_text("  %s %.4f s", kernel.c_str(), s);
        }
        o << "\n";
    }
    for (const auto& [name, e] : {std::pair{"start", r.start}, std::pair{"end  ", r.end}}) {
        o << format_text(
            "%s    LJ %.4f  Coul-SR %.4f  Coul-recip %.4f  potential %.4f  kinetic %.4f  total %.4f  "
            "conserved %.4f  T %.3f K\n",
            name, e.lj, e.coulomb_sr, e.coulomb_recip, e.potential, e.kinetic, e.total, e.conserved, e.temperature);
        if (e.bonded.total() != 0.0 || e.dispersion_correction != 0.0) {  // a molecular system: every term under GROMACS' name, as gmx energy shows them
            std::string terms = "         ";
            for (const auto& [term, value] : gromacs_energy_terms(e)) {
                terms += format_text("  %s %.4f", term, value);
            }
            o << terms << "\n";
        }
    }
    o << format_text("drift    %.3g +- %.2g kJ/mol/ps per atom (tolerance %g)\n", r.drift_per_atom_per_ps,
                     r.drift_stderr_per_atom_per_ps, c.drift_tolerance);
    if (c.ranks > 1) {
        const ParallelStats& p = r.parallel;
        o << format_text(
                 "parallel %d ranks  dd %dx%dx%d  npme %d  load imbalance %.3f  halo x %.4f s  halo f %.4f s  "
                 "mesh %.4f s  reductions %.4f s  wait %.4f s\n",
                 c.ranks, c.dd[0], c.dd[1], c.dd[2], c.npme, p.load_imbalance, p.halo_x, p.halo_f, p.mesh, p.reductions,
                 p.wait)
          << "dd       " << c.dd_reason << "\n";
        if (!p.dlb.empty()) o << "dlb      " << p.dlb << "\n";
        if (!p.shm_copy.empty()) o << "mpi shm  " << p.shm_copy << "\n";
    }
    if (!r.setting_sources.empty()) {
        // Only what did not come from mdcore's defaults: the rest is as documented.
        std::string given;
        for (const auto& [name, source] : r.setting_sources)
            if (source.rfind("default", 0) != 0 || source.find('(') != std::string::npos)
                given += "  " + name + " " + source;
        if (!given.empty()) o << "sources " << given << "\n";
    }
    if (r.status != "ok") o << "status   " << r.status << ": " << r.error << "\n";
    return o.str();
}

std::vector<std::pair<const char*, double>> gromacs_energy_terms(const EnergySample& e) {
    const BondedEnergies& b = e.bonded;
    std::vector<std::pair<const char*, double>> terms;
    const std::pair<const char*, double> bonded[] = {
        {"Bond", b.bond},         {"G96Bond", b.g96_bond},          {"Angle", b.angle},
        {"G96Angle", b.g96_angle}, {"U-B", b.urey_bradley},          {"Proper Dih.", b.proper_dihedral},
        {"Ryckaert-Bell.", b.rb},  {"Improper Dih.", b.improper},    {"Per. Imp. Dih.", b.periodic_improper},
        {"CMAP Dih.", b.cmap},     {"LJ-14", b.lj14},                {"Coulomb-14", b.coulomb14},
    };
    for (const auto& t : bonded)
        if (t.second != 0.0) terms.push_back(t);
    terms.emplace_back("LJ (SR)", e.lj);
    if (e.dispersion_correction != 0.0) terms.emplace_back("Disper. corr.", e.dispersion_correction);
    terms.emplace_back("Coulomb (SR)", e.coulomb_sr);
    terms.emplace_back("Coul. recip.", e.coulomb_recip);
    if (b.position_restraint != 0.0) terms.emplace_back("Position Rest.", b.position_restraint);
    terms.emplace_back("Potential", e.potential);
    if (e.pressure_dc != 0.0) terms.emplace_back("Pres. DC (bar)", e.pressure_dc);
    return terms;
}

}  // namespace mdcore
