// PME side of the PME-only ranks (pme_rank.h).
#include "domdec/pme_rank.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "domdec/pme_rank_protocol.h"
#include "pme/parallel_pme_mesh.h"

namespace mdcore {

namespace {

// The atoms of the PP ranks one PME rank serves, concatenated in PP rank order.
struct ServedAtoms {
    std::vector<int> clients;                 // world ranks
    std::vector<std::size_t> offset;          // first atom of each client; offset.back() = total
    std::vector<std::vector<double>> packed;  // per client: x, y, z, q as received
    std::vector<double> x, y, z, q;
    std::vector<float> fx, fy, fz;
};

// Receives one message from each client. Returns the number of stop messages.
int receive_step(MPI_Comm world, ServedAtoms& a) {
    int stops = 0;
    for (std::size_t c = 0; c < a.clients.size(); ++c) {
        MPI_Status status;
        MPI_Probe(a.clients[c], MPI_ANY_TAG, world, &status);
        if (status.MPI_TAG == kPmeTagStop) {
            MPI_Recv(nullptr, 0, MPI_DOUBLE, a.clients[c], kPmeTagStop, world, MPI_STATUS_IGNORE);
            a.packed[c].clear();
            ++stops;
            continue;
        }
        if (status.MPI_TAG != kPmeTagCoordinates)
            throw std::runtime_error("PME rank: unexpected message tag " + std::to_string(status.MPI_TAG) +
                                     " from world rank " + std::to_string(a.clients[c]));
        int count = 0;
        MPI_Get_count(&status, MPI_DOUBLE, &count);
        a.packed[c].resize(count);
        MPI_Recv(a.packed[c].data(), count, MPI_DOUBLE, a.clients[c], kPmeTagCoordinates, world, MPI_STATUS_IGNORE);
    }
    return stops;
}

void unpack(ServedAtoms& a) {
    a.offset.assign(1, 0);
    for (const auto& p : a.packed) a.offset.push_back(a.offset.back() + p.size() / 4);
    const std::size_t total = a.offset.back();
    for (auto* v : {&a.x, &a.y, &a.z, &a.q}) v->resize(total);
    for (auto* v : {&a.fx, &a.fy, &a.fz}) v->assign(total, 0.0f);
    for (std::size_t c = 0; c < a.packed.size(); ++c) {
        const std::size_t n = a.packed[c].size() / 4, o = a.offset[c];
        const double* in = a.packed[c].data();
        std::copy(in, in + n, a.x.begin() + o);
        std::copy(in + n, in + 2 * n, a.y.begin() + o);
        std::copy(in + 2 * n, in + 3 * n, a.z.begin() + o);
        std::copy(in + 3 * n, in + 4 * n, a.q.begin() + o);
    }
}

// Each client's forces (fx, fy, fz of its atoms) and the shared result, non-blocking.
void send_answers(MPI_Comm world, ServedAtoms& a, const MeshResult& r, std::vector<std::vector<float>>& forces) {
    double result[kPmeResultDoubles];
    result[0] = r.energy;
    std::copy(r.virial.begin(), r.virial.end(), result + 1);
    std::vector<MPI_Request> requests(2 * a.clients.size());
    forces.resize(a.clients.size());
    for (std::size_t c = 0; c < a.clients.size(); ++c) {
        const std::size_t n = a.offset[c + 1] - a.offset[c], o = a.offset[c];
        forces[c].resize(3 * n);
        std::copy(a.fx.begin() + o, a.fx.begin() + o + n, forces[c].begin());
        std::copy(a.fy.begin() + o, a.fy.begin() + o + n, forces[c].begin() + n);
        std::copy(a.fz.begin() + o, a.fz.begin() + o + n, forces[c].begin() + 2 * n);
        MPI_Isend(forces[c].data(), static_cast<int>(3 * n), MPI_FLOAT, a.clients[c], kPmeTagForces, world,
                  &requests[2 * c]);
        MPI_Isend(result, kPmeResultDoubles, MPI_DOUBLE, a.clients[c], kPmeTagResult, world, &requests[2 * c + 1]);
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

}  // namespace

void run_pme_rank(MPI_Comm world, MPI_Comm pme_comm, const PmeRankSetup& setup) {
    int world_size = 0, world_rank = 0, npme = 0, pme_rank = 0;
    MPI_Comm_size(world, &world_size);
    MPI_Comm_rank(world, &world_rank);
    MPI_Comm_size(pme_comm, &npme);
    MPI_Comm_rank(pme_comm, &pme_rank);
    check_pme_rank_layout(world_size, npme);
    const int n_pp = world_size - npme;
    if (n_pp != setup.n_pp_ranks || world_rank - n_pp != pme_rank)
        throw std::invalid_argument("run_pme_rank: world rank " + std::to_string(world_rank) + " of " +
                                    std::to_string(world_size) + " is PME rank " + std::to_string(pme_rank) + " of " +
                                    std::to_string(npme) + ", but setup says " + std::to_string(setup.n_pp_ranks) +
                                    " PP ranks (the PME ranks must be the last ones, in order)");
    ParallelPmeMesh mesh(pme_comm, setup.box, setup.grid, setup.order, setup.beta, setup.epsilon_r, setup.threads,
                         setup.simd);
    ServedAtoms atoms;
    for (int r = 0; r < n_pp; ++r)
        if (pme_index_serving(r, n_pp, npme) == pme_rank) atoms.clients.push_back(r);
    atoms.packed.resize(atoms.clients.size());
    std::vector<std::vector<float>> forces;
    for (;;) {
        const int stops = receive_step(world, atoms);
        // All PME ranks leave together or none does: the mesh is collective.
        int votes[2] = {stops, static_cast<int>(atoms.clients.size()) - stops}, all[2] = {0, 0};
        MPI_Allreduce(votes, all, 2, MPI_INT, MPI_SUM, pme_comm);
        if (all[0] > 0 && all[1] > 0)
            throw std::runtime_error("PME rank: " + std::to_string(all[0]) + " PP ranks stopped while " +
                                     std::to_string(all[1]) + " sent coordinates in the same step");
        if (all[0] > 0) return;
        unpack(atoms);
        const MeshResult r = mesh.compute(atoms.x.size(), atoms.x.data(), atoms.y.data(), atoms.z.data(),
                                          atoms.q.data(), atoms.fx.data(), atoms.fy.data(), atoms.fz.data());
        send_answers(world, atoms, r, forces);
    }
}

}  // namespace mdcore
