// Hardware fingerprint: detection must be deterministic and plausible on any
// machine, and the id must depend on the hardware only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "hardware_id.h"
#include "mdtune/core/hardware.h"

namespace mdtune {
namespace {

bool has(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(Hardware, DetectTwiceIsIdentical) {
    const HardwareInfo a = detect_hardware();
    const HardwareInfo b = detect_hardware();
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.to_json(), b.to_json());
}

TEST(Hardware, FieldsArePlausible) {
    const HardwareInfo hw = detect_hardware();
    EXPECT_GE(hw.physical_cores, 1);
    EXPECT_GE(hw.hardware_threads, hw.physical_cores);
    EXPECT_GE(hw.sockets, 1);
    EXPECT_LE(hw.sockets, hw.physical_cores);
    EXPECT_GE(hw.numa_nodes, 1);
    EXPECT_GT(hw.memory_bytes, 0);
    EXPECT_FALSE(hw.cpu_model.empty());
    EXPECT_FALSE(hw.compiler.empty());
    EXPECT_FALSE(hw.os_kernel.empty());
    ASSERT_FALSE(hw.caches.empty());
    for (const CacheInfo& c : hw.caches) {
        EXPECT_GE(c.level, 1);
        EXPECT_GT(c.size_bytes, 0);
        EXPECT_GE(c.shared_by_cores, 1);
        EXPECT_LE(c.shared_by_cores, hw.physical_cores);
        EXPECT_TRUE(c.type == "Data" || c.type == "Instruction" || c.type == "Unified") << c.type;
    }
    for (const GpuInfo& g : hw.gpus) {  // empty on a machine without CUDA or a GPU
        EXPECT_FALSE(g.model.empty());
        EXPECT_GT(g.memory_bytes, 0);
        EXPECT_TRUE(std::regex_match(g.compute_capability, std::regex(R"(\d+\.\d+)")));
    }
#if defined(__x86_64__)
    EXPECT_TRUE(has(hw.simd, "sse2"));  // part of the x86-64 baseline
    EXPECT_FALSE(hw.cpu_vendor.empty());
#endif
    // Implied features come along: AVX-512 is never reported without AVX2 etc.
    if (has(hw.simd, "avx512f")) {
        EXPECT_TRUE(has(hw.simd, "avx2"));
    }
    if (has(hw.simd, "avx2")) {
        EXPECT_TRUE(has(hw.simd, "avx"));
    }
}

TEST(Hardware, IdFormat) {
    const HardwareInfo hw = detect_hardware();
    EXPECT_TRUE(std::regex_match(hw.id, std::regex("hw-[0-9a-f]{16}"))) << hw.id;
    EXPECT_EQ(hw.id, hardware_id(hw));
}

TEST(Hardware, IdIgnoresSoftware) {
    const HardwareInfo hw = detect_hardware();
    HardwareInfo other = hw;
    other.os_kernel = "Linux 9.99.0-new";
    other.compiler = "GCC 99.1.0";
    other.mpi_library = "Some MPI 7.0";
    other.id = "hw-stale";
    EXPECT_EQ(hardware_id(other), hw.id);
}

TEST(Hardware, IdIgnoresOrderAndSmallMemoryDrift) {
    const HardwareInfo hw = detect_hardware();
    HardwareInfo other = hw;
    std::reverse(other.simd.begin(), other.simd.end());
    std::reverse(other.caches.begin(), other.caches.end());
    other.memory_bytes = hw.memory_bytes + 4L * 1024 * 1024;  // MemTotal moves by MiBs
    // Only at the very edge of a half-GiB boundary could 4 MiB round differently.
    const long half = 512L * 1024 * 1024, rem = hw.memory_bytes % (2 * half);
    if (rem < half - 8L * 1024 * 1024 || rem >= half) {
        EXPECT_EQ(hardware_id(other), hw.id);
    }
}

TEST(Hardware, IdChangesWithHardware) {
    const HardwareInfo hw = detect_hardware();
    auto differs = [&hw](auto mutate) {
        HardwareInfo h = hw;
        mutate(h);
        return hardware_id(h) != hw.id;
    };
    EXPECT_TRUE(differs([](HardwareInfo& h) { h.cpu_model += " v2"; }));
    EXPECT_TRUE(differs([](HardwareInfo& h) { h.physical_cores += 1; }));
    EXPECT_TRUE(differs([](HardwareInfo& h) { h.hardware_threads *= 2; }));
    EXPECT_TRUE(differs([](HardwareInfo& h) { h.sockets += 1; }));
    EXPECT_TRUE(differs([](HardwareInfo& h) { h.numa_nodes += 1; }));
    EXPECT_TRUE(differs([](HardwareInfo& h) { h.simd.push_back("avx512_fp16x"); }));
    EXPECT_TRUE(differs([](HardwareInfo& h) { h.memory_bytes += 8L << 30; }));
    EXPECT_TRUE(differs([](HardwareInfo& h) { h.caches.push_back({4, "Unified", 128L << 20, 1}); }));
    EXPECT_TRUE(differs([](HardwareInfo& h) { h.gpus.push_back({"NVIDIA H100", 80L << 30, "9.0"}); }));
}

TEST(Hardware, ToJsonRoundTrips) {
    const HardwareInfo hw = detect_hardware();
    const std::string text = hw.to_json();
    EXPECT_NE(text.find("\n  \"id\": "), std::string::npos) << "pretty-printed, indent 2";
    const nlohmann::json j = nlohmann::json::parse(text);
    EXPECT_EQ(j.at("id"), hw.id);
    EXPECT_EQ(j.at("cpu_vendor"), hw.cpu_vendor);
    EXPECT_EQ(j.at("cpu_model"), hw.cpu_model);
    EXPECT_EQ(j.at("physical_cores"), hw.physical_cores);
    EXPECT_EQ(j.at("hardware_threads"), hw.hardware_threads);
    EXPECT_EQ(j.at("sockets"), hw.sockets);
    EXPECT_EQ(j.at("numa_nodes"), hw.numa_nodes);
    EXPECT_EQ(j.at("simd").get<std::vector<std::string>>(), hw.simd);
    EXPECT_EQ(j.at("memory_bytes"), hw.memory_bytes);
    EXPECT_EQ(j.at("mpi_library"), hw.mpi_library);
    EXPECT_EQ(j.at("compiler"), hw.compiler);
    EXPECT_EQ(j.at("os_kernel"), hw.os_kernel);
    ASSERT_TRUE(j.at("caches").is_array());
    ASSERT_EQ(j.at("caches").size(), hw.caches.size());
    for (std::size_t i = 0; i < hw.caches.size(); ++i) {
        const auto& c = j.at("caches")[i];
        ASSERT_TRUE(c.is_object());
        EXPECT_EQ(c.at("level"), hw.caches[i].level);
        EXPECT_EQ(c.at("type"), hw.caches[i].type);
        EXPECT_EQ(c.at("size_bytes"), hw.caches[i].size_bytes);
        EXPECT_EQ(c.at("shared_by_cores"), hw.caches[i].shared_by_cores);
    }
    ASSERT_TRUE(j.at("gpus").is_array());
    EXPECT_EQ(j.at("gpus").size(), hw.gpus.size());
}

TEST(Hardware, GpuJsonFields) {
    HardwareInfo hw;
    hw.gpus.push_back({"NVIDIA H200", 150L << 30, "9.0", 132, 1980, 4800.0});
    const nlohmann::json j = nlohmann::json::parse(hw.to_json());
    ASSERT_EQ(j.at("gpus").size(), 1u);
    EXPECT_EQ(j.at("gpus")[0].at("model"), "NVIDIA H200");
    EXPECT_EQ(j.at("gpus")[0].at("memory_bytes"), 150L << 30);
    EXPECT_EQ(j.at("gpus")[0].at("compute_capability"), "9.0");
    EXPECT_EQ(j.at("gpus")[0].at("multiprocessors"), 132);
    EXPECT_EQ(j.at("gpus")[0].at("clock_mhz"), 1980);
    EXPECT_DOUBLE_EQ(j.at("gpus")[0].at("memory_bandwidth_gbs").get<double>(), 4800.0);
}

// With no visible device, detection reports zero GPUs instead of failing. Run
// in a fresh process: the CUDA runtime reads CUDA_VISIBLE_DEVICES only once.
TEST(HardwareDeathTest, NoVisibleGpuMeansEmptyList) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            setenv("CUDA_VISIBLE_DEVICES", "", 1);
            std::exit(detect_hardware().gpus.empty() ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST(CpuInfo, ParsesX86) {
    const CpuInfoText c = parse_cpuinfo(
        "processor\t: 0\n"
        "vendor_id\t: GenuineIntel\n"
        "model name\t: Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz  \n"
        "flags\t\t: fpu sse sse2 pni ssse3 fma sse4_1 sse4_2 avx avx2 avx512f\n"
        "\n"
        "processor\t: 1\n"
        "vendor_id\t: Other\n");
    EXPECT_EQ(c.vendor, "GenuineIntel");
    EXPECT_EQ(c.model, "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz");
    EXPECT_EQ(c.simd, (std::vector<std::string>{"sse2", "sse3", "ssse3", "sse4_1", "sse4_2",
                                                "avx", "fma", "avx2", "avx512f"}));
}

TEST(CpuInfo, ParsesArm) {
    const CpuInfoText c = parse_cpuinfo(
        "processor\t: 0\n"
        "BogoMIPS\t: 2000.00\n"
        "Features\t: fp asimd evtstrm aes crc32 atomics fphp asimdhp asimddp sve sve2 i8mm\n"
        "CPU implementer\t: 0x41\n"
        "CPU architecture: 8\n"
        "CPU part\t: 0xd4f\n");
    EXPECT_EQ(c.vendor, "ARM");
    EXPECT_EQ(c.model, "CPU part 0xd4f");
    EXPECT_EQ(c.simd, (std::vector<std::string>{"asimd", "asimdhp", "asimddp", "i8mm", "sve",
                                                "sve2"}));
}

TEST(CpuInfo, EmptyTextGivesEmptyResult) {
    const CpuInfoText c = parse_cpuinfo("");
    EXPECT_TRUE(c.vendor.empty());
    EXPECT_TRUE(c.model.empty());
    EXPECT_TRUE(c.simd.empty());
}

}  // namespace
}  // namespace mdtune
