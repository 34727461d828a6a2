// The RunReport's JSON boundary: what run_report_to_json writes,
// run_report_from_json reads back, field for field; older reports still read;
// a malformed one names the field.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mdcore/build_info.h"
#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdcore/run_report.h"

namespace mdcore {
namespace {

using nlohmann::json;

EnergySample energies(double base) {
    return {base + 0.1, base + 0.2, base + 0.3, base + 0.4, base + 0.5, base + 0.6, base + 0.7, base + 0.8};
}

// Every field set, none to its default, no two alike.
RunReport full_report() {
    RunReport r;
    r.build = {"9.8.7", "g++ 12.2", "-O3 -march=native", {"none", "avx2"}, "0123456789ab", "deadbeef01"};
    r.status = "failed";
    r.error = "step 40: energy is not finite";
    r.failed_step = 40;
    r.system_kind = "water-ions";
    r.natoms = 3006;
    r.box = {3.1, 3.2, 3.3};
    r.number_density = 99.5;
    r.mass_density = 1.02;
    EffectiveConfig& c = r.config;
    c.cluster = ClusterShape::k4x8;
    c.nstlist = 25;
    c.nstprune = 5;
    c.rc = 0.95;
    c.rlist = 1.07;
    c.rlist_inner = 0.99;
    c.rlist_from_estimate = false;
    c.threads = 3;
    c.simd = SimdLevel::Avx2;
    c.thermostat = Thermostat::VRescale;
    c.dt = 0.002;
    c.temperature = 298.5;
    c.drift_tolerance = 0.004;
    c.pme = true;
    c.ewald_beta = 3.21;
    c.ewald_rtol = 1e-5;
    c.pme_grid = {24, 25, 26};
    c.pme_order = 5;
    c.pme_spacing = 0.125;
    c.pme_scale = 1.1;
    c.pme_force_error = 2.875;
    c.vdw_modifier = VdwModifier::ForceSwitch;
    c.rvdw_switch = 0.75;
    c.coulomb_type = CoulombType::ReactionField;
    c.epsilon_rf = 62.0;
    c.constraints = 998;
    c.ranks = 6;
    c.dd = {2, 3, 1};
    c.npme = 0;
    c.dd_comm_distance = 1.25;
    c.dd_reason = "as requested";
    r.steps = 2000;
    r.warmup = 200;
    r.ns_per_day = 55.5;
    r.ms_per_step = 3.1;
    r.timings = {{"search", 0.25}, {"nonbonded", 1.5}, {"total", 2.5}};
    r.pairlist = {123456.5, 65432.25, 0.53, 234567.75, 81, 320};
    r.start = energies(-1000);
    r.end = energies(-2000);
    r.drift_per_atom_per_ps = 1.5e-4;
    r.drift_stderr_per_atom_per_ps = 2.5e-5;
    r.energy_samples = 41;
    r.max_constraint_deviation = 3e-7;
    r.parallel.force_time = {1.5, 1.25, 1.75, 1.5, 1.5, 1.5};
    r.parallel.atoms = {500, 510, 490, 505, 495, 500};
    r.parallel.halo_x = 0.125;
    r.parallel.halo_f = 0.25;
    r.parallel.pp_pme = 0;
    r.parallel.mesh = 0.5;
    r.parallel.reductions = 0.0625;
    r.parallel.wait = 0.03125;
    r.parallel.load_imbalance = 1.75 / 1.5;
    r.threads.pin = PinMode::On;
    r.threads.pinned = true;
    r.threads.cpus = {2, 3};
    r.threads.pin_note = "on: 2 threads on 4 CPUs";
    r.threads.wait = {0.125, 0.5};
    return r;
}

void expect_same(const EnergySample& a, const EnergySample& b) {
    EXPECT_EQ(a.lj, b.lj);
    EXPECT_EQ(a.coulomb_sr, b.coulomb_sr);
    EXPECT_EQ(a.coulomb_recip, b.coulomb_recip);
    EXPECT_EQ(a.potential, b.potential);
    EXPECT_EQ(a.kinetic, b.kinetic);
    EXPECT_EQ(a.total, b.total);
    EXPECT_EQ(a.conserved, b.conserved);
    EXPECT_EQ(a.temperature, b.temperature);
}

void expect_same(const EffectiveConfig& a, const EffectiveConfig& b) {
    EXPECT_EQ(a.cluster, b.cluster);
    EXPECT_EQ(a.nstlist, b.nstlist);
    EXPECT_EQ(a.nstprune, b.nstprune);
    EXPECT_EQ(a.rc, b.rc);
    EXPECT_EQ(a.rlist, b.rlist);
    EXPECT_EQ(a.rlist_inner, b.rlist_inner);
    EXPECT_EQ(a.rlist_from_estimate, b.rlist_from_estimate);
    EXPECT_EQ(a.threads, b.threads);
    EXPECT_EQ(a.simd, b.simd);
    EXPECT_EQ(a.thermostat, b.thermostat);
    EXPECT_EQ(a.dt, b.dt);
    EXPECT_EQ(a.temperature, b.temperature);
    EXPECT_EQ(a.drift_tolerance, b.drift_tolerance);
    EXPECT_EQ(a.pme, b.pme);
    EXPECT_EQ(a.ewald_beta, b.ewald_beta);
    EXPECT_EQ(a.ewald_rtol, b.ewald_rtol);
    EXPECT_EQ(a.pme_grid, b.pme_grid);
    EXPECT_EQ(a.pme_order, b.pme_order);
    EXPECT_EQ(a.pme_spacing, b.pme_spacing);
    EXPECT_EQ(a.pme_scale, b.pme_scale);
    EXPECT_EQ(a.pme_force_error, b.pme_force_error);
    EXPECT_EQ(a.vdw_modifier, b.vdw_modifier);
    EXPECT_EQ(a.rvdw_switch, b.rvdw_switch);
    EXPECT_EQ(a.coulomb_type, b.coulomb_type);
    EXPECT_EQ(a.epsilon_rf, b.epsilon_rf);
    EXPECT_EQ(a.constraints, b.constraints);
    EXPECT_EQ(a.ranks, b.ranks);
    EXPECT_EQ(a.dd, b.dd);
    EXPECT_EQ(a.npme, b.npme);
    EXPECT_EQ(a.dd_comm_distance, b.dd_comm_distance);
    EXPECT_EQ(a.dd_reason, b.dd_reason);
}

void expect_same(const RunReport& a, const RunReport& b) {
    EXPECT_EQ(a.build.engine_version, b.build.engine_version);
    EXPECT_EQ(a.build.compiler, b.build.compiler);
    EXPECT_EQ(a.build.flags, b.build.flags);
    EXPECT_EQ(a.build.simd_available, b.build.simd_available);
    EXPECT_EQ(a.build.git_commit, b.build.git_commit);
    EXPECT_EQ(a.build.build_id, b.build.build_id);
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.error, b.error);
    EXPECT_EQ(a.failed_step, b.failed_step);
    EXPECT_EQ(a.system_kind, b.system_kind);
    EXPECT_EQ(a.natoms, b.natoms);
    EXPECT_EQ(a.box, b.box);
    EXPECT_EQ(a.number_density, b.number_density);
    EXPECT_EQ(a.mass_density, b.mass_density);
    expect_same(a.config, b.config);
    EXPECT_EQ(a.steps, b.steps);
    EXPECT_EQ(a.warmup, b.warmup);
    EXPECT_EQ(a.ns_per_day, b.ns_per_day);
    EXPECT_EQ(a.ms_per_step, b.ms_per_step);
    EXPECT_EQ(a.timings, b.timings);
    EXPECT_EQ(a.pairlist.list_pairs, b.pairlist.list_pairs);
    EXPECT_EQ(a.pairlist.pairs_in_cutoff, b.pairlist.pairs_in_cutoff);
    EXPECT_EQ(a.pairlist.efficiency, b.pairlist.efficiency);
    EXPECT_EQ(a.pairlist.outer_list_pairs, b.pairlist.outer_list_pairs);
    EXPECT_EQ(a.pairlist.searches, b.pairlist.searches);
    EXPECT_EQ(a.pairlist.prunes, b.pairlist.prunes);
    expect_same(a.start, b.start);
    expect_same(a.end, b.end);
    EXPECT_EQ(a.drift_per_atom_per_ps, b.drift_per_atom_per_ps);
    EXPECT_EQ(a.drift_stderr_per_atom_per_ps, b.drift_stderr_per_atom_per_ps);
    EXPECT_EQ(a.energy_samples, b.energy_samples);
    EXPECT_EQ(a.max_constraint_deviation, b.max_constraint_deviation);
    EXPECT_EQ(a.parallel.force_time, b.parallel.force_time);
    EXPECT_EQ(a.parallel.atoms, b.parallel.atoms);
    EXPECT_EQ(a.parallel.halo_x, b.parallel.halo_x);
    EXPECT_EQ(a.parallel.halo_f, b.parallel.halo_f);
    EXPECT_EQ(a.parallel.pp_pme, b.parallel.pp_pme);
    EXPECT_EQ(a.parallel.mesh, b.parallel.mesh);
    EXPECT_EQ(a.parallel.reductions, b.parallel.reductions);
    EXPECT_EQ(a.parallel.wait, b.parallel.wait);
    EXPECT_EQ(a.parallel.load_imbalance, b.parallel.load_imbalance);
    EXPECT_EQ(a.threads.pin, b.threads.pin);
    EXPECT_EQ(a.threads.pinned, b.threads.pinned);
    EXPECT_EQ(a.threads.cpus, b.threads.cpus);
    EXPECT_EQ(a.threads.pin_note, b.threads.pin_note);
    EXPECT_EQ(a.threads.wait, b.threads.wait);
}

// The field a malformed report is refused for.
std::string refused_field(const std::string& text) {
    try {
        run_report_from_json(text);
    } catch (const RunReportError& e) {
        return e.field();
    }
    return "<accepted>";
}

// A valid report with one change applied to its JSON.
template <class Change>
std::string edited(Change change) {
    json j = json::parse(run_report_to_json(full_report()));
    change(j);
    return j.dump();
}

TEST(RunReportJson, EveryFieldRoundTrips) {
    const RunReport written = full_report();
    const std::string text = run_report_to_json(written);
    const RunReport read = run_report_from_json(text);
    expect_same(read, written);
    EXPECT_EQ(run_report_to_json(read), text);  // nothing the writer writes is lost or changed
}

TEST(RunReportJson, TheOtherEnumValuesAndOptionalFieldsRoundTrip) {
    RunReport r = full_report();
    r.status = "ok";
    r.error.clear();
    r.failed_step = -1;  // not written for an ok run; reads back as the default
    r.build.build_id.clear();
    r.config.rlist_from_estimate = true;
    r.config.thermostat = Thermostat::None;
    r.config.pme = false;
    for (ClusterShape shape : {ClusterShape::k4x4, ClusterShape::k8x4, ClusterShape::k1x1})
        for (SimdLevel simd : {SimdLevel::None, SimdLevel::Avx512, SimdLevel::Auto}) {
            r.config.cluster = shape;
            r.config.simd = simd;
            expect_same(run_report_from_json(run_report_to_json(r, -1)), r);
        }
}

TEST(RunReportJson, BlocksAreWhatTheReportHolds) {
    const RunReport r = full_report();
    const json report = json::parse(run_report_to_json(r));
    EXPECT_EQ(json::parse(effective_config_to_json(r.config)), report.at("config"));
    EXPECT_EQ(json::parse(pairlist_to_json(r.pairlist, r.config)), report.at("pairlist"));
}

// Each line of the text report is as long as its numbers need: the start and end
// energies of a run that blew up (1e300 kJ/mol) overran a fixed line buffer, which
// cut the start line's newline off and ran it into the end line.
TEST(RunReportText, HugeEnergiesKeepTheirLines) {
    RunReport r = full_report();
    r.start = energies(1e300);
    r.end = energies(-1e300);
    const std::string text = run_report_to_text(r);
    const auto start = text.find("\nstart ");
    const auto end = text.find("\nend   ");
    ASSERT_NE(start, std::string::npos) << text;
    ASSERT_NE(end, std::string::npos) << text;
    const std::string start_line = text.substr(start + 1, text.find('\n', start + 1) - start - 1);
    EXPECT_EQ(start_line.substr(start_line.size() - 2), " K") << start_line;
    EXPECT_GT(start_line.size(), 900u);  // numbers of 300 digits each
}

// What the first mdcore wrote: no PME or constraint fields, no drift error, no build id or commit.
TEST(RunReportJson, AReportOfTheFirstSchemaReads) {
    const std::string first = R"({"schema_version":1,"engine_version":"0.1.0","status":"ok",
        "build":{"compiler":"g++ 12","flags":"-O2","simd":"avx2","simd_available":["none","avx2"]},
        "system":{"kind":"lj","natoms":2000,"box":[3,3,3],"number_density":74.1,"density":1.4},
        "config":{"cluster":"4x4","nstlist":10,"nstprune":2,"rc":0.85,"rlist":0.9,"rlist_inner":0.87,
                  "rlist_source":"estimate","threads":2,"simd":"avx2","thermostat":"none","dt":0.005,
                  "temperature":120,"drift_tolerance":0.005},
        "steps":100,"warmup":10,"ns_per_day":12.5,"ms_per_step":0.5,"timings":{"total":0.045},
        "pairlist":{"cluster":"4x4","rlist":0.9,"list_pairs":1000,"outer_list_pairs":2000,
                    "pairs_in_cutoff":500,"efficiency":0.5,"searches":10,"prunes":40},
        "energies":{"start":{"lj":-10,"potential":-10,"kinetic":5,"total":-5,"conserved":-5,"temperature":120},
                    "end":{"lj":-11,"potential":-11,"kinetic":6,"total":-5,"conserved":-5,"temperature":121}},
        "drift_per_atom_per_ps":1e-6,"energy_samples":3})";
    const RunReport r = run_report_from_json(first);
    EXPECT_EQ(r.build.engine_version, "0.1.0");
    EXPECT_EQ(r.build.simd_available, (std::vector<std::string>{"none", "avx2"}));
    EXPECT_EQ(r.build.git_commit, "");
    EXPECT_EQ(r.config.cluster, ClusterShape::k4x4);
    EXPECT_EQ(r.config.nstprune, 2);
    EXPECT_FALSE(r.config.pme);
    EXPECT_EQ(r.config.pme_scale, 1.0);
    EXPECT_EQ(r.config.pme_grid, (std::array<int, 3>{0, 0, 0}));
    EXPECT_EQ(r.pairlist.prunes, 40);
    EXPECT_EQ(r.end.temperature, 121);
    EXPECT_EQ(r.end.coulomb_sr, 0.0);
    // Version 1 had no parallel block: one rank, no decomposition.
    EXPECT_EQ(r.config.ranks, 1);
    EXPECT_EQ(r.config.dd, (std::array<int, 3>{1, 1, 1}));
    EXPECT_TRUE(r.parallel.atoms.empty());
    EXPECT_EQ(r.parallel.load_imbalance, 1.0);
    EXPECT_EQ(r.drift_stderr_per_atom_per_ps, 0.0);
    EXPECT_EQ(r.max_constraint_deviation, 0.0);
    EXPECT_EQ(r.failed_step, -1);
    // No threads block before pinning existed: not pinned, no waits.
    EXPECT_FALSE(r.threads.pinned);
    EXPECT_TRUE(r.threads.wait.empty());
}

TEST(RunReportJson, MissingOptionalBlocksStayEmpty) {
    const RunReport r = run_report_from_json(R"({"ms_per_step":2,"ns_per_day":43.2,"drift_per_atom_per_ps":0,
        "config":{"cluster":"8x4","simd":"avx512","threads":1,"nstlist":20,"nstprune":10,"rc":1,"rlist":1.1,
                  "rlist_inner":1.05,"drift_tolerance":0.005}})");
    EXPECT_EQ(r.status, "ok");
    EXPECT_EQ(r.ms_per_step, 2);
    EXPECT_EQ(r.config.cluster, ClusterShape::k8x4);
    EXPECT_EQ(r.config.simd, SimdLevel::Avx512);
    EXPECT_TRUE(r.timings.empty());
    EXPECT_EQ(r.pairlist.searches, 0);
    EXPECT_EQ(r.natoms, 0);
    EXPECT_EQ(r.build.engine_version, "");
}

// As mdcore writes the config of a PME run (the models used to parse this block themselves).
TEST(RunReportJson, ReadsTheRecordedEffectiveConfig) {
    const std::string config =
        R"({"cluster":"8x4","constraints":500,"drift_tolerance":0.005,"dt":0.002,"ewald_beta":3.12,"ewald_rtol":1e-05,
            "nstlist":20,"nstprune":10,"pme":true,"pme_grid":[21,21,21],"pme_order":4,"pme_scale":1.0,"pme_spacing":0.12,
            "rc":1.0,"rlist":1.067,"rlist_inner":1.011,"rlist_source":"estimate","simd":"avx512","temperature":300.0,
            "thermostat":"none","threads":1})";
    auto report = [](const std::string& c) {
        return R"({"ms_per_step":1,"ns_per_day":1,"drift_per_atom_per_ps":0,"config":)" + c + "}";
    };
    const RunReport r = run_report_from_json(report(config));
    EXPECT_EQ(r.config.cluster, ClusterShape::k8x4);
    EXPECT_EQ(r.config.pme_grid[2], 21);
    EXPECT_EQ(r.config.threads, 1);
    EXPECT_EQ(r.config.constraints, 500);
    EXPECT_EQ(r.config.ewald_beta, 3.12);
    EXPECT_EQ(refused_field(report(R"({"cluster":"8x4"})")), "config.simd");
    EXPECT_EQ(refused_field(R"({"ms_per_step":1,"ns_per_day":1,"drift_per_atom_per_ps":0})"), "config");
}

TEST(RunReportJson, FieldsItDoesNotKnowAreIgnored) {
    const RunReport r = run_report_from_json(edited([](json& j) {
        j["config"]["pme_error_estimate"] = 2.5e-4;
        j["something_new"] = {{"nested", true}};
    }));
    expect_same(r, full_report());
}

TEST(RunReportJson, AMalformedReportNamesTheField) {
    EXPECT_EQ(refused_field("{not json"), "");
    EXPECT_EQ(refused_field("[1,2]"), "");
    EXPECT_EQ(refused_field(edited([](json& j) { j.erase("ms_per_step"); })), "ms_per_step");
    EXPECT_EQ(refused_field(edited([](json& j) { j["ns_per_day"] = nullptr; })), "ns_per_day");
    EXPECT_EQ(refused_field(edited([](json& j) { j["drift_per_atom_per_ps"] = "small"; })), "drift_per_atom_per_ps");
    EXPECT_EQ(refused_field(edited([](json& j) { j["config"]["nstlist"] = "ten"; })), "config.nstlist");
    EXPECT_EQ(refused_field(edited([](json& j) { j["config"]["nstlist"] = 10.5; })), "config.nstlist");
    EXPECT_EQ(refused_field(edited([](json& j) { j["config"]["cluster"] = "5x5"; })), "config.cluster");
    EXPECT_EQ(refused_field(edited([](json& j) { j["config"]["thermostat"] = "nose-hoover"; })), "config.thermostat");
    EXPECT_EQ(refused_field(edited([](json& j) { j["config"]["rlist_source"] = "guess"; })), "config.rlist_source");
    EXPECT_EQ(refused_field(edited([](json& j) { j["config"]["pme"] = 1; })), "config.pme");
    EXPECT_EQ(refused_field(edited([](json& j) { j["config"]["pme_grid"] = {24, 24}; })), "config.pme_grid");
    EXPECT_EQ(refused_field(edited([](json& j) { j["config"] = 3; })), "config");
    EXPECT_EQ(refused_field(edited([](json& j) { j["energies"]["end"]["lj"] = "x"; })), "energies.end.lj");
    EXPECT_EQ(refused_field(edited([](json& j) { j["timings"]["search"] = "fast"; })), "timings.search");
    EXPECT_EQ(refused_field(edited([](json& j) { j["pairlist"]["searches"] = 1.5; })), "pairlist.searches");
    EXPECT_EQ(refused_field(edited([](json& j) { j["system"]["box"] = {1, 2}; })), "system.box");
    EXPECT_EQ(refused_field(edited([](json& j) { j["build"]["git_commit"] = 42; })), "build.git_commit");
    EXPECT_EQ(refused_field(edited([](json& j) { j["schema_version"] = kRunReportSchemaVersion + 1; })), "schema_version");
    EXPECT_EQ(refused_field(edited([](json& j) { j["parallel"]["atoms"] = "many"; })), "parallel.atoms");
    try {
        run_report_from_json(edited([](json& j) { j["config"]["nstlist"] = "ten"; }));
        FAIL() << "accepted";
    } catch (const RunReportError& e) {
        EXPECT_NE(std::string(e.what()).find("config.nstlist"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("\"ten\""), std::string::npos) << e.what();
    }
}

// A real run's report carries the build it ran with, commit included, and reads back whole.
TEST(RunReportJson, ARunsReportCarriesItsBuildAndReadsBack) {
    System sys = make_named_system("lj", 500, 1);
    RunConfig config;
    config.threads = 1;
    RunControl control;
    control.steps = 20;
    const RunReport report = run(sys, config, control);
    EXPECT_EQ(report.build.git_commit, build_git_commit());
    EXPECT_FALSE(report.build.git_commit.empty());
    EXPECT_EQ(report.build.engine_version, engine_version());
    EXPECT_EQ(report.build.build_id, executable_build_id());
    const RunReport read = run_report_from_json(run_report_to_json(report));
    expect_same(read, report);
    EXPECT_EQ(json::parse(run_report_to_json(report)).at("build").at("git_commit"), build_git_commit());
}

}  // namespace
}  // namespace mdcore
