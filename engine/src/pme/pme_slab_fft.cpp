// The slab-decomposed 3D FFT: 2D transforms of the owned x-planes, an all-to-all
// transpose into y-slabs, 1D transforms along x (pme_slab_fft.h).
#include "pme/pme_slab_fft.h"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

#include "pme/pme_slabs.h"
#include "pme/pme_workspace.h"

namespace mdcore {

PmeSlabFft::PmeSlabFft(MPI_Comm comm, PmeGrid grid, int threads) : comm_(comm), grid_(grid) {
    MPI_Comm_size(comm, &nranks_);
    MPI_Comm_rank(comm, &rank_);
    const int rank = rank_;
    if (nranks_ > grid.nx || nranks_ > grid.ny)
        throw std::invalid_argument(
            "PME mesh: " + std::to_string(nranks_) + " ranks cannot share a " + std::to_string(grid.nx) + "x" +
            std::to_string(grid.ny) + "x" + std::to_string(grid.nz) +
            " grid in slabs (at most min(nx, ny) = " + std::to_string(std::min(grid.nx, grid.ny)) + " ranks)");
    // MPI counts are int: the whole half-complex grid, in floats, must fit.
    if (static_cast<long long>(grid.nx) * grid.ny * (grid.nz + 2) > INT_MAX)
        throw std::invalid_argument("PME mesh: a grid above 2^31 floats cannot be transposed with MPI int counts");
    nzc_ = grid.nz / 2 + 1;
    x0_ = pme_slab_begin(grid.nx, rank, nranks_);
    nxl_ = pme_slab_size(grid.nx, rank, nranks_);
    y0_ = pme_slab_begin(grid.ny, rank, nranks_);
    nyl_ = pme_slab_size(grid.ny, rank, nranks_);

    const std::size_t plane_real = static_cast<std::size_t>(grid.ny) * grid.nz;
    const std::size_t plane_cplx = static_cast<std::size_t>(grid.ny) * nzc_;
    real_ = static_cast<float*>(fftwf_malloc(sizeof(float) * nxl_ * plane_real));
    planes_ = static_cast<fftwf_complex*>(fftwf_malloc(sizeof(fftwf_complex) * nxl_ * plane_cplx));
    transposed_ = static_cast<fftwf_complex*>(
        fftwf_malloc(sizeof(fftwf_complex) * static_cast<std::size_t>(nyl_) * grid.nx * nzc_));
    if (!real_ || !planes_ || !transposed_) throw std::runtime_error("PME mesh: allocation of the slab grids failed");

    // Block to rank d: my x-planes times d's y-lines; from rank s: s's planes times mine.
    // The own block moves by one direct copy (move_own_block), not through MPI.
    for (auto* v : {&send_counts_, &send_displs_, &recv_counts_, &recv_displs_}) v->resize(nranks_);
    int send_total = 0, recv_total = 0;
    for (int d = 0; d < nranks_; ++d) {
        if (d != rank) {
            send_counts_[d] = 2 * nxl_ * pme_slab_size(grid.ny, d, nranks_) * nzc_;
            recv_counts_[d] = 2 * pme_slab_size(grid.nx, d, nranks_) * nyl_ * nzc_;
        }
        send_displs_[d] = send_total, recv_displs_[d] = recv_total;
        send_total += send_counts_[d], recv_total += recv_counts_[d];
    }
    send_.resize(send_total), recv_.resize(recv_total);

    {
        // As the serial mesh (pme_fft.cpp): timed, threaded plans for large grids. On
        // water-24k's 52^3 at 2 ranks x 1 thread, ESTIMATE plans took the slab FFT to
        // 0.9 ms/step against 0.56 for the serial 2-thread transform.
        const bool measured = pme_fft_plans_measured(static_cast<long>(grid.nx) * grid.ny * grid.nz);
        const unsigned flags = measured ? FFTW_MEASURE : FFTW_ESTIMATE;
        const auto lock = pme_fftw_planner_lock(measured ? std::max(threads, 1) : 1);
        const int n2[2] = {grid.ny, grid.nz};
        planes_r2c_ = fftwf_plan_many_dft_r2c(2, n2, nxl_, real_, nullptr, 1, static_cast<int>(plane_real), planes_,
                                              nullptr, 1, static_cast<int>(plane_cplx), flags);
        planes_c2r_ = fftwf_plan_many_dft_c2r(2, n2, nxl_, planes_, nullptr, 1, static_cast<int>(plane_cplx), real_,
                                              nullptr, 1, static_cast<int>(plane_real), flags);
        // Along x: stride nzc inside one y-line block; every (y, kz) is one transform.
        const fftwf_iodim along_x{grid.nx, nzc_, nzc_};
        const fftwf_iodim lines[2] = {{nyl_, grid.nx * nzc_, grid.nx * nzc_}, {nzc_, 1, 1}};
        x_forward_ = fftwf_plan_guru_dft(1, &along_x, 2, lines, transposed_, transposed_, FFTW_FORWARD, flags);
        x_backward_ =
            fftwf_plan_guru_dft(1, &along_x, 2, lines, transposed_, transposed_, FFTW_BACKWARD, flags);
    }
    if (!planes_r2c_ || !planes_c2r_ || !x_forward_ || !x_backward_)
        throw std::runtime_error("PME mesh: FFTW planning of the slab transforms failed");
}

PmeSlabFft::~PmeSlabFft() {
    {
        const auto lock = pme_fftw_planner_lock(1);
        for (fftwf_plan p : {planes_r2c_, planes_c2r_, x_forward_, x_backward_})
            if (p) fftwf_destroy_plan(p);
    }
    if (real_) fftwf_free(real_);
    if (planes_) fftwf_free(planes_);
    if (transposed_) fftwf_free(transposed_);
}

bool PmeSlabFft::plannable_at(const float* owned) const {
    return fftwf_alignment_of(const_cast<float*>(owned)) == fftwf_alignment_of(real_);
}

void PmeSlabFft::forward(float* owned) {
    if (plannable_at(owned)) {
        fftwf_execute_dft_r2c(planes_r2c_, owned, planes_);  // r2c out of place keeps its input
    } else {
        std::copy(owned, owned + static_cast<std::size_t>(nxl_) * grid_.ny * grid_.nz, real_);
        fftwf_execute(planes_r2c_);
    }
    transpose_to_y_slabs();
    fftwf_execute(x_forward_);
}

void PmeSlabFft::backward(float* owned) {
    fftwf_execute(x_backward_);
    transpose_to_x_slabs();
    if (plannable_at(owned)) {
        fftwf_execute_dft_c2r(planes_c2r_, planes_, owned);
    } else {
        fftwf_execute(planes_c2r_);
        std::copy(real_, real_ + static_cast<std::size_t>(nxl_) * grid_.ny * grid_.nz, owned);
    }
}

// Moves kz-lines between planes_ ([xl][y][kz]) and the blocks for (or from) each
// rank d, [xl][y in d's y-slab][kz], at displs[d] of buffer; to_buffer picks the way.
void PmeSlabFft::copy_plane_blocks(bool to_buffer, float* buffer, const std::vector<int>& displs) {
    const std::size_t line = 2 * static_cast<std::size_t>(nzc_);  // floats per kz-line
    float* planes = reinterpret_cast<float*>(planes_);
    for (int d = 0; d < nranks_; ++d) {
        if (d == rank_) continue;  // move_own_block
        const int yd0 = pme_slab_begin(grid_.ny, d, nranks_), nyd = pme_slab_size(grid_.ny, d, nranks_);
        float* block = buffer + displs[d];
        for (int xl = 0; xl < nxl_; ++xl)
            for (int y = yd0; y < yd0 + nyd; ++y, block += line) {
                float* here = planes + (static_cast<std::size_t>(xl) * grid_.ny + y) * line;
                to_buffer ? std::copy(here, here + line, block) : std::copy(block, block + line, here);
            }
    }
}

// Likewise between transposed_ ([yl][x][kz]) and the blocks of each rank s,
// [x in s's x-slab][yl][kz].
void PmeSlabFft::copy_transposed_blocks(bool to_buffer, float* buffer, const std::vector<int>& displs) {
    const std::size_t line = 2 * static_cast<std::size_t>(nzc_);
    float* transposed = reinterpret_cast<float*>(transposed_);
    for (int s = 0; s < nranks_; ++s) {
        if (s == rank_) continue;  // move_own_block
        const int xs0 = pme_slab_begin(grid_.nx, s, nranks_), nxs = pme_slab_size(grid_.nx, s, nranks_);
        float* block = buffer + displs[s];
        for (int xl = 0; xl < nxs; ++xl)
            for (int yl = 0; yl < nyl_; ++yl, block += line) {
                float* here = transposed + (static_cast<std::size_t>(yl) * grid_.nx + xs0 + xl) * line;
                to_buffer ? std::copy(here, here + line, block) : std::copy(block, block + line, here);
            }
    }
}

// This rank's x-planes times its own y-lines, between planes_ and transposed_ in
// one copy: through a send buffer, MPI and a receive buffer it took three (at 2
// ranks half the transform).
void PmeSlabFft::move_own_block(bool to_transposed) {
    const std::size_t line = 2 * static_cast<std::size_t>(nzc_);
    float* planes = reinterpret_cast<float*>(planes_);
    float* transposed = reinterpret_cast<float*>(transposed_);
    for (int xl = 0; xl < nxl_; ++xl)
        for (int yl = 0; yl < nyl_; ++yl) {
            float* p = planes + (static_cast<std::size_t>(xl) * grid_.ny + y0_ + yl) * line;
            float* t = transposed + (static_cast<std::size_t>(yl) * grid_.nx + x0_ + xl) * line;
            to_transposed ? std::copy(p, p + line, t) : std::copy(t, t + line, p);
        }
}

void PmeSlabFft::transpose_to_y_slabs() {
    copy_plane_blocks(true, send_.data(), send_displs_);
    MPI_Alltoallv(send_.data(), send_counts_.data(), send_displs_.data(), MPI_FLOAT, recv_.data(), recv_counts_.data(),
                  recv_displs_.data(), MPI_FLOAT, comm_);
    move_own_block(true);
    copy_transposed_blocks(false, recv_.data(), recv_displs_);
}

// The inverse: the same blocks the other way, so the counts swap roles.
void PmeSlabFft::transpose_to_x_slabs() {
    copy_transposed_blocks(true, recv_.data(), recv_displs_);
    MPI_Alltoallv(recv_.data(), recv_counts_.data(), recv_displs_.data(), MPI_FLOAT, send_.data(), send_counts_.data(),
                  send_displs_.data(), MPI_FLOAT, comm_);
    move_own_block(false);
    copy_plane_blocks(false, send_.data(), send_displs_);
}

}  // namespace mdcore
