#pragma once
// How many OpenMP threads "all cores" means. OpenMP's default comes from
// OMP_NUM_THREADS unchecked (100000 crashed inside libgomp), so it is clamped to
// the machine's hardware threads here.
namespace mdcore {

// Hardware threads of this machine (at least 1).
int hardware_thread_count();

// OpenMP's default thread count, clamped to hardware_thread_count(). The first
// call that has to clamp says so in one line on stderr and lowers OpenMP's own
// default too, so no parallel region without a num_threads clause starts more.
int default_thread_count();

}  // namespace mdcore
