// The md.log reader on logs recorded from GROMACS 2022.5 (Debian; thread-MPI and
// Open MPI builds; one rank, DD, a PME rank, a protein; runs GROMACS refused), and
// the report a finished log becomes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "mdtune/gromacs/gmx_build.h"
#include "mdtune/gromacs/log_report.h"
#include "mdtune/gromacs/md_log.h"

namespace mdtune::gromacs {
namespace {

std::string recorded(const std::string& name) {
    std::ifstream in(std::string(MDT_TEST_DATA_DIR) + "/gromacs/logs/" + name);
    EXPECT_TRUE(in) << name;
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

const CycleRow* row(const MdLog& log, const std::string& task) {
    for (const CycleRow& r : log.cycles)
        if (r.task == task) return &r;
    return nullptr;
}

TEST(MdLog, OneRankTwoThreads) {
    const MdLog log = parse_md_log(recorded("2022.5-tmpi-1rank-2threads.log"));
    EXPECT_EQ(log.version, "2022.5-Debian_2022.5_2");
    EXPECT_EQ(log.natoms, 2652);
    EXPECT_EQ(log.parameter("nstlist"), "10");
    EXPECT_EQ(log.parameter("fourier-nx"), "25");
    ASSERT_EQ(log.changes.size(), 1u);
    EXPECT_EQ(log.changes[0], "Changing nstlist from 10 to 40, rlist from 1 to 1.098");
    EXPECT_EQ(log.nstlist, 40);
    EXPECT_DOUBLE_EQ(log.rlist, 1.098);
    EXPECT_DOUBLE_EQ(log.rlist_inner, 1.001);  // the dual list's inner radius, not the 1x1 equivalent's
    EXPECT_EQ(log.prune_interval, 11);
    EXPECT_EQ(log.kernel, "SIMD 4x4");
    EXPECT_EQ(log.mpi_ranks, 1);
    EXPECT_EQ(log.omp_threads, 2);
    EXPECT_DOUBLE_EQ(log.ns_per_day, 32.760);
    EXPECT_DOUBLE_EQ(log.wall_s, 1.588);
    EXPECT_DOUBLE_EQ(log.core_s, 3.175);
    EXPECT_EQ(log.timed_steps(), 301);  // steps 100..400 after -resetstep 100
    ASSERT_TRUE(log.drift.has_value());
    EXPECT_DOUBLE_EQ(*log.drift, 4.47e-02);
    EXPECT_TRUE(log.finished);
    EXPECT_TRUE(log.fatal_error.empty());
    const CycleRow* force = row(log, "Force");
    ASSERT_NE(force, nullptr);
    EXPECT_EQ(force->ranks, 1);
    EXPECT_EQ(force->threads, 2);
    EXPECT_EQ(force->calls, 301);
    EXPECT_DOUBLE_EQ(force->wall_s, 1.196);
    EXPECT_DOUBLE_EQ(force->percent, 75.4);
    const CycleRow* rest = row(log, "Rest");
    ASSERT_NE(rest, nullptr);
    EXPECT_EQ(rest->calls, 0);
    EXPECT_DOUBLE_EQ(rest->wall_s, 0.004);
    const CycleRow* fft = row(log, "PME 3D-FFT");
    ASSERT_NE(fft, nullptr);
    EXPECT_TRUE(fft->pme_breakdown);
    EXPECT_EQ(fft->calls, 602);
    EXPECT_NE(row(log, "NB X/F buffer ops."), nullptr);
    EXPECT_NE(row(log, "Total"), nullptr);
    // The energy prints: step 0 and the last step (nstlog 0 prints only those).
    ASSERT_EQ(log.frames.size(), 2u);
    EXPECT_EQ(log.frames[1].step, 400);
    EXPECT_DOUBLE_EQ(log.frames[1].time_ps, 0.8);
    EXPECT_DOUBLE_EQ(log.frames[0].terms.at("Coul. recip."), 1.90675e+02);
    EXPECT_DOUBLE_EQ(log.frames[0].terms.at("Pressure (bar)"), -6.43383e+03);
}

TEST(MdLog, DomainDecompositionAndPmeRank) {
    const MdLog dd = parse_md_log(recorded("2022.5-tmpi-2ranks-dd.log"));
    EXPECT_EQ(dd.mpi_ranks, 2);
    EXPECT_EQ(dd.omp_threads, 1);
    EXPECT_EQ(dd.dd, (std::array<int, 3>{2, 1, 1}));
    EXPECT_EQ(dd.pme_ranks, 0);

    const MdLog pme = parse_md_log(recorded("2022.5-tmpi-pme-rank.log"));
    EXPECT_EQ(pme.mpi_ranks, 2);
    EXPECT_EQ(pme.dd, (std::array<int, 3>{1, 1, 1}));
    EXPECT_EQ(pme.pme_ranks, 1);
    // The PME rank's rows, the "*" marker dropped.
    EXPECT_NE(row(pme, "PME mesh"), nullptr);
    EXPECT_NE(row(pme, "PME wait for PP"), nullptr);
    EXPECT_NE(row(pme, "Send X to PME"), nullptr);
    EXPECT_DOUBLE_EQ(pme.ns_per_day, 22.153);
}

TEST(MdLog, OpenMpiBuild) {
    const MdLog log = parse_md_log(recorded("2022.5-mpi-2ranks.log"));
    EXPECT_EQ(log.mpi_ranks, 2);  // "Using 2 MPI processes", not the OpenMP line after it
    EXPECT_EQ(log.omp_threads, 1);
    EXPECT_EQ(log.dd, (std::array<int, 3>{2, 1, 1}));
    EXPECT_EQ(log.timed_steps(), 201);
    const GmxBuild build = parse_gmx_version(recorded("2022.5-gmx_mpi-version.txt"));
    EXPECT_TRUE(build.real_mpi());
    EXPECT_EQ(build.precision, "mixed");
}

TEST(MdLog, ThreadMpiBuildIdentity) {
    const GmxBuild build = parse_gmx_version(recorded("2022.5-gmx-version.txt"));
    EXPECT_TRUE(build.is_gromacs());
    EXPECT_EQ(build.version, "2022.5-Debian_2022.5_2");
    EXPECT_EQ(build.mpi_library, "thread_mpi");
    EXPECT_FALSE(build.real_mpi());
    EXPECT_FALSE(build.has_gpu());
    EXPECT_EQ(build.simd, "SSE4.1");
    EXPECT_FALSE(parse_gmx_version("mdcore 1.0\n").is_gromacs());
}

TEST(MdLog, ProteinRun) {
    const MdLog log = parse_md_log(recorded("2022.5-dhfr-2threads.log"));
    EXPECT_EQ(log.natoms, 23558);
    EXPECT_EQ(log.nstlist, 50);
    EXPECT_EQ(log.parameter("constraint-algorithm"), "Lincs");
    EXPECT_DOUBLE_EQ(log.ns_per_day, 3.671);
}

struct Refusal {
    const char* log;
    const char* message_start;
    const char* reason;
};

TEST(MdLog, RefusedRunsAreClassified) {
    const Refusal cases[] = {
        {"2022.5-fatal-dd-size.log", "The size of the domain decomposition grid (3) does not match",
         "the dd grid does not match the particle-particle ranks"},
        {"2022.5-fatal-prime-ranks.log", "The number of ranks selected for particle-particle work (13)",
         "the particle-particle rank count has a large prime factor"},
        {"2022.5-fatal-pme-ranks-mpi.log", "Cannot have 2 separate PME ranks with only 1 PP ranks",
         "the PME rank count does not fit the ranks"},
        {"2022.5-fatal-omp-num-threads.log", "Environment variable OMP_NUM_THREADS",
         "OMP_NUM_THREADS differs from the threads asked for"},
    };
    for (const Refusal& c : cases) {
        const MdLog log = parse_md_log(recorded(c.log));
        EXPECT_FALSE(log.finished) << c.log;
        EXPECT_EQ(log.fatal_error.rfind(c.message_start, 0), 0u) << c.log << ": " << log.fatal_error;
        EXPECT_NE(log.fatal_source.find("(line "), std::string::npos) << c.log;
        EXPECT_EQ(infeasibility_reason(log.fatal_error), c.reason) << c.log;
        EXPECT_THROW(report_from_md_log(log, 400, 100), LogReportError) << c.log;
    }
}

TEST(MdLog, GromppErrorIsNotALayoutRefusal) {
    const FatalError fatal = find_fatal_error(recorded("2022.5-grompp-net-charge.stderr"));
    EXPECT_EQ(fatal.message.rfind("Too many warnings (1).", 0), 0u) << fatal.message;
    EXPECT_NE(fatal.source.find("grompp.cpp"), std::string::npos);
    EXPECT_EQ(infeasibility_reason(fatal.message), "");
}

TEST(MdLog, GarbageAndTruncationAreHarmless) {
    EXPECT_EQ(parse_md_log("").natoms, 0);
    const std::string full = recorded("2022.5-tmpi-1rank-2threads.log");
    for (std::size_t cut : {std::size_t{10}, full.size() / 3, full.size() / 2, full.size() - 200}) {
        const MdLog log = parse_md_log(full.substr(0, cut));
        EXPECT_FALSE(log.finished);
        EXPECT_EQ(log.ns_per_day, 0);
    }
    std::string binary(5000, '\0');
    for (std::size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<char>(i * 7919);
    EXPECT_NO_THROW(parse_md_log(binary));
}

TEST(LogReport, SpeedTasksSettingsAndDrift) {
    const MdLog log = parse_md_log(recorded("2022.5-equilibrated-1rank.log"));
    const mdcore::RunReport rep = report_from_md_log(log, 400, 100);
    EXPECT_EQ(rep.natoms, 2652);
    EXPECT_DOUBLE_EQ(rep.ns_per_day, 44.722);
    EXPECT_NEAR(rep.ms_per_step, 1e3 * 1.163 / 301, 1e-12);
    // Seconds over the 300 measured steps the tuner divides by.
    EXPECT_NEAR(rep.timings.at("nonbonded"), 0.933 * 300 / 301, 1e-12);
    EXPECT_NEAR(rep.timings.at("pme_fft"), 0.047 * 300 / 301, 1e-12);
    EXPECT_NEAR(rep.timings.at("search"), 0.038 * 300 / 301, 1e-12);
    EXPECT_NEAR(rep.timings.at("other"), 0.007 * 300 / 301, 1e-12);
    EXPECT_TRUE(rep.timings.count("domain_decomp"));
    EXPECT_TRUE(rep.timings.count("nb_x_f_buffer_ops"));
    EXPECT_FALSE(rep.timings.count("pme_mesh"));  // its breakdown rows stand for it
    EXPECT_EQ(rep.config.nstlist, 40);
    EXPECT_EQ(rep.config.nstprune, 11);
    EXPECT_DOUBLE_EQ(rep.config.rlist, 1.098);
    EXPECT_DOUBLE_EQ(rep.config.rc, 1.0);
    EXPECT_EQ(rep.config.pme_grid, (std::array<int, 3>{25, 25, 25}));
    EXPECT_EQ(rep.config.pme_order, 4);
    EXPECT_DOUBLE_EQ(rep.config.dt, 0.002);
    EXPECT_DOUBLE_EQ(rep.config.drift_tolerance, 0.005);
    EXPECT_EQ(rep.config.threads, 1);
    EXPECT_EQ(rep.config.ranks, 1);
    // GROMACS' end-to-end figure (-1.96e-2) is the start-up's relaxation; the fit
    // over the prints after the warm-up (steps 100-400) sees a flat conserved energy.
    ASSERT_EQ(log.frames.size(), 5u);
    EXPECT_LT(std::abs(rep.drift_per_atom_per_ps), 5e-3);
    EXPECT_GT(rep.drift_stderr_per_atom_per_ps, 0);
    EXPECT_DOUBLE_EQ(rep.start.conserved, -3.42454e+04);
    EXPECT_DOUBLE_EQ(rep.end.temperature, 2.95996e+02);
}

TEST(LogReport, TaskNames) {
    EXPECT_EQ(task_name("Neighbor search"), "search");
    EXPECT_EQ(task_name("PME solve Elec"), "pme_solve");
    EXPECT_EQ(task_name("Wait + Recv. PME F"), "wait_recv_pme_f");
    EXPECT_EQ(task_name("Send X to PME"), "send_x_to_pme");
    EXPECT_EQ(task_name("+++"), "unnamed");
}

}  // namespace
}  // namespace mdtune::gromacs
