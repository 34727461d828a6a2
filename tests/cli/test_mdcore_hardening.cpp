// The mdcore executable against inputs a careless or hostile user once broke it with: each must end with a
// message and exit 2 (bad input, too little memory) or 1 (a run that turns
// non-finite, with a failed report), never a signal or a silent "ok".
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "../common/file_text.h"
#include "../common/run_command.h"
#include "../common/temp_dir_test.h"

namespace {

namespace fs = std::filesystem;
using Result = mdtest::CommandResult;

const std::string kWaterDir = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm/";

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
    const auto pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    if (pos != std::string::npos) text.replace(pos, from.size(), to);
    return text;
}

// One LJ type with argon parameters; `count` one-atom molecules.
std::string argon_top(int count) {
    return "[ defaults ]\n1 2 no 1.0 1.0\n\n[ atomtypes ]\nAR 18 39.948 0.0 A 0.34 0.996\n\n"
           "[ moleculetype ]\nAR 0\n\n[ atoms ]\n1 AR 1 AR AR 1 0.0\n\n[ system ]\nargon\n\n[ molecules ]\nAR " +
           std::to_string(count) + "\n";
}

std::string gro_atom(int n, double x, double y, double z, double vx) {
    char line[96];
    std::snprintf(line, sizeof line, "%5d%-5s%5s%5d%8.3f%8.3f%8.3f%8.4f%8.4f%8.4f\n", n, "AR", "AR", n, x, y, z, vx,
                  0.0, 0.0);
    return line;
}

class MdcoreHardening : public mdtest::TempDirTest {
protected:
    // mdcore with the given environment prefix (e.g. "OMP_NUM_THREADS=8") and arguments.
    static Result mdcore(const std::string& args, const std::string& env = "") {
        return mdtest::run_command(env + (env.empty() ? "" : " ") + MDCORE_BINARY + " " + args);
    }
    Result run_files(const std::string& gro, const std::string& top, const std::string& extra = "") const {
        return mdcore("run --gro " + write("in.gro", gro) + " --top " + write("in.top", top) + " " + extra);
    }
};

void expect_exit(const Result& r, int code, const std::vector<std::string>& fragments) {
    EXPECT_EQ(r.exit_code, code) << r.output;
    for (const std::string& f : fragments) EXPECT_NE(r.output.find(f), std::string::npos) << f << "\n" << r.output;
}

TEST_F(MdcoreHardening, OmpNumThreadsAboveTheMachineIsClampedWithOneLine) {
    const std::string json = path("r.json");
    // SPC/E water with PME: the kernels, the grid search and the FFTs all get their threads.
    const Result r = mdcore("run --gro " + kWaterDir + "conf.gro --top " + kWaterDir + "topol.top --steps 2 --json " +
                                json,
                            "OMP_NUM_THREADS=100000");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto first = r.output.find("OMP_NUM_THREADS=100000");
    ASSERT_NE(first, std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("OMP_NUM_THREADS=100000", first + 1), std::string::npos) << "said more than once";
    const auto report = nlohmann::json::parse(mdtest::file_text(json));
    EXPECT_EQ(report["config"]["threads"].get<unsigned>(), std::thread::hardware_concurrency());
}

TEST_F(MdcoreHardening, LjBoxOfAThousandNanometresIsRefusedForMemory) {
    expect_exit(mdcore("run --system lj --box 1e3 --steps 1"), 2, {"1000 nm box", "needs about", "of memory"});
}

TEST_F(MdcoreHardening, HundredMillionAtomsAreRefusedUnderAMemoryLimit) {
    // The limit makes the check independent of the test machine's memory.
    const Result r = mdtest::run_command("ulimit -v 2097152; " + std::string(MDCORE_BINARY) +
                                         " run --system lj --natoms 100000000 --steps 1");
    expect_exit(r, 2, {"100000000 atoms needs about", "ulimit -v", "2.0 GiB"});
}

TEST_F(MdcoreHardening, GroBoxOfTenMicrometresIsRefusedForItsPmeGrid) {
    const std::string gro = replace_once(mdtest::file_text(kWaterDir + "conf.gro"), "   3.00000   3.00000   3.00000",
                                         "   10000.0   10000.0   10000.0");
    expect_exit(run_files(gro, mdtest::file_text(kWaterDir + "topol.top"), "--steps 1"), 2, {"needs about", "PME"});
}

TEST_F(MdcoreHardening, UnphysicalInputsAreRefusedNamingFileAndLimit) {
    const std::string gro = mdtest::file_text(kWaterDir + "conf.gro"), top = mdtest::file_text(kWaterDir + "topol.top");
    const std::string far = replace_once(gro, "   0.246   0.664   0.115", "1.00e3000.6640000.115000");
    expect_exit(run_files(far, top, "--steps 20"), 2, {"in.gro:3:", "coordinate x = 1e+300 nm"});
    const std::string eps = replace_once(top, "3.16557e-01  6.50194e-01", "3.16557e-01  1e300");
    expect_exit(run_files(gro, eps, "--steps 20"), 2, {"in.top:7:", "LJ epsilon 1e+300"});
    const std::string charge = replace_once(top, "-0.8476  15.99940", "-1e300  15.99940");
    expect_exit(run_files(gro, charge, "--steps 20"), 2, {"in.top:16:", "charge -1e+300 e"});
    const std::string mass = replace_once(top, "-0.8476  15.99940", "-0.8476  1e-300");
    expect_exit(run_files(gro, mass, "--steps 20"), 2, {"in.top:16:", "mass 1e-300 amu"});
}

TEST_F(MdcoreHardening, AStronglyChargedSystemRunsWithAWarning) {
    const std::string gro = mdtest::file_text(kWaterDir + "conf.gro"), top = mdtest::file_text(kWaterDir + "topol.top");
    // 884 waters with hydrogens of 0.7066055 e: a net charge of +500 e.
    const std::string charged = replace_once(replace_once(top, "HW1  1     0.4238", "HW1  1     0.7066055"),
                                             "HW2  1     0.4238", "HW2  1     0.7066055");
    const Result r = run_files(gro, charged, "--steps 2");
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output;  // a message either way, never a signal
    EXPECT_NE(r.output.find("warning: " + path("in.top") + ": the system's net charge is +500.000 e"), std::string::npos)
        << r.output;
    const Result neutral = run_files(gro, top, "--steps 2");
    EXPECT_EQ(neutral.exit_code, 0) << neutral.output;
    EXPECT_EQ(neutral.output.find("net charge"), std::string::npos) << neutral.output;
}

TEST_F(MdcoreHardening, NonFiniteForceFailsTheRunWithTheStep) {
    // Two argon atoms 0.3 nm apart, head-on at 75 nm/ps each: they coincide after one 2 fs step.
    const std::string gro = "head-on\n    2\n" + gro_atom(1, 1.0, 1.5, 1.5, 75.0) + gro_atom(2, 1.3, 1.5, 1.5, -75.0) +
                            "   3.00000   3.00000   3.00000\n";
    const std::string json = path("r.json");
    // Step 1 is no energy step (energies at 0, 5, 9): the O(N) force check catches it.
    const Result r = run_files(gro, argon_top(2), "--steps 10 --nstcalcenergy 5 --threads 1 --json " + json);
    expect_exit(r, 1, {"step 1: non-finite force"});
    const auto report = nlohmann::json::parse(mdtest::file_text(json));
    EXPECT_EQ(report.value("status", ""), "failed");
    EXPECT_EQ(report.value("failed_step", -1), 1);
    EXPECT_NE(report.value("error", "").find("non-finite"), std::string::npos);
}

TEST_F(MdcoreHardening, OverlappingAtomsFailAtStepZero) {
    const std::string gro = "overlap\n    2\n" + gro_atom(1, 1.0, 1.5, 1.5, 0.0) + gro_atom(2, 1.0, 1.5, 1.5, 0.0) +
                            "   3.00000   3.00000   3.00000\n";
    const Result r = run_files(gro, argon_top(2), "--steps 5 --threads 1 --json -");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    const auto report = nlohmann::json::parse(r.output.substr(0, r.output.find("mdcore: error")));
    EXPECT_EQ(report.value("status", ""), "failed");
    EXPECT_EQ(report.value("failed_step", -1), 0);
}

// Every output is checked to the end: a full device or a file-size limit is an
// error (exit 1) naming the output, and no empty or cut-off file stays behind.
const std::string kSmallRun = "run --system lj --natoms 500 --steps 2 --threads 1";

TEST_F(MdcoreHardening, JsonReportToAFullDeviceFails) {
    expect_exit(mdcore(kSmallRun + " --json /dev/full"), 1, {"--json: /dev/full: cannot write: No space left"});
}

TEST_F(MdcoreHardening, ReportOnAFullStandardOutputFails) {
    for (const std::string json : {" --json -", ""}) {
        // The subshell sends only stdout to /dev/full; stderr comes back.
        const Result r =
            mdtest::run_command("(" + std::string(MDCORE_BINARY) + " " + kSmallRun + json + " >/dev/full)");
        expect_exit(r, 1, {"standard output: cannot write: No space left"});
    }
}

TEST_F(MdcoreHardening, OutputFilesToAFullDeviceFail) {
    for (const std::string flag : {"--out-gro", "--dump-forces"})
        expect_exit(mdcore(kSmallRun + " " + flag + " /dev/full"), 1, {"/dev/full: cannot write: No space left"});
}

TEST_F(MdcoreHardening, JsonReportCutShortLeavesNoFile) {
    // A 1 KiB file-size limit stands in for a full disk: the report's write fails part way.
    const std::string json = path("r.json");
    const Result r = mdtest::run_command("trap '' XFSZ; ulimit -f 2; " + std::string(MDCORE_BINARY) + " " + kSmallRun +
                                         " --json " + json);
    expect_exit(r, 1, {"--json: " + json + ": cannot write: File too large", "the partial file was removed"});
    EXPECT_FALSE(fs::exists(json));
}

TEST_F(MdcoreHardening, HelpAndVersionOnAFullStandardOutputFail) {
    for (const std::string args : {"--version", "--version --json", "--help", "run --help"}) {
        const Result r = mdtest::run_command("(" + std::string(MDCORE_BINARY) + " " + args + " >/dev/full)");
        expect_exit(r, 1, {"standard output: cannot write"});
    }
}

// Input files are read with bounds: a device is refused at once (it was read until
// 2 GB had gone), an over-long or binary line is quoted short and printable.
TEST_F(MdcoreHardening, DeviceAsInputFileIsRefusedAtOnce) {
    const std::string top = write("in.top", argon_top(1));
    expect_exit(mdcore("run --gro /dev/zero --top " + top + " --steps 1"), 2,
                {"/dev/zero: cannot read the .gro file: it is not a regular file"});
    expect_exit(mdcore("run --gro " + write("in.gro", "t\n    1\n" + gro_atom(1, 1, 1, 1, 0) + "   3 3 3\n") +
                       " --top " + top + " --mdp /dev/zero --steps 1"),
                2, {"/dev/zero: cannot read the .mdp file: it is not a regular file"});
}

TEST_F(MdcoreHardening, BinaryGroIsNotEchoed) {
    std::string binary = "title\n";
    for (int i = 0; i < 3000; ++i) binary += static_cast<char>(i % 256 == 10 ? 0x1b : i % 256);
    const Result r = run_files(binary + "\n", argon_top(1), "--steps 1");
    expect_exit(r, 2, {"in.gro:2:"});
    EXPECT_LT(r.output.size(), 400u) << r.output;
    for (const char c : r.output)
        EXPECT_TRUE(c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f))
            << r.output;
}

TEST_F(MdcoreHardening, OutOfRangeLayoutsSaySo) {
    // -1 was taken as auto; a size beyond a long said "not positive".
    expect_exit(mdcore(kSmallRun + " --npme -1"), 2, {"--npme: -1 is below the minimum of 0"});
    expect_exit(mdcore(kSmallRun + " --dd 99999999999x1x1"), 2,
                {"--dd: '99999999999x1x1': 99999999999 is out of range (each size is 1 to 1000000)"});
}

}  // namespace
