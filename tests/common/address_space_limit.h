#pragma once
// A small machine in a test: `mdtest::AddressSpaceLimit limit(256 << 20);` leaves ~256 MiB (ulimit -v) until scope end.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <fstream>
#include <string>

namespace mdtest {

// Sets RLIMIT_AS to what this process maps now plus `headroom_bytes`; restores the old limit on destruction.
class AddressSpaceLimit {
public:
    explicit AddressSpaceLimit(double headroom_bytes) {
        EXPECT_EQ(getrlimit(RLIMIT_AS, &saved_), 0);
        std::ifstream status("/proc/self/status");
        std::string key;
        double mapped_kb = 0;
        while (status >> key && key != "VmSize:") status.ignore(1 << 20, '\n');
        EXPECT_TRUE(status >> mapped_kb) << "no VmSize in /proc/self/status";
        rlimit tight = saved_;
        tight.rlim_cur = static_cast<rlim_t>(mapped_kb * 1024 + headroom_bytes);
        EXPECT_EQ(setrlimit(RLIMIT_AS, &tight), 0);
    }
    ~AddressSpaceLimit() { EXPECT_EQ(setrlimit(RLIMIT_AS, &saved_), 0); }
    AddressSpaceLimit(const AddressSpaceLimit&) = delete;
    AddressSpaceLimit& operator=(const AddressSpaceLimit&) = delete;

private:
    rlimit saved_{};
};

}  // namespace mdtest
