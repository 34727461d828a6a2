#pragma once
// std::vector with 64-byte aligned storage, for SIMD loads of atom data.
#include <cstddef>
#include <new>
#include <vector>

namespace mdcore {

template <class T>
struct AlignedAllocator {
    using value_type = T;
    static constexpr std::align_val_t kAlign{64};
    AlignedAllocator() = default;
    template <class U>
    AlignedAllocator(const AlignedAllocator<U>&) {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
    void deallocate(T* p, std::size_t) { ::operator delete(p, kAlign); }
    template <class U>
    bool operator==(const AlignedAllocator<U>&) const { return true; }
};

template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace mdcore
