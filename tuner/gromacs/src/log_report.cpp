#include "mdtune/gromacs/log_report.h"

#include <cctype>
#include <cstdlib>

#include "mdcore/line_fit.h"

namespace mdtune::gromacs {
namespace {

double number_or(const std::string& text, double fallback) {
    if (text.empty()) return fallback;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    return end == text.c_str() ? fallback : v;
}

mdcore::EnergySample energies(const EnergyFrame& f) {
    auto term = [&](const char* name) {
        const auto it = f.terms.find(name);
        return it == f.terms.end() ? 0.0 : it->second;
    };
    mdcore::EnergySample e;
    e.lj = term("LJ (SR)");
    e.coulomb_sr = term("Coulomb (SR)");
    e.coulomb_recip = term("Coul. recip.");
    e.dispersion_correction = term("Disper. corr.");
    e.potential = term("Potential");
    e.kinetic = term("Kinetic En.");
    e.total = term("Total Energy");
    e.conserved = term("Conserved En.");
    e.temperature = term("Temperature");
    return e;
}

}  // namespace

std::string task_name(const std::string& row) {
    if (row == "Neighbor search") return "search";
    if (row == "Force") return "nonbonded";  // GROMACS' CPU force task: nonbonded kernels and bonded terms
    if (row == "PME spread") return "pme_spread";
    if (row == "PME gather") return "pme_gather";
    if (row == "PME 3D-FFT") return "pme_fft";
    if (row == "PME solve Elec") return "pme_solve";
    if (row == "Update") return "update";
    if (row == "Constraints") return "constraints";
    if (row == "Rest") return "other";
    if (row == "Total") return "total";
    std::string out;
    for (char c : row) {
        if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else if (!out.empty() && out.back() != '_') out += '_';
    }
    while (!out.empty() && out.back() == '_') out.pop_back();
    return out.empty() ? "unnamed" : out;
}

mdcore::RunReport report_from_md_log(const MdLog& log, long steps, long warmup) {
    const long timed = log.timed_steps();
    if (log.ns_per_day <= 0 || log.wall_s <= 0 || timed <= 0)
        throw LogReportError("md.log has no Performance and Time lines (or no dt): the run did not report its speed");
    mdcore::RunReport rep;
    rep.build.engine_version = "GROMACS " + log.version;
    rep.system_kind = "gro";
    rep.natoms = log.natoms;
    rep.steps = steps;
    rep.warmup = warmup;
    rep.ns_per_day = log.ns_per_day;
    rep.ms_per_step = 1e3 * log.wall_s / static_cast<double>(timed);
    // Reports carry seconds over steps - warmup measured steps; GROMACS times one more.
    const double to_measured = static_cast<double>(std::max(1L, steps - warmup)) / static_cast<double>(timed);
    for (const CycleRow& row : log.cycles) {
        // The mesh total is its breakdown's sum (and with PME ranks it is the PME ranks' time).
        if (row.task == "PME mesh" || row.task == "PME wait for PP") continue;
        rep.timings[task_name(row.task)] += row.wall_s * to_measured;
    }
    mdcore::EffectiveConfig& c = rep.config;
    c.nstlist = log.nstlist;
    c.nstprune = log.prune_interval ? log.prune_interval : log.nstlist;
    c.rc = number_or(log.parameter("rcoulomb"), 0);
    c.rlist = log.rlist;
    c.rlist_inner = log.rlist_inner;
    c.threads = std::max(1, log.omp_threads);
    c.dt = number_or(log.parameter("dt"), 0);
    c.drift_tolerance = number_or(log.parameter("verlet-buffer-tolerance"), 0.005);
    c.pme = log.parameter("coulombtype") == "PME";
    c.ewald_rtol = number_or(log.parameter("ewald-rtol"), 0);
    c.pme_grid = {static_cast<int>(number_or(log.parameter("fourier-nx"), 0)),
                  static_cast<int>(number_or(log.parameter("fourier-ny"), 0)),
                  static_cast<int>(number_or(log.parameter("fourier-nz"), 0))};
    c.pme_order = static_cast<int>(number_or(log.parameter("pme-order"), 0));
    c.pme_spacing = number_or(log.parameter("fourierspacing"), 0);
    c.ranks = std::max(1, log.mpi_ranks);
    if (log.dd[0] > 0) c.dd = log.dd;
    c.npme = std::max(0, log.pme_ranks);
    c.temperature = number_or(log.parameter("ref-t"), 0);
    if (!log.frames.empty()) {
        rep.start = energies(log.frames.front());
        rep.end = energies(log.frames.back());
    }
    // Drift: the conserved energy per atom over the prints after the warm-up.
    std::vector<double> t, e;
    for (const EnergyFrame& f : log.frames) {
        const auto it = f.terms.find("Conserved En.");
        if (f.step < warmup || it == f.terms.end()) continue;
        t.push_back(f.time_ps);
        e.push_back(it->second / static_cast<double>(std::max(1L, log.natoms)));
    }
    rep.energy_samples = static_cast<long>(log.frames.size());
    if (t.size() >= 3) {
        const mdcore::LineFit fit = mdcore::fit_line(t, e);
        rep.drift_per_atom_per_ps = fit.slope;
        rep.drift_stderr_per_atom_per_ps = fit.slope_stderr;
    } else if (log.drift) {
        rep.drift_per_atom_per_ps = *log.drift;  // GROMACS' end-to-end figure, no error known
    }
    return rep;
}

}  // namespace mdtune::gromacs
