#pragma once
// The distributed 3D FFT of the slab-decomposed PME mesh, by our own transpose (no
// FFTW-MPI dependency): rank r holds the real grid's x-planes [x0, x1) (pme_slabs.h);
// forward = a 2D r2c over (y, z) of each owned plane, an all-to-all that regroups the
// half-complex data into y-slabs holding every x, and a 1D c2c along x. The transform
// is then stored transposed, [y - y0][x][kz] (kz < nz/2+1): each (x, y) line of kz is
// contiguous, as in the serial layout. backward() runs the three steps in reverse.
// Both directions are FFTW's unnormalised ones, so the composite equals the serial
// 3D r2c/c2r (pme_workspace.h) up to float rounding.
#include <fftw3.h>
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "pme/pme.h"

namespace mdcore {

class PmeSlabFft {
public:
    // Collective over comm. Throws std::invalid_argument when the communicator has
    // more ranks than grid.nx or grid.ny (a rank would own no plane or no line).
    // `threads`: the transforms' threads on large grids (pme_fft_plans_measured).
    PmeSlabFft(MPI_Comm comm, PmeGrid grid, int threads = 1);
    ~PmeSlabFft();
    PmeSlabFft(const PmeSlabFft&) = delete;
    PmeSlabFft& operator=(const PmeSlabFft&) = delete;

    // The transposed transform, ((y - y0) * nx + x) * nzc + kz.
    fftwf_complex* transform() { return transposed_; }

    // Collective. `owned`: the real x-planes this rank owns, (x - x0) * ny * nz + y * nz
    // + z, e.g. inside a whole-size grid: the charges in, left unchanged by forward();
    // the potential out of backward(). The transforms run on them in place of a copy
    // when their alignment is the planned one.
    void forward(float* owned);
    void backward(float* owned);

    int x0() const { return x0_; }
    int x_count() const { return nxl_; }
    int y0() const { return y0_; }
    int y_count() const { return nyl_; }
    int nzc() const { return nzc_; }

private:
    void transpose_to_y_slabs();
    void transpose_to_x_slabs();
    void copy_plane_blocks(bool to_buffer, float* buffer, const std::vector<int>& displs);
    void copy_transposed_blocks(bool to_buffer, float* buffer, const std::vector<int>& displs);
    void move_own_block(bool to_transposed);
    bool plannable_at(const float* owned) const;

    MPI_Comm comm_;
    int nranks_ = 1, rank_ = 0;
    PmeGrid grid_;
    int nzc_ = 0;
    int x0_ = 0, nxl_ = 0, y0_ = 0, nyl_ = 0;
    float* real_ = nullptr;                // nxl * ny * nz: planning, and owned planes of another alignment
    fftwf_complex* planes_ = nullptr;      // nxl * ny * nzc: 2D transforms of the owned planes
    fftwf_complex* transposed_ = nullptr;  // nyl * nx * nzc
    std::vector<float> send_, recv_;       // packed blocks of the transpose (other ranks')
    std::vector<int> send_counts_, send_displs_, recv_counts_, recv_displs_;  // in floats; none to itself
    fftwf_plan planes_r2c_ = nullptr, planes_c2r_ = nullptr, x_forward_ = nullptr, x_backward_ = nullptr;
};

}  // namespace mdcore
