#pragma once
// Text the sweep and the evaluation both print (tuner/mpi/src/sweep.cpp).
#include <string>
#include <vector>

#include "mdtune/mpi/sweep.h"

namespace mdtune::mpi {

// printf-formatted number, "%.6g" unless told.
std::string fmt(double v, const char* f = "%.6g");
// Why a launch gave no usable output: "timed out", the program's own error, the last stderr line.
std::string launch_problem(const LaunchResult& r);
double median_of(std::vector<double> v);

}  // namespace mdtune::mpi
