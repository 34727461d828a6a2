#pragma once
// The halo of a rank under the eighth-shell zone scheme: along each decomposed
// dimension in turn (x, y, z; one pulse each) a rank sends to its neighbour
// below the groups (home and halo received so far) whose centre lies within the
// communication distance above its lower cell face, shifted by the box edge when
// the face is the box's; so a rank receives the zones of the up to 7 cells above
// it. Send lists are built at search steps; coordinates go out every step in
// pulse order, forces come back in reverse order and are added to the senders.
// Collective over the PP communicator.
#include <mpi.h>

#include <vector>

#include "domdec/dd_cell.h"
#include "domdec/local_atoms.h"

namespace mdcore {

class HaloExchange {
public:
    // Appends the halo groups to `local` (zones, centres, local x) from the
    // home groups it holds.
    void setup(LocalAtoms& local, const UpdateGroups& groups, const DdCell& cell, const Box& box,
               double comm_distance, MPI_Comm comm);
    // x: 3 per local atom, local frame; the home part is read, the halo part written.
    void exchange_coordinates(std::vector<double>& x) const;
    // f: 3 per local atom; halo forces are sent back and added to the atoms they
    // came from (halo parts of earlier pulses included, which send them on).
    void exchange_forces(std::vector<float>& f) const;
    // Halo atoms received in all pulses.
    int halo_atoms() const;
    // The home atoms some pulse sends, ascending: the only home coordinates
    // exchange_coordinates() reads and the only home forces exchange_forces() changes.
    const std::vector<int>& sent_home_atoms() const { return sent_home_; }

private:
    struct Pulse {
        int dim = 0;
        int to = 0, from = 0;       // rank below (receives), rank above (sends to us)
        double shift = 0;           // added to coordinates sent along dim
        std::vector<int> send;      // local atoms
        int recv_begin = 0, recv_count = 0;
    };
    std::vector<Pulse> pulses_;
    std::vector<int> sent_home_;
    MPI_Comm comm_ = MPI_COMM_NULL;
    mutable std::vector<double> xbuf_;
    mutable std::vector<float> fbuf_;
};

}  // namespace mdcore
