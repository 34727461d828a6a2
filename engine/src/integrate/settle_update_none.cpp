// The fused leap-frog + SETTLE kernel compiled for baseline x86-64 (SSE2) (flags set in engine/CMakeLists.txt).
#include "integrate/settle_update_kernel.h"

namespace mdcore {

double settle_update_none(const SettleUpdateArgs& args, int begin, int end, int* first_bad) {
    return settle_update_range(args, begin, end, first_bad);
}

}  // namespace mdcore
