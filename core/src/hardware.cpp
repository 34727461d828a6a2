// Hardware fingerprint: CPUID for the CPU, hwloc for the topology, the CUDA
// runtime for GPUs and the MPI library's own version string. Nothing here may
// fail: a missing piece is reported as empty/zero so the tuner can still run.
#include "mdtune/core/hardware.h"

#include "mdtune/process/digest.h"

#include <hwloc.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "hardware_id.h"

#if defined(__x86_64__) || defined(__i386__)
#define MDT_X86 1
#include <cpuid.h>
#endif

#ifdef MDT_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef MDT_HAVE_MPI
#include <mpi.h>
#endif

namespace mdtune::inline core {
namespace {

constexpr long kGiB = 1024L * 1024L * 1024L;

// Trims and collapses runs of blanks: Intel pads its brand string with spaces
// and some models carry double spaces, none of which is part of the identity.
std::string squash(std::string_view s) {
    std::string out;
    bool blank = false;
    for (char c : s) {
        if (c == '\0') break;
        if (std::isspace(static_cast<unsigned char>(c))) {
            blank = true;
            continue;
        }
        if (blank && !out.empty()) out += ' ';
        blank = false;
        out += c;
    }
    return out;
}

// SIMD names follow the Linux /proc/cpuinfo flag names, so the CPUID path and
// the cpuinfo fallback agree; the order is the report order (oldest first).
constexpr std::array<std::string_view, 31> kKnownSimd = {
    // x86
    "sse2", "sse3", "ssse3", "sse4_1", "sse4_2", "avx", "f16c", "fma", "avx2", "avx_vnni",
    "avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl", "avx512ifma", "avx512vbmi",
    "avx512_vbmi2", "avx512_vnni", "avx512_bitalg", "avx512_vpopcntdq", "avx512_bf16",
    "avx512_fp16",
    // Arm
    "asimd", "asimdhp", "asimddp", "asimdfhm", "i8mm", "sve", "sve2", "sme"};

std::vector<std::string> in_known_order(const std::vector<std::string>& flags) {
    std::vector<std::string> out;
    for (std::string_view known : kKnownSimd)
        if (std::find(flags.begin(), flags.end(), known) != flags.end()) out.emplace_back(known);
    return out;
}

#ifdef MDT_X86
struct Regs {
    unsigned a = 0, b = 0, c = 0, d = 0;
};

// __get_cpuid_count returns false for leaves above the CPU's maximum, which
// then read as all-zero (feature absent).
Regs cpuid(unsigned leaf, unsigned sub = 0) {
    Regs r;
    if (!__get_cpuid_count(leaf, sub, &r.a, &r.b, &r.c, &r.d)) r = Regs{};
    return r;
}

bool bit(unsigned reg, int n) { return (reg >> n) & 1U; }

// XCR0 via inline asm rather than _xgetbv(), which needs -mxsave for the whole file.
std::uint64_t xgetbv0() {
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

// A feature bit alone is not enough: AVX/AVX-512 code faults unless the OS saves
// the wider register state (XCR0), e.g. under some hypervisors or with
// AVX-512 disabled by the kernel. AMX is left out: it additionally needs a
// per-process arch_prctl permission and does not matter for MD kernels.
void detect_cpuid(HardwareInfo& hw) {
    const Regs l0 = cpuid(0);
    char vendor[13] = {};
    std::memcpy(vendor + 0, &l0.b, 4);
    std::memcpy(vendor + 4, &l0.d, 4);
    std::memcpy(vendor + 8, &l0.c, 4);
    hw.cpu_vendor = squash(vendor);

    if (cpuid(0x80000000).a >= 0x80000004) {
        char brand[49] = {};
        for (unsigned i = 0; i < 3; ++i) {
            const Regs r = cpuid(0x80000002 + i);
            std::memcpy(brand + 16 * i + 0, &r.a, 4);
            std::memcpy(brand + 16 * i + 4, &r.b, 4);
            std::memcpy(brand + 16 * i + 8, &r.c, 4);
            std::memcpy(brand + 16 * i + 12, &r.d, 4);
        }
        hw.cpu_model = squash(brand);
    }

    const Regs l1 = cpuid(1);
    const bool osxsave = bit(l1.c, 27);
    const std::uint64_t xcr0 = osxsave ? xgetbv0() : 0;
    const bool avx_os = (xcr0 & 0x6) == 0x6;                    // XMM | YMM state
    const bool avx512_os = avx_os && (xcr0 & 0xE0) == 0xE0;     // opmask | ZMM_Hi256 | Hi16_ZMM
    const Regs l7 = l0.a >= 7 ? cpuid(7, 0) : Regs{};
    const Regs l7s1 = (l0.a >= 7 && l7.a >= 1) ? cpuid(7, 1) : Regs{};

    std::vector<std::string> f;
    auto add = [&f](bool present, const char* name) {
        if (present) f.emplace_back(name);
    };
    add(bit(l1.d, 26), "sse2");
    add(bit(l1.c, 0), "sse3");
    add(bit(l1.c, 9), "ssse3");
    add(bit(l1.c, 19), "sse4_1");
    add(bit(l1.c, 20), "sse4_2");
    add(avx_os && bit(l1.c, 28), "avx");
    add(avx_os && bit(l1.c, 29), "f16c");
    add(avx_os && bit(l1.c, 12), "fma");
    add(avx_os && bit(l7.b, 5), "avx2");
    add(avx_os && bit(l7s1.a, 4), "avx_vnni");
    if (avx512_os && bit(l7.b, 16)) {
        f.emplace_back("avx512f");
        add(bit(l7.b, 17), "avx512dq");
        add(bit(l7.b, 28), "avx512cd");
        add(bit(l7.b, 30), "avx512bw");
        add(bit(l7.b, 31), "avx512vl");
        add(bit(l7.b, 21), "avx512ifma");
        add(bit(l7.c, 1), "avx512vbmi");
        add(bit(l7.c, 6), "avx512_vbmi2");
        add(bit(l7.c, 11), "avx512_vnni");
        add(bit(l7.c, 12), "avx512_bitalg");
        add(bit(l7.c, 14), "avx512_vpopcntdq");
        add(bit(l7s1.a, 5), "avx512_bf16");
        add(bit(l7.d, 23), "avx512_fp16");
    }
    hw.simd = in_known_order(f);
}
#endif

std::string read_file(const char* path) {
    std::ifstream in(path);
    if (!in) return {};
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Topology {
    hwloc_topology_t t = nullptr;
    Topology() {
        if (hwloc_topology_init(&t) != 0) {
            t = nullptr;
            return;
        }
        // Whole machine, not just this process's cpuset: the id must not change
        // with the size of a Slurm allocation or a container CPU limit.
        hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
        // Instruction caches are filtered out by default in hwloc 2.
        hwloc_topology_set_cache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
        hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
        if (hwloc_topology_load(t) != 0) {
            hwloc_topology_destroy(t);
            t = nullptr;
        }
    }
    ~Topology() {
        if (t) hwloc_topology_destroy(t);
    }
    Topology(const Topology&) = delete;
    Topology& operator=(const Topology&) = delete;
};

int cache_type_rank(const std::string& type) {
    return type == "Data" ? 0 : type == "Instruction" ? 1 : 2;
}

bool cache_less(const CacheInfo& a, const CacheInfo& b) {
    return std::tuple(a.level, cache_type_rank(a.type), a.size_bytes, a.shared_by_cores) <
           std::tuple(b.level, cache_type_rank(b.type), b.size_bytes, b.shared_by_cores);
}

bool cache_equal(const CacheInfo& a, const CacheInfo& b) {
    return a.level == b.level && a.type == b.type && a.size_bytes == b.size_bytes &&
           a.shared_by_cores == b.shared_by_cores;
}

void detect_topology(HardwareInfo& hw) {
    Topology topo;
    if (topo.t) {
        hwloc_topology_t t = topo.t;
        hw.sockets = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
        hw.physical_cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
        hw.hardware_threads = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
        hw.numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
        // Memory comes from /proc/meminfo below: on VMs with hot-plugged memory
        // hwloc's per-node total moves as blocks come online (4.7 to 8.8 GiB
        // seen here while MemTotal stayed 23.5 GiB), and the id must not.

        // One entry per distinct (level, type, size, sharing): a uniform machine
        // lists each cache once; a hybrid CPU lists its P- and E-core L2s apart.
        constexpr hwloc_obj_type_t kCacheTypes[] = {
            HWLOC_OBJ_L1CACHE,  HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L2ICACHE,
            HWLOC_OBJ_L3CACHE,  HWLOC_OBJ_L3ICACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE};
        for (hwloc_obj_type_t type : kCacheTypes) {
            for (hwloc_obj_t o = hwloc_get_next_obj_by_type(t, type, nullptr); o;
                 o = hwloc_get_next_obj_by_type(t, type, o)) {
                if (o->attr->cache.size == 0) continue;
                CacheInfo c;
                c.level = static_cast<int>(o->attr->cache.depth);
                switch (o->attr->cache.type) {
                    case HWLOC_OBJ_CACHE_DATA: c.type = "Data"; break;
                    case HWLOC_OBJ_CACHE_INSTRUCTION: c.type = "Instruction"; break;
                    default: c.type = "Unified"; break;
                }
                c.size_bytes = static_cast<long>(o->attr->cache.size);
                c.shared_by_cores = std::max(
                    1, hwloc_get_nbobjs_inside_cpuset_by_type(t, o->cpuset, HWLOC_OBJ_CORE));
                hw.caches.push_back(c);
            }
        }
        std::sort(hw.caches.begin(), hw.caches.end(), cache_less);
        hw.caches.erase(std::unique(hw.caches.begin(), hw.caches.end(), cache_equal),
                        hw.caches.end());
    }

    // Fallbacks for a failed hwloc load or a platform that reports no cores/packages.
    if (hw.hardware_threads <= 0)
        hw.hardware_threads = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_CONF)));
    if (hw.physical_cores <= 0) hw.physical_cores = hw.hardware_threads;
    if (hw.sockets <= 0) hw.sockets = 1;
    if (hw.numa_nodes <= 0) hw.numa_nodes = 1;
    {
        std::istringstream in(read_file("/proc/meminfo"));
        std::string key;
        long kb = 0;
        while (in >> key >> kb) {
            if (key == "MemTotal:") {
                hw.memory_bytes = kb * 1024L;
                break;
            }
            in.ignore(256, '\n');
        }
    }
    if (hw.memory_bytes <= 0 && topo.t)
        hw.memory_bytes = static_cast<long>(hwloc_get_root_obj(topo.t)->total_memory);
    if (hw.memory_bytes <= 0) hw.memory_bytes = sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
}

void detect_gpus([[maybe_unused]] HardwareInfo& hw) {
#ifdef MDT_HAVE_CUDA
    // No driver, no device or CUDA_VISIBLE_DEVICES="" all mean "no GPU" here.
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();  // reset the error state so later CUDA users start clean
        n = 0;
    }
    for (int i = 0; i < n; ++i) {
        cudaDeviceProp p{};
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
            (void)cudaGetLastError();
            continue;
        }
        GpuInfo g;
        g.model = squash(p.name);
        g.memory_bytes = static_cast<long>(p.totalGlobalMem);
        g.compute_capability = std::to_string(p.major) + "." + std::to_string(p.minor);
        g.multiprocessors = p.multiProcessorCount;
        int clock_khz = 0, memory_khz = 0, bus_bits = 0;  // attributes: CUDA 13 dropped these from cudaDeviceProp
        if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, i) == cudaSuccess) g.clock_mhz = clock_khz / 1000;
        if (cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, i) == cudaSuccess &&
            cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, i) == cudaSuccess)
            g.memory_bandwidth_gbs = 2.0 * memory_khz * 1e3 * (bus_bits / 8.0) / 1e9;  // DDR: two transfers per clock
        (void)cudaGetLastError();
        hw.gpus.push_back(std::move(g));
    }
#endif
}

std::string detect_mpi_library() {
#ifdef MDT_HAVE_MPI
    // One of the few MPI calls allowed before MPI_Init.
    char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    if (MPI_Get_library_version(buf, &len) != MPI_SUCCESS) return {};
    std::string_view v(buf, static_cast<std::size_t>(std::clamp(len, 0, MPI_MAX_LIBRARY_VERSION_STRING)));
    return squash(v.substr(0, v.find('\n')));
#else
    return {};
#endif
}

std::string compiler_string() {
#if defined(__clang__)
    const std::string v = __VERSION__;  // "Clang 17.0.6 ..." / "Apple LLVM ..."
    return v.find("lang") != std::string::npos || v.find("LLVM") != std::string::npos
               ? v
               : "clang " + v;
#elif defined(__GNUC__)
    return std::string("GCC ") + __VERSION__;
#else
    return "unknown";
#endif
}

std::string kernel_string() {
    utsname u{};
    if (uname(&u) != 0) return {};
    return std::string(u.sysname) + " " + u.release;
}

// "key<tabs>: value" lines; split at the first colon only, since values
// (model names) may contain colons themselves.
std::vector<std::pair<std::string, std::string>> cpuinfo_pairs(std::string_view text) {
    std::vector<std::pair<std::string, std::string>> kv;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        kv.emplace_back(squash(line.substr(0, colon)), squash(line.substr(colon + 1)));
    }
    return kv;
}

}  // namespace

CpuInfoText parse_cpuinfo(std::string_view text) {
    const auto kv = cpuinfo_pairs(text);
    // The first processor block is enough; every key is looked up once.
    auto first = [&kv](std::string_view key) -> std::string {
        for (const auto& [k, v] : kv)
            if (k == key && !v.empty()) return v;
        return {};
    };
    CpuInfoText out;
    out.vendor = first("vendor_id");
    if (out.vendor.empty()) {
        // Arm reports a JEDEC implementer code, not a name.
        const std::string impl = first("CPU implementer");
        static const std::pair<const char*, const char*> kImpl[] = {
            {"0x41", "ARM"},      {"0x42", "Broadcom"}, {"0x43", "Cavium"},
            {"0x46", "Fujitsu"},  {"0x48", "HiSilicon"}, {"0x4e", "NVIDIA"},
            {"0x51", "Qualcomm"}, {"0x61", "Apple"},    {"0xc0", "Ampere"}};
        for (const auto& [code, name] : kImpl)
            if (impl == code) out.vendor = name;
        if (out.vendor.empty() && !impl.empty()) out.vendor = "implementer " + impl;
    }
    for (const char* key : {"model name", "Model", "cpu model", "cpu", "uarch"}) {
        out.model = first(key);
        if (!out.model.empty()) break;
    }
    if (out.model.empty()) {
        const std::string part = first("CPU part");
        if (!part.empty()) out.model = "CPU part " + part;
    }
    std::string flags = first("flags");
    if (flags.empty()) flags = first("Features");
    std::vector<std::string> f;
    std::istringstream in(flags);
    for (std::string w; in >> w;) f.push_back(w == "pni" ? "sse3" : w);  // Linux calls SSE3 "pni"
    out.simd = in_known_order(f);
    return out;
}

// What goes into the id is what makes a tuning result transferable: two
// machines with the same CPU model, topology, caches, memory size and GPUs
// should share tuned parameters. The hostname, kernel, compiler and MPI
// version are left out on purpose: a kernel or toolchain update is the same
// hardware, and keeping the id stable lets old results be reused (they stay
// recorded in the full fingerprint for anyone who wants to filter on them).
// Memory is rounded to GiB because MemTotal moves by a few MiB between kernels
// (and GPU memory with ECC/driver settings). Lists are sorted so that the
// order of detection does not matter.
std::string hardware_id(const HardwareInfo& info) {
    auto gib = [](long bytes) { return (bytes + kGiB / 2) / kGiB; };
    std::vector<std::string> simd = info.simd;
    std::sort(simd.begin(), simd.end());
    std::vector<std::string> caches;
    for (const CacheInfo& c : info.caches)
        caches.push_back("L" + std::to_string(c.level) + c.type + ":" + std::to_string(c.size_bytes));
    std::sort(caches.begin(), caches.end());
    caches.erase(std::unique(caches.begin(), caches.end()), caches.end());
    std::vector<std::string> gpus;
    for (const GpuInfo& g : info.gpus) gpus.push_back(g.model + ":" + std::to_string(gib(g.memory_bytes)));
    std::sort(gpus.begin(), gpus.end());

    std::ostringstream s;
    auto list = [&s](const char* key, const std::vector<std::string>& v) {
        s << key << '=';
        for (const std::string& x : v) s << x << ',';
        s << '\n';
    };
    s << "mdtune-hw-v1\n"  // bump if the recipe changes, so old and new ids never collide
      << "vendor=" << info.cpu_vendor << '\n'
      << "model=" << info.cpu_model << '\n'
      << "cores=" << info.physical_cores << '\n'
      << "threads=" << info.hardware_threads << '\n'
      << "sockets=" << info.sockets << '\n'
      << "numa=" << info.numa_nodes << '\n';
    list("simd", simd);
    list("caches", caches);
    s << "memory_gib=" << gib(info.memory_bytes) << '\n';
    list("gpus", gpus);
    // Multi-node trials are other hardware; one node keeps the ids of old databases.
    if (info.node_count > 1) s << "nodes=" << info.node_count << '\n';

    return "hw-" + process::fnv1a_hex(s.str(), process::kFnvOffsetBasis);
}

std::string HardwareInfo::to_json() const {
    // ordered_json keeps the fields in declaration order, which reads better in files.
    nlohmann::ordered_json j;
    j["id"] = id;
    j["cpu_vendor"] = cpu_vendor;
    j["cpu_model"] = cpu_model;
    j["physical_cores"] = physical_cores;
    j["hardware_threads"] = hardware_threads;
    j["sockets"] = sockets;
    j["numa_nodes"] = numa_nodes;
    j["simd"] = simd;
    j["caches"] = nlohmann::ordered_json::array();
    for (const CacheInfo& c : caches)
        j["caches"].push_back({{"level", c.level},
                               {"type", c.type},
                               {"size_bytes", c.size_bytes},
                               {"shared_by_cores", c.shared_by_cores}});
    j["memory_bytes"] = memory_bytes;
    j["gpus"] = nlohmann::ordered_json::array();
    for (const GpuInfo& g : gpus)
        j["gpus"].push_back({{"model", g.model},
                             {"memory_bytes", g.memory_bytes},
                             {"compute_capability", g.compute_capability},
                             {"multiprocessors", g.multiprocessors},
                             {"clock_mhz", g.clock_mhz},
                             {"memory_bandwidth_gbs", g.memory_bandwidth_gbs}});
    j["mpi_library"] = mpi_library;
    j["compiler"] = compiler;
    j["os_kernel"] = os_kernel;
    j["node_type"] = node_type;
    j["node_count"] = node_count;
    return j.dump(2);
}

HardwareInfo detect_hardware() {
    HardwareInfo hw;
#ifdef MDT_X86
    detect_cpuid(hw);
#endif
    // CPUID is authoritative on x86; /proc/cpuinfo fills in elsewhere (Arm, POWER)
    // and anything CPUID could not say (e.g. a CPU without a brand string).
    if (hw.cpu_vendor.empty() || hw.cpu_model.empty() || hw.simd.empty()) {
        const CpuInfoText ci = parse_cpuinfo(read_file("/proc/cpuinfo"));
        if (hw.cpu_vendor.empty()) hw.cpu_vendor = ci.vendor;
        if (hw.cpu_model.empty()) hw.cpu_model = ci.model;
        if (hw.simd.empty()) hw.simd = ci.simd;
    }
    detect_topology(hw);
    detect_gpus(hw);
    hw.mpi_library = detect_mpi_library();
    hw.compiler = compiler_string();
    hw.os_kernel = kernel_string();
    if (hw.cpu_model.empty()) {
        utsname u{};
        hw.cpu_model = uname(&u) == 0 ? std::string(u.machine) : "unknown";  // never empty
    }
    hw.node_count = allocation_node_count();
    hw.node_type = node_type_of(hw, slurm_node_features());
    hw.id = hardware_id(hw);
    return hw;
}

}  // namespace mdtune::core
