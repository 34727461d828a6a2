#pragma once
// What `gmx --version` says about a GROMACS build: the identity trials are keyed
// by (a different version, precision, SIMD level or MPI flavour is measured anew)
// and what decides how a trial is launched (an MPI build under mpirun/srun,
// thread-MPI with -ntmpi).
#include <string>
#include <string_view>

namespace mdtune::gromacs {

struct GmxBuild {
    std::string version;      // "2022.5-Debian_2022.5_2"
    std::string precision;    // "mixed", "double"
    std::string mpi_library;  // "thread_mpi", "MPI", "none"
    std::string gpu_support;  // "disabled", "CUDA", "SYCL", ...
    std::string simd;         // "SSE4.1", "AVX_512"
    bool is_gromacs() const { return !version.empty(); }
    bool real_mpi() const { return mpi_library == "MPI"; }
    bool has_gpu() const { return !gpu_support.empty() && gpu_support != "disabled"; }
    // {"version":...,"precision":...,...}: the build's part of the trial key.
    std::string to_json() const;
};

// Reads the "GROMACS version:", "Precision:", "MPI library:", "GPU support:" and
// "SIMD instructions:" lines; fields it does not find stay empty.
GmxBuild parse_gmx_version(std::string_view text);

}  // namespace mdtune::gromacs
