// Thread pinning plans (util/thread_pinning.h): which CPU each thread gets, when
// auto pins, and the refusal of a --pin on that does not fit. Pure planning, so
// the test runs the same on any machine; the CLI test runs a pinned mdcore.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "util/thread_pinning.h"

namespace mdcore {
namespace {

PinContext node(std::vector<int> allowed, int online, int local_rank = 0, int local_ranks = 1) {
    return {std::move(allowed), online, local_rank, local_ranks};
}

TEST(ThreadPinning, OffNeverPins) {
    const ThreadStats s = plan_pinning(PinMode::Off, 2, 0, node({0, 1}, 2));
    EXPECT_FALSE(s.pinned);
    EXPECT_TRUE(s.cpus.empty());
    EXPECT_EQ(s.pin, PinMode::Off);
}

TEST(ThreadPinning, AutoPinsOnlyWhenTheThreadsFillEveryCpu) {
    ThreadStats s = plan_pinning(PinMode::Auto, 4, 0, node({0, 1, 2, 3}, 4));
    EXPECT_TRUE(s.pinned);
    EXPECT_EQ(s.cpus, (std::vector<int>{0, 1, 2, 3}));
    s = plan_pinning(PinMode::Auto, 2, 0, node({0, 1, 2, 3}, 4));
    EXPECT_FALSE(s.pinned);
    EXPECT_NE(s.pin_note.find("2 threads on 4 CPUs"), std::string::npos) << s.pin_note;
    // Two ranks of two threads fill the node: rank 1 takes the upper half.
    s = plan_pinning(PinMode::Auto, 2, 0, node({0, 1, 2, 3}, 4, 1, 2));
    EXPECT_TRUE(s.pinned);
    EXPECT_EQ(s.cpus, (std::vector<int>{2, 3}));
    // An offset is a request auto does not guess at.
    EXPECT_FALSE(plan_pinning(PinMode::Auto, 2, 2, node({0, 1, 2, 3}, 4)).pinned);
}

TEST(ThreadPinning, OnHonoursTheOffsetAndTheLaunchersMask) {
    ThreadStats s = plan_pinning(PinMode::On, 2, 1, node({0, 1, 2, 3}, 4));
    EXPECT_TRUE(s.pinned);
    EXPECT_EQ(s.cpus, (std::vector<int>{1, 2}));
    // mpirun gave this rank CPUs 4-5 of 8: its threads go there, whatever its local rank.
    s = plan_pinning(PinMode::On, 2, 0, node({4, 5}, 8, 3, 4));
    EXPECT_TRUE(s.pinned);
    EXPECT_EQ(s.cpus, (std::vector<int>{4, 5}));
    EXPECT_TRUE(plan_pinning(PinMode::Auto, 2, 0, node({4, 5}, 8, 3, 4)).pinned);
}

TEST(ThreadPinning, OnThatDoesNotFitIsRefusedNamingTheCpus) {
    try {
        plan_pinning(PinMode::On, 2, 1, node({0, 1}, 2));
        FAIL() << "2 threads from CPU 1 do not fit on 2 CPUs";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("--pin on"), std::string::npos) << what;
        EXPECT_NE(what.find("need 3 CPUs"), std::string::npos) << what;
        EXPECT_NE(what.find("may use 2"), std::string::npos) << what;
    }
    // Local rank 1 of 2 with 2 threads each needs 4 CPUs.
    EXPECT_THROW(plan_pinning(PinMode::On, 2, 0, node({0, 1, 2}, 3, 1, 2)), std::invalid_argument);
}

}  // namespace
}  // namespace mdcore
