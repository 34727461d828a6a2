#include "domdec/halo_exchange.h"

#include "domdec/mpi_exchange.h"

namespace mdcore {
namespace {
constexpr int kTagSetup = 200, kTagX = 210, kTagF = 220;
}

void HaloExchange::setup(LocalAtoms& local, const UpdateGroups& groups, const DdCell& cell, const Box& box,
                         double comm_distance, MPI_Comm comm) {
    comm_ = comm;
    pulses_.clear();
    for (int d = 0; d < 3; ++d) {
        if (!cell.decomposed(d)) continue;
        Pulse p;
        p.dim = d;
        p.to = cell.rank_below[d];
        p.from = cell.rank_above[d];
        p.shift = cell.index[d] == 0 ? box.lengths[d] : 0.0;
        std::vector<double> out, in;
        for (int g = 0; g < local.group_count(); ++g) {
            if (!(local.centre[g][d] - cell.lo[d] < comm_distance)) continue;
            Vec3 c = local.centre[g];
            c[d] += p.shift;
            out.insert(out.end(), {static_cast<double>(local.group[g]), static_cast<double>(local.group_zone[g]),
                                   c[0], c[1], c[2]});
            for (int a = local.group_begin[g]; a < local.group_begin[g + 1]; ++a) p.send.push_back(a);
        }
        sendrecv_sized(comm, p.to, p.from, out, in, kTagSetup + 2 * d);
        p.recv_begin = local.size();
        for (std::size_t at = 0; at < in.size(); at += 5) {
            const auto zone = static_cast<std::uint8_t>(static_cast<int>(in[at + 1]) | (1 << d));
            local.add_group(static_cast<int>(in[at]), groups, {in[at + 2], in[at + 3], in[at + 4]}, zone);
        }
        p.recv_count = local.size() - p.recv_begin;
        pulses_.push_back(std::move(p));
    }
    std::vector<char> sent(local.home_atoms, 0);
    for (const Pulse& p : pulses_)
        for (int a : p.send)
            if (a < local.home_atoms) sent[a] = 1;
    sent_home_.clear();
    for (int a = 0; a < local.home_atoms; ++a)
        if (sent[a]) sent_home_.push_back(a);
    // Coordinates follow the group lists (pulse by pulse: later pulses send on
    // what earlier ones received).
    std::vector<double> x(3 * local.size());
    for (int a = 0; a < local.home_atoms; ++a)
        for (int k = 0; k < 3; ++k) x[3 * a + k] = local.x[a][k];
    exchange_coordinates(x);
    local.x.resize(local.size());
    for (int a = local.home_atoms; a < local.size(); ++a) local.x[a] = {x[3 * a], x[3 * a + 1], x[3 * a + 2]};
}

void HaloExchange::exchange_coordinates(std::vector<double>& x) const {
    for (const Pulse& p : pulses_) {
        xbuf_.resize(3 * p.send.size());
        for (std::size_t i = 0; i < p.send.size(); ++i)
            for (int k = 0; k < 3; ++k) xbuf_[3 * i + k] = x[3 * p.send[i] + k] + (k == p.dim ? p.shift : 0.0);
        sendrecv_known(comm_, p.to, p.from, xbuf_.data(), static_cast<int>(xbuf_.size()), x.data() + 3 * p.recv_begin,
                       3 * p.recv_count, kTagX + p.dim);
    }
}

void HaloExchange::exchange_forces(std::vector<float>& f) const {
    for (auto it = pulses_.rbegin(); it != pulses_.rend(); ++it) {
        const Pulse& p = *it;
        fbuf_.resize(3 * p.send.size());
        // Reverse direction: our halo forces go back up, the forces on what we sent come from below.
        sendrecv_known(comm_, p.from, p.to, f.data() + 3 * p.recv_begin, 3 * p.recv_count, fbuf_.data(),
                       static_cast<int>(fbuf_.size()), kTagF + p.dim);
        for (std::size_t i = 0; i < p.send.size(); ++i)
            for (int k = 0; k < 3; ++k) f[3 * p.send[i] + k] += fbuf_[3 * i + k];
    }
}

int HaloExchange::halo_atoms() const {
    int n = 0;
    for (const Pulse& p : pulses_) n += p.recv_count;
    return n;
}

}  // namespace mdcore
