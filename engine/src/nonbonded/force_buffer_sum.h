#pragma once
// Sums the nonbonded threads' force buffers (KernelOutput's layout) into one
// force array over a range of j-clusters: every thread's buffer and, with two
// copies, both copies of each cluster's block, in a fixed order (thread, then
// copy) so the result does not depend on how the range is split.
#include <cstddef>

namespace mdcore {

struct ForceBufferSet {
    const float* const* buffers;  // one per thread, each `dim` floats per dimension
    int count;
    std::size_t dim;  // floats per dimension in a buffer: copies x slots
    int copies;       // 1 or 2 (KernelOutput)
    int m;            // slots per j-cluster
};

// out_d[s] for slots s of clusters [c_begin, c_end), d = x, y, z.
void sum_force_buffers(const ForceBufferSet& set, std::size_t c_begin, std::size_t c_end, float* fx, float* fy,
                       float* fz);

}  // namespace mdcore
