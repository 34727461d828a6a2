#pragma once
// Shared set-up of the PME, integration and whole-step suites: SPC/E water boxes
// built once per size (fixed seed, one thread) and cached, and the test-only
// slowdown switch used to validate the regression gate.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_common.h"
#include "mdcore/generators.h"

namespace mdbench {

// Water sizes in atoms from $MDT_BENCH_WATER_SIZES ("3000,12000"), default 3000
// (1000 SPC/E molecules, a 3.1 nm box: the "small water box").
inline std::vector<long> water_sizes() {
    const char* env = std::getenv("MDT_BENCH_WATER_SIZES");
    std::vector<long> out;
    if (env && *env) {
        std::stringstream ss(env);
        for (std::string item; std::getline(ss, item, ',');)
            if (!item.empty()) out.push_back(std::stol(item) / 3 * 3);
    }
    return out.empty() ? std::vector<long>{3000} : out;
}

inline const mdcore::System& water_box(long natoms) {
    static std::map<long, std::unique_ptr<mdcore::System>> cache;
    auto& slot = cache[natoms];
    if (slot) return *slot;
    const auto t0 = std::chrono::steady_clock::now();
    mdcore::WaterSpec spec;
    spec.nwater = natoms / 3;
    spec.seed = 2718;
    spec.threads = 1;
    // The generator cuts the box from an equilibrated cell; its relaxation of
    // strained contacts where cells meet (200 MD steps: ~10 s with scalar kernels,
    // many minutes under valgrind) changes nothing these suites measure.
    spec.relax_steps = 0;
    slot = std::make_unique<mdcore::System>(mdcore::make_water_system(spec));
    std::fprintf(stderr, "[setup] SPC/E water %ld atoms in %.2f s\n", natoms,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return *slot;
}

}  // namespace mdbench
