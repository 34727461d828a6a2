#pragma once
// The noise floor of a wall-time comparison against a baseline measured at
// another time: how far a benchmark's wall time wanders between labels on the
// same hardware. Machines drift (this VM switches between a fast and a slow
// state for minutes at a time, up to ~25 %), so two labels measured minutes
// apart can differ significantly with identical code; the gate then counts a
// difference as a regression only beyond this drift.
//
// Per benchmark: each past label's median (the median of its run medians), in
// the order the labels were first measured, the last kDriftLabels of them; the
// drift is the kDriftQuantile quantile of |ln(m_i / m_{i-1})| over consecutive
// labels, as a relative change. The quantile (not the maximum) keeps a rare
// real step between commits from becoming the floor.
#include <cstddef>
#include <span>
#include <vector>

#include "mdtune/bench/compare.h"
#include "mdtune/db/bench_store.h"

namespace mdtune::bench {

inline constexpr std::size_t kDriftLabels = 20;     // most recent past labels used
inline constexpr std::size_t kMinDriftLabels = 3;   // fewer: no floor (unknown drift)
inline constexpr double kDriftQuantile = 0.9;

// Drift of a sequence of label medians (oldest first); 0 with fewer than
// kMinDriftLabels or non-positive values.
double drift_of(std::span<const double> label_medians);

// Floors per benchmark from past runs (with results, any order; one hardware,
// the candidate's runs left out). Benchmarks with too little history get none.
NoiseFloors historic_drift(const std::vector<db::BenchRunRow>& history);

// Whether two sets of runs were measured interleaved in time (their run id
// ranges overlap, as scripts/ci_perf.sh does): then both sides saw the same
// machine states and no historic floor applies.
bool measured_interleaved(const std::vector<db::BenchRunRow>& a, const std::vector<db::BenchRunRow>& b);

}  // namespace mdtune::bench
