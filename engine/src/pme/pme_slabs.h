#pragma once
// How the slab-decomposed mesh splits a grid dimension of n planes over P ranks: rank
// r owns [begin(r), begin(r+1)), as even as integers allow (sizes differ by at most
// one; 3 ranks on 32 planes own 10, 11, 11).
namespace mdcore {

inline int pme_slab_begin(int n, int rank, int nranks) {
    return static_cast<int>(static_cast<long>(n) * rank / nranks);
}

inline int pme_slab_size(int n, int rank, int nranks) {
    return pme_slab_begin(n, rank + 1, nranks) - pme_slab_begin(n, rank, nranks);
}

}  // namespace mdcore
