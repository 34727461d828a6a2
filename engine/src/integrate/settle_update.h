#pragma once
// The MD step's update for systems with rigid water: leap-frog and SETTLE fused
// into one pass over the molecules, kLanes molecules at a time in
// structure-of-arrays blocks the compiler vectorises. The state and the
// leap-frog are double; SETTLE solves in float on vectors relative to the
// reference O, as GROMACS' mixed precision does, and its correction is added
// back in double (positions within ~3e-8 nm of the all-double reference,
// distances to ~3e-7 relative; float division and square root run at twice
// the lanes and several times the rate). Per molecule it reads x(t),
// v(t-dt/2), F(t) once and writes x(t+dt), v(t+dt/2) and the kinetic energy:
// no reference copy and no unconstrained intermediate. The float copies of the
// positions follow in a contiguous pass. Molecules may straddle the periodic
// boundary (each H is taken at the image nearest its O and stays in its own
// image). settle_positions() is the double-precision oracle.
#include <vector>

#include "integrate/leapfrog.h"
#include "integrate/settle.h"
#include "mdcore/run_config.h"
#include "mdcore/system.h"
#include "timing/thread_waits.h"
#include "util/thread_balance.h"

namespace mdcore {

// Molecules in slot order of their O (neighbouring molecules share cache lines)
// and the real atoms no SETTLE covers (ions), rebuilt at each search.
struct SettleUpdateList {
    std::vector<SettleTriple> molecules;  // slots
    std::vector<int> molecule_index;      // index in System::settles, for messages
    std::vector<int> free_slots;
};

// atom_role[a]: the SETTLE index when atom a is a SETTLE's O, kCoveredH for its
// H atoms, kFreeAtom otherwise. order[slot] = atom or -1 (padding).
// Built by num_threads threads; the list does not depend on their number.
inline constexpr int kFreeAtom = -1;
inline constexpr int kCoveredH = -2;
std::vector<int> settle_atom_roles(std::size_t natoms, const std::vector<Settle>& settles);
void build_settle_update_list(const std::vector<int>& order, const std::vector<int>& slot_of,
                              const std::vector<int>& atom_role, const std::vector<Settle>& settles,
                              SettleUpdateList& list, int num_threads = 1);

// Everything one kernel call reads and writes.
struct SettleUpdateArgs {
    SettleGeometry geometry;
    const SettleTriple* molecules;
    const int* molecule_index;  // names for messages; null: positions in `molecules`
    SortedState* state;
    double box[3];
    double dt, lambda;
};

// Updates molecules [begin, end) of args.molecules; returns their 2 KE. Sets
// *first_bad to the lowest name of a molecule there SETTLE could not solve (it is
// left unconstrained), -1 when all were solved.
using SettleUpdateKernel = double (*)(const SettleUpdateArgs& args, int begin, int end, int* first_bad);
// The instance compiled for `level` (None, Avx2 or Avx512; the caller checked the CPU).
SettleUpdateKernel settle_update_kernel(SimdLevel level);

// Leap-frog with velocity scaling lambda + SETTLE for list.molecules, plain
// leap-frog for list.free_slots (padding slots are left alone); returns 2 KE.
// When `out` is given, it then receives the float copy of every slot, padding
// included. box: the 3 edges. One parallel region, molecules split evenly over threads;
// deterministic for a thread count. Throws std::runtime_error naming the
// molecule (System::settles index) when SETTLE has no solution. The threads'
// wait at the end goes to `waits` when given. `shares` (null: even) splits the
// molecules over the threads and learns from the call's times; the positions
// and velocities do not depend on the split, the returned sum to float rounding.
double leapfrog_settle_update(const SettleParameters& p, const SettleUpdateList& list, SortedState& s,
                              FloatCoordinates out, const double* box, double dt, double lambda, SimdLevel level,
                              int num_threads, ThreadWaits* waits = nullptr, ThreadShares* shares = nullptr);

}  // namespace mdcore
