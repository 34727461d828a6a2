#pragma once
// The messages between PP ranks and PME-only ranks on the world communicator, and
// who serves whom. The last npme ranks of world are the PME ranks; PP rank r (world
// rank r < n_pp) is served by PME rank r * npme / n_pp (0-based among the PME ranks),
// so each PME rank serves a contiguous block of PP ranks of sizes differing by <= 1.
//
// Per step: PP -> PME   kPmeTagCoordinates  double[4n]: x[n], y[n], z[n], q[n]
//           PME -> PP   kPmeTagForces       float[3n]:  fx[n], fy[n], fz[n]
//           PME -> PP   kPmeTagResult       double[10]: energy, virial (3x3 row-major)
// End:      PP -> PME   kPmeTagStop         no data
// The tags sit near the top of the range MPI guarantees (MPI_TAG_UB >= 32767), far
// from the small numbers other point-to-point traffic on world would use.
namespace mdcore {

inline constexpr int kPmeTagCoordinates = 32001;
inline constexpr int kPmeTagStop = 32002;
inline constexpr int kPmeTagForces = 32003;
inline constexpr int kPmeTagResult = 32004;
inline constexpr int kPmeResultDoubles = 10;

// 0-based index among the PME ranks of the rank serving PP rank pp_rank.
inline int pme_index_serving(int pp_rank, int n_pp, int npme) {
    return static_cast<int>(static_cast<long>(pp_rank) * npme / n_pp);
}

// The layout rule both sides check: 1 <= npme <= world_size - npme (the PP ranks).
// Throws std::invalid_argument naming npme, the rank count and the limit.
void check_pme_rank_layout(int world_size, int npme);

}  // namespace mdcore
