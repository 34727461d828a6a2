#pragma once
// The RunReport's plain JSON fields, each named once for the writer (run_report_json.cpp) and the
// reader (run_report_read.cpp). Each function calls visit(json_name, member) per field, in the
// order written; R is the struct, const for the writer. Fields that need a conversion (enums,
// derived values, whether a field is required) stay spelt out in the writer and the reader.
#include "mdcore/run_report.h"

namespace mdcore::report_fields {

template <class R, class Visit>
void energies(R& e, Visit&& visit) {
    visit("lj", e.lj);
    visit("coulomb_sr", e.coulomb_sr);
    visit("coulomb_recip", e.coulomb_recip);
    visit("bond", e.bonded.bond);
    visit("g96_bond", e.bonded.g96_bond);
    visit("angle", e.bonded.angle);
    visit("g96_angle", e.bonded.g96_angle);
    visit("urey_bradley", e.bonded.urey_bradley);
    visit("proper_dihedral", e.bonded.proper_dihedral);
    visit("periodic_improper", e.bonded.periodic_improper);
    visit("improper", e.bonded.improper);
    visit("ryckaert_bellemans", e.bonded.rb);
    visit("cmap", e.bonded.cmap);
    visit("lj14", e.bonded.lj14);
    visit("coulomb14", e.bonded.coulomb14);
    visit("position_restraint", e.bonded.position_restraint);
    visit("dispersion_correction", e.dispersion_correction);
    visit("pressure_dc", e.pressure_dc);
    visit("potential", e.potential);
    visit("kinetic", e.kinetic);
    visit("total", e.total);
    visit("conserved", e.conserved);
    visit("temperature", e.temperature);
}

// The pair-list statistics (the "pairlist" block also repeats the list's config fields).
template <class R, class Visit>
void pairlist_stats(R& p, Visit&& visit) {
    visit("list_pairs", p.list_pairs);
    visit("outer_list_pairs", p.outer_list_pairs);
    visit("pairs_in_cutoff", p.pairs_in_cutoff);
    visit("efficiency", p.efficiency);
    visit("searches", p.searches);
    visit("prunes", p.prunes);
}

// The per-rank timings of the "parallel" block (it also repeats the layout's config fields).
template <class R, class Visit>
void parallel_stats(R& p, Visit&& visit) {
    visit("force_time", p.force_time);
    visit("atoms", p.atoms);
    visit("halo_x", p.halo_x);
    visit("halo_f", p.halo_f);
    visit("pp_pme", p.pp_pme);
    visit("mesh", p.mesh);
    visit("reductions", p.reductions);
    visit("wait", p.wait);
    visit("load_imbalance", p.load_imbalance);
    visit("dlb", p.dlb);
    visit("shm_copy", p.shm_copy);
}

// The "threads" block (its "pin" mode is an enum, written and read apart).
template <class R, class Visit>
void thread_stats(R& t, Visit&& visit) {
    visit("pinned", t.pinned);
    visit("cpus", t.cpus);
    visit("pin_note", t.pin_note);
    visit("wait", t.wait);
}

// The "system" block of a RunReport.
template <class R, class Visit>
void system(R& r, Visit&& visit) {
    visit("kind", r.system_kind);
    visit("natoms", r.natoms);
    visit("box", r.box);
    visit("number_density", r.number_density);
    visit("density", r.mass_density);
}

// EffectiveConfig numbers every report carries (the reader requires them).
template <class R, class Visit>
void config_required(R& c, Visit&& visit) {
    visit("threads", c.threads);
    visit("nstlist", c.nstlist);
    visit("nstprune", c.nstprune);
    visit("rc", c.rc);
    visit("rlist", c.rlist);
    visit("rlist_inner", c.rlist_inner);
    visit("drift_tolerance", c.drift_tolerance);
}

// EffectiveConfig fields later schema versions added (absent in older reports: the defaults stay).
template <class R, class Visit>
void config_optional(R& c, Visit&& visit) {
    visit("dt", c.dt);
    visit("temperature", c.temperature);
    visit("pme", c.pme);
    visit("ewald_beta", c.ewald_beta);
    visit("ewald_rtol", c.ewald_rtol);
    visit("pme_grid", c.pme_grid);
    visit("pme_order", c.pme_order);
    visit("pme_spacing", c.pme_spacing);
    visit("pme_scale", c.pme_scale);
    visit("pme_force_error", c.pme_force_error);
    visit("rvdw_switch", c.rvdw_switch);
    visit("epsilon_rf", c.epsilon_rf);
    visit("constraints", c.constraints);
    visit("ranks", c.ranks);
    visit("dd", c.dd);
    visit("npme", c.npme);
    visit("gpu_id", c.gpu_id);
}

}  // namespace mdcore::report_fields
