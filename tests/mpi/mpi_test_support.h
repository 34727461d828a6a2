#pragma once
// Shared by the MPI collective tests: a scratch folder and synthetic latencies
// with a known crossover between two algorithms.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "mdtune/models/mpi_selection.h"

namespace mpitest {

namespace fs = std::filesystem;
using namespace mdtune;

class TempDir {
public:
    TempDir() {
        path_ = fs::temp_directory_path() / ("mdtune_mpi_test_" + std::to_string(getpid()) + "_" +
                                             std::to_string(counter_++));
        fs::create_directories(path_);
    }
    ~TempDir() { fs::remove_all(path_); }
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    fs::path path_;
    static inline int counter_ = 0;
};

// Synthetic latencies: algorithm 1 is cheap for small messages, algorithm 2 for
// large ones (crossover at 2^14 B at 4 ranks per node), the default in between.
inline double synthetic_us(int alg, const models::mpi::Site& s) {
    const double x = std::log2(double(s.bytes)), q = std::log2(double(s.ppn));
    switch (alg) {
        case 1: return 2.0 * (1 + q) + double(s.bytes) * 0.004 * (1 + q);
        case 2: return 30.0 * (1 + q) + double(s.bytes) * 0.0022 * (1 + q);
        default: return 1.15 * std::min(synthetic_us(1, s), synthetic_us(2, s)) + 0 * x;
    }
}

inline std::vector<models::mpi::Observation> synthetic_data(models::mpi::Collective c, double noise, unsigned seed = 7) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> n(0.0, noise);
    std::vector<models::mpi::Observation> data;
    for (int ppn : {2, 3, 4, 6, 8})
        for (std::uint64_t b = 8; b <= (4u << 20); b *= 4)
            for (int alg : {0, 1, 2}) {
                models::mpi::Observation o;
                o.collective = c;
                o.variant = {alg, 0, 0};
                o.site = {1, ppn, b};
                o.latency_us = synthetic_us(alg, o.site) * std::exp(n(rng));
                data.push_back(o);
            }
    return data;
}

}  // namespace mpitest
