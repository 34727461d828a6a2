# Locates the project's dependencies. Required ones fail the configure step with a
# message that names the Debian package (scripts/bootstrap.sh installs them).
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(nlohmann_json 3 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(FFTW3F REQUIRED IMPORTED_TARGET fftw3f)   # libfftw3-dev
# The OpenMP-threaded FFTW (same Debian package); no pkg-config file of its own.
find_library(FFTW3F_OMP_LIBRARY NAMES fftw3f_omp REQUIRED)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)                  # libeigen3-dev
find_package(SQLite3 REQUIRED)                               # libsqlite3-dev
find_package(CLI11 2.1 REQUIRED CONFIG)                      # libcli11-dev (command lines of mdcore, mdtune)
if(MDT_BUILD_TESTS)
  find_package(GTest REQUIRED)                               # libgtest-dev
endif()
if(MDT_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)                           # libbenchmark-dev
endif()

# Optional: MPI and CUDA are auto-detected; the build and tests pass without them.
set(MDT_HAVE_MPI OFF)
if(NOT MDT_MPI STREQUAL "off")
  find_package(MPI COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(MDT_HAVE_MPI ON)
  elseif(MDT_MPI STREQUAL "on")
    message(FATAL_ERROR "MDT_MPI=on but no MPI was found (apt-get install libopenmpi-dev)")
  endif()
endif()
set(MDT_HAVE_CUDA OFF)
if(NOT MDT_CUDA STREQUAL "off")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(MDT_HAVE_CUDA ON)
    # A100 (80) and H100/H200 (90) machine code, plus compute_90 PTX that newer
    # GPUs JIT-compile. Explicit, so the build never depends on a GPU being present.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "80-real;90-real;90-virtual")
    endif()
    set(CMAKE_CUDA_STANDARD 17)  # CMake 3.25 knows no CUDA20 flags for nvcc
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)  # CUDA::cudart, CUDA::cufft
  elseif(MDT_CUDA STREQUAL "on")
    message(FATAL_ERROR "MDT_CUDA=on but no CUDA compiler was found")
  endif()
endif()
message(STATUS "mdtune: MPI=${MDT_HAVE_MPI} CUDA=${MDT_HAVE_CUDA} SIMD=${MDT_SIMD}")
