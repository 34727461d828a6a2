#pragma once
// Helpers for the gate tests: temporary directories, synthetic Google Benchmark
// JSON and seeded noise models.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace mdtune::bench::testing {

// The tiny suite of known work (gbench_fixture.cpp) that the runner tests run; empty where
// the build has no Google Benchmark (those tests skip).
#ifdef MDT_GBENCH_FIXTURE
inline const std::string kFixtureExe = MDT_GBENCH_FIXTURE;
#else
inline const std::string kFixtureExe;
#endif

inline std::string temp_dir(const std::string& tag) {
    std::string tmpl = (std::filesystem::temp_directory_path() / ("mdt_bench_" + tag + "_XXXXXX")).string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    return tmpl;
}

inline void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// Google Benchmark JSON (as 1.7.1 writes it) with one iteration entry per value
// (microseconds) and a median aggregate per benchmark.
inline std::string gbench_json(const std::map<std::string, std::vector<double>>& us, const std::string& flags = "-O3") {
    std::ostringstream s;
    s.precision(17);
    s << "{\n  \"context\": {\"date\": \"2026-01-01T00:00:00+00:00\", \"host_name\": \"test\", "
         "\"executable\": \"./bench_test\", \"num_cpus\": 2, \"library_build_type\": \"release\", "
         "\"mdcore_compiler\": \"gcc 12\", \"mdcore_flags\": \" " << flags << "\"},\n  \"benchmarks\": [\n";
    bool first = true;
    for (const auto& [name, values] : us) {
        for (std::size_t i = 0; i < values.size(); ++i) {
            s << (first ? "" : ",\n") << "    {\"name\": \"" << name << "\", \"run_name\": \"" << name
              << "\", \"run_type\": \"iteration\", \"repetitions\": " << values.size() << ", \"repetition_index\": " << i
              << ", \"threads\": 1, \"iterations\": 100, \"real_time\": " << values[i]
              << ", \"cpu_time\": " << values[i] << ", \"time_unit\": \"us\", \"atoms/s\": 1.0e6}";
            first = false;
        }
        s << ",\n    {\"name\": \"" << name << "_median\", \"run_name\": \"" << name
          << "\", \"run_type\": \"aggregate\", \"repetitions\": " << values.size()
          << ", \"threads\": 1, \"aggregate_name\": \"median\", \"iterations\": " << values.size()
          << ", \"real_time\": 1.0, \"cpu_time\": 1.0, \"time_unit\": \"us\"}";
    }
    s << "\n  ]\n}\n";
    return s.str();
}

// Benchmark timings as a shared machine produces them: log-normal scatter plus
// occasional positive outliers (another job stealing the core).
struct NoiseModel {
    double sigma = 0.01;          // relative scatter
    double outlier_rate = 0.1;    // fraction of repetitions hit by interference
    double outlier_max = 0.15;    // up to +15 %
    std::vector<double> draw(std::mt19937_64& rng, std::size_t n, double centre) const {
        std::normal_distribution<double> g(0.0, sigma);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        std::vector<double> v(n);
        for (auto& x : v) {
            x = centre * std::exp(g(rng));
            if (u(rng) < outlier_rate) x *= 1.0 + outlier_max * u(rng);
        }
        return v;
    }
};

}  // namespace mdtune::bench::testing
