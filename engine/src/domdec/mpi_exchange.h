#pragma once
// Point-to-point helpers of the domain decomposition (MPI builds only).
#include <mpi.h>

#include <vector>

namespace mdcore {

template <class T>
MPI_Datatype mpi_type();
template <>
inline MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }
template <>
inline MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }

// Sends `send` to rank `to` and receives from rank `from` a buffer whose size
// the sender decides (the count travels first). `to` and `from` may be the same
// rank, or this one.
template <class T>
void sendrecv_sized(MPI_Comm comm, int to, int from, const std::vector<T>& send, std::vector<T>& recv, int tag) {
    int count_out = static_cast<int>(send.size()), count_in = 0;
    MPI_Sendrecv(&count_out, 1, MPI_INT, to, tag, &count_in, 1, MPI_INT, from, tag, comm, MPI_STATUS_IGNORE);
    recv.resize(count_in);
    MPI_Sendrecv(send.data(), count_out, mpi_type<T>(), to, tag + 1, recv.data(), count_in, mpi_type<T>(), from,
                 tag + 1, comm, MPI_STATUS_IGNORE);
}

// Same with the receive size known in advance (per-step halo traffic).
template <class T>
void sendrecv_known(MPI_Comm comm, int to, int from, const T* send, int count_out, T* recv, int count_in, int tag) {
    MPI_Sendrecv(send, count_out, mpi_type<T>(), to, tag, recv, count_in, mpi_type<T>(), from, tag, comm,
                 MPI_STATUS_IGNORE);
}

}  // namespace mdcore
