// The one child-process launcher (core/process): output caps that never block
// the child, timeouts that take the whole group down, the death signal that ends
// a child whose launcher was SIGKILLed; shell-like splitting of launcher
// prefixes; process identity for sweep ownership.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "../common/process_probe.h"
#include "mdtune/process/command_line.h"
#include "mdtune/process/digest.h"
#include "mdtune/process/identity.h"
#include "mdtune/process/launcher.h"
#include "mdtune/process/stop_signals.h"

namespace mdtune::process {
namespace {

using Words = std::vector<std::string>;

using mdtest::ends_within;

TEST(SplitCommandLine, WordsQuotesAndEscapes) {
    EXPECT_EQ(split_command_line("  mpirun  -np 2\t--oversubscribe "), (Words{"mpirun", "-np", "2", "--oversubscribe"}));
    EXPECT_EQ(split_command_line("srun --export='A=b c' x"), (Words{"srun", "--export=A=b c", "x"}));
    EXPECT_EQ(split_command_line(R"(a "b \"c\" \\ \$HOME \n" d)"), (Words{"a", R"(b "c" \ $HOME \n)", "d"}));
    EXPECT_EQ(split_command_line(R"(one\ word 'it''s' "" '')"), (Words{"one word", "its", "", ""}));
    EXPECT_EQ(split_command_line("'$(rm -rf x)' `y` ;|&"), (Words{"$(rm -rf x)", "`y`", ";|&"}));
    EXPECT_EQ(split_command_line(""), Words{});
}

TEST(SplitCommandLine, UnbalancedQuotesNameThePosition) {
    try {
        split_command_line("mpirun -x 'A=b");
        FAIL() << "accepted an unbalanced quote";
    } catch (const CommandLineError& e) {
        EXPECT_NE(std::string(e.what()).find("unbalanced ' quote at character 11"), std::string::npos) << e.what();
    }
    EXPECT_THROW(split_command_line("a \"b"), CommandLineError);
    EXPECT_THROW(split_command_line("a b\\"), CommandLineError);
}

TEST(Launcher, CapturesStdoutAndPassesTheEnvironment) {
    LaunchOptions o;
    o.env = {{"MDT_LAUNCHER_TEST", "a b"}};
    const LaunchResult r = launch({"sh", "-c", "printf '%s' \"$MDT_LAUNCHER_TEST\"; echo oops >&2; exit 3"}, o);
    EXPECT_EQ(r.stdout_text, "a b");
    EXPECT_EQ(r.stderr_tail, "oops\n");
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.describe(), "exit code 3");
    EXPECT_FALSE(r.exited_ok());
}

TEST(Launcher, KeepsOnlyTheCapOfAFloodAndDrainsTheRest) {
    LaunchOptions o;
    o.stdout_limit = 1000;
    o.stderr_tail_bytes = 100;
    const LaunchResult r =
        launch({"sh", "-c", "head -c 3000000 /dev/zero; head -c 500000 /dev/zero >&2; echo last >&2"}, o);
    EXPECT_TRUE(r.exited_ok()) << r.describe();  // drained to the end: the child never blocked
    EXPECT_TRUE(r.stdout_overflow);
    EXPECT_EQ(r.stdout_text.size(), 1000u);
    EXPECT_EQ(r.stdout_bytes, 3000000u);
    EXPECT_EQ(r.stderr_tail.size(), 100u);
    EXPECT_EQ(r.stderr_tail.substr(95), "last\n");
}

TEST(Launcher, AnEndlessFloodEndsAtTheTimeout) {
    LaunchOptions o;
    o.stdout_limit = 4096;
    o.timeout_s = 0.5;
    const LaunchResult r = launch({"yes"}, o);
    EXPECT_TRUE(r.timed_out);
    EXPECT_TRUE(r.stdout_overflow);
    EXPECT_EQ(r.stdout_text.size(), 4096u);
    EXPECT_GT(r.stdout_bytes, 40960u);
}

TEST(Launcher, StreamsLinesAndDropsOverlongOnes) {
    LaunchOptions o;
    o.out = StdoutMode::Lines;
    o.stdout_limit = 10;
    Words lines;
    o.on_line = [&](const std::string& l) { lines.push_back(l); };
    const LaunchResult r = launch({"sh", "-c", "echo a; printf 'bbbbbbbbbbbbbbbbbbbbbbbb\\nc\\nd'"}, o);
    EXPECT_TRUE(r.exited_ok());
    EXPECT_TRUE(r.stdout_overflow);
    EXPECT_EQ(lines, (Words{"a", "c", "d"}));
}

TEST(Launcher, TimeoutKillsTheWholeGroup) {
    LaunchOptions o;
    o.out = StdoutMode::Lines;
    o.timeout_s = 0.5;
    o.grace_s = 0.2;
    long grandchild = 0;
    o.on_line = [&](const std::string& l) { grandchild = std::stol(l); };
    // The shell ignores SIGTERM, its background sleep holds the group: SIGKILL must follow.
    const LaunchResult r = launch({"sh", "-c", "trap '' TERM; sleep 30 & echo $!; wait; wait"}, o);
    EXPECT_TRUE(r.timed_out);
    ASSERT_GT(grandchild, 0);
    EXPECT_TRUE(ends_within(grandchild, std::chrono::seconds(5)));
}

TEST(Launcher, StopRequestInterrupts) {
    LaunchOptions o;
    const auto start = std::chrono::steady_clock::now();
    o.stop = [&] { return std::chrono::steady_clock::now() - start > std::chrono::milliseconds(300); };
    const LaunchResult r = launch({"sleep", "30"}, o);
    EXPECT_TRUE(r.interrupted);
    EXPECT_EQ(r.describe(), "interrupted");
}

TEST(Launcher, AProgramThatCannotStartIsAnErrorNamingIt) {
    try {
        launch({"/nonexistent/mdcore", "run"});
        FAIL() << "started a missing program";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot run '/nonexistent/mdcore'"), std::string::npos) << e.what();
    }
}

TEST(Launcher, ReportsTheSignalThatKilledTheChild) {
    const LaunchResult r = launch({"sh", "-c", "kill -SEGV $$"});
    EXPECT_EQ(r.signal, SIGSEGV);
    EXPECT_NE(r.describe().find("signal 11"), std::string::npos) << r.describe();
}

// A launcher SIGKILLed mid-run (nobody left to time its child out) takes the child with it.
TEST(Launcher, ChildDiesWithItsSigkilledLauncher) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t launcher = fork();
    ASSERT_GE(launcher, 0);
    if (launcher == 0) {
        close(fds[0]);
        LaunchOptions o;
        o.out = StdoutMode::Lines;
        o.on_line = [&](const std::string& pid) { (void)!write(fds[1], pid.data(), pid.size()); close(fds[1]); };
        launch({"sh", "-c", "echo $$; exec sleep 30"}, o);
        _exit(0);
    }
    close(fds[1]);
    char buf[32] = {};
    const ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    ASSERT_GT(n, 0);
    const long child = std::stol(buf);
    EXPECT_FALSE(ends_within(child, std::chrono::milliseconds(100))) << "the child should still run";
    kill(launcher, SIGKILL);
    waitpid(launcher, nullptr, 0);
    EXPECT_TRUE(ends_within(child, std::chrono::seconds(5))) << "child " << child << " outlived its launcher";
    kill(static_cast<pid_t>(child), SIGKILL);  // do not leave it behind if the test failed
}

TEST(ProcessIdentity, TellsRunningFromGoneAndUnknown) {
    const ProcessIdentity self = current_process();
    EXPECT_EQ(self.pid, static_cast<long>(getpid()));
    EXPECT_FALSE(self.start.empty());
    EXPECT_EQ(liveness(self), Liveness::Alive);
    ProcessIdentity reused = self;
    reused.start += "0";  // same pid, another process (a reused pid)
    EXPECT_EQ(liveness(reused), Liveness::Gone);
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t child = fork();
    if (child == 0) {
        close(fds[1]);  // only the parent's end keeps it open
        char c;
        (void)!read(fds[0], &c, 1);  // runs until the test closes the pipe
        _exit(0);
    }
    close(fds[0]);
    const ProcessIdentity of_child = process_on_this_host(child);
    EXPECT_EQ(liveness(of_child), Liveness::Alive);
    close(fds[1]);
    waitpid(child, nullptr, 0);
    EXPECT_EQ(liveness(of_child), Liveness::Gone);
    ProcessIdentity elsewhere = self;
    elsewhere.host = "another-host.example";
    EXPECT_EQ(liveness(elsewhere), Liveness::Unknown);
}

// Ids stored in existing databases depend on these values: the published FNV-1a 64
// vectors (hardware ids) and the same function from the ids' own offset basis.
TEST(Digest, MatchesFnv1aVectorsForBothOffsetBases) {
    EXPECT_EQ(fnv1a_hex("", kFnvOffsetBasis), "cbf29ce484222325");
    EXPECT_EQ(fnv1a_hex("a", kFnvOffsetBasis), "af63dc4c8601ec8c");
    EXPECT_EQ(fnv1a_hex("foobar", kFnvOffsetBasis), "85944171f73967e8");
    EXPECT_EQ(fnv1a_hex(""), "14650fb0739d0383");
    EXPECT_EQ(fnv1a_hex("a"), "44bd8ad473cd9906");
    Fnv1a pieces;  // streaming gives the digest of the concatenation
    pieces.update("foo");
    pieces.update("bar");
    EXPECT_EQ(pieces.hex(), fnv1a_hex("foobar"));
}

// In a child, so the process-wide flag stays clear for the other tests.
TEST(StopSignals, SigintAndSigtermSetTheFlagInsteadOfKilling) {
    for (int sig : {SIGINT, SIGTERM}) {
        const pid_t child = fork();
        if (child == 0) {
            if (stop_requested()) _exit(3);
            stop_on_signals();
            raise(sig);
            _exit(stop_requested() ? 0 : 4);
        }
        int status = 0;
        ASSERT_EQ(waitpid(child, &status, 0), child);
        ASSERT_TRUE(WIFEXITED(status)) << "signal " << sig << " killed the process";
        EXPECT_EQ(WEXITSTATUS(status), 0) << "signal " << sig;
    }
}

}  // namespace
}  // namespace mdtune::process
