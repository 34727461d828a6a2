// mpi_collectives: OSU-style latency benchmark of one MPI collective over a list
// of message sizes, for mdtune's collective tuning. Which Open MPI algorithm runs
// is decided outside (coll_tuned_* MCA parameters, read once at MPI_Init), so the
// tuner launches one mpirun per (collective, algorithm); this program only checks
// through MPI_T that the parameters it is labelled with are really in effect.
//
// Per size: a verification call on poisoned buffers, warm-up, then timed calls
// each started after a barrier (as OSU does); latency min/avg/max over ranks of
// each rank's mean, and the median over iterations of the slowest rank's time;
// the result of the last timed call is checked again. Rank 0 writes JSON lines.
//
// Everything auxiliary (agreement, gathering timings, node layout) uses
// point-to-point messages: the forced algorithm under test may be unsupported for
// this communicator size and must not break the bookkeeping.
// The C API only: the C++ bindings are deprecated and noisy.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mdtune/models/mpi_catalog.h"
#include "mpi_collectives_options.h"

namespace {

using mdtune::models::mpi::Collective;
using nlohmann::json;
using mpi_collectives::ArgError;
using mpi_collectives::kUsage;
using mpi_collectives::Options;
using mpi_collectives::parse;
using mpi_collectives::wants_help;

// ---- point-to-point bookkeeping (never the collective under test) ----------

constexpr int kTagAgree = 31001, kTagTimes = 31002, kTagHost = 31003, kTagIters = 31004;

struct World {
    int rank = 0, size = 1;
};

// True on every rank when `ok` is true on every rank.
bool all_true(const World& w, bool ok) {
    int v = ok ? 1 : 0;
    if (w.rank == 0) {
        for (int r = 1; r < w.size; ++r) {
            int x = 0;
            MPI_Recv(&x, 1, MPI_INT, r, kTagAgree, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            v = v && x;
        }
        for (int r = 1; r < w.size; ++r) MPI_Send(&v, 1, MPI_INT, r, kTagAgree, MPI_COMM_WORLD);
    } else {
        MPI_Send(&v, 1, MPI_INT, 0, kTagAgree, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 0, kTagAgree, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return v != 0;
}

long share_long(const World& w, long v) {
    if (w.rank == 0) {
        for (int r = 1; r < w.size; ++r) MPI_Send(&v, 1, MPI_LONG, r, kTagIters, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&v, 1, MPI_LONG, 0, kTagIters, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return v;
}

// Every rank's timings at rank 0 (empty elsewhere).
std::vector<std::vector<double>> gather_times(const World& w, const std::vector<double>& mine) {
    std::vector<std::vector<double>> all;
    if (w.rank == 0) {
        all.push_back(mine);
        for (int r = 1; r < w.size; ++r) {
            std::vector<double> t(mine.size());
            MPI_Recv(t.data(), static_cast<int>(t.size()), MPI_DOUBLE, r, kTagTimes, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            all.push_back(std::move(t));
        }
    } else {
        MPI_Send(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, 0, kTagTimes, MPI_COMM_WORLD);
    }
    return all;
}

struct Layout {
    int nodes = 1, ppn = 1;
    bool uniform = true;
};

// Nodes and ranks per node from processor names (no communicator creation:
// MPI_Comm_split_type would run the allgather/allreduce under test).
Layout node_layout(const World& w) {
    char name[MPI_MAX_PROCESSOR_NAME + 1] = {};
    int len = 0;
    MPI_Get_processor_name(name, &len);
    Layout l;
    if (w.rank == 0) {
        std::map<std::string, int> per_node{{std::string(name, static_cast<std::size_t>(len)), 1}};
        for (int r = 1; r < w.size; ++r) {
            char other[MPI_MAX_PROCESSOR_NAME + 1] = {};
            MPI_Status st;
            MPI_Recv(other, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, r, kTagHost, MPI_COMM_WORLD, &st);
            int n = 0;
            MPI_Get_count(&st, MPI_CHAR, &n);
            ++per_node[std::string(other, static_cast<std::size_t>(n))];
        }
        l.nodes = static_cast<int>(per_node.size());
        for (const auto& [host, n] : per_node) {
            l.uniform = l.uniform && n == per_node.begin()->second;
            l.ppn = std::max(l.ppn, n);
        }
    } else {
        MPI_Send(name, len, MPI_CHAR, 0, kTagHost, MPI_COMM_WORLD);
    }
    return l;
}

// ---- MPI_T: the MCA parameters actually in effect ---------------------------

struct CvarValue {
    bool found = false;
    long number = 0;
    std::string text;
    bool is_text = false;
};

CvarValue read_cvar(const std::string& name) {
    CvarValue v;
    int index = 0;
    if (MPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS) return v;
    char nm[256], desc[1024];
    int nlen = sizeof nm, dlen = sizeof desc, verbosity = 0, bind = 0, scope = 0;
    MPI_Datatype dtype;
    MPI_T_enum enumtype;
    if (MPI_T_cvar_get_info(index, nm, &nlen, &verbosity, &dtype, &enumtype, desc, &dlen, &bind, &scope) != MPI_SUCCESS)
        return v;
    MPI_T_cvar_handle handle;
    int count = 0;
    if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) return v;
    if (dtype == MPI_CHAR) {
        std::vector<char> buf(static_cast<std::size_t>(std::max(count, 1)) + 1, '\0');
        if (MPI_T_cvar_read(handle, buf.data()) == MPI_SUCCESS) {
            v.found = true;
            v.is_text = true;
            v.text = buf.data();
        }
    } else if (dtype == MPI_INT || dtype == MPI_UNSIGNED) {
        int x = 0;
        if (MPI_T_cvar_read(handle, &x) == MPI_SUCCESS) v = {true, x, "", false};
    } else if (dtype == MPI_C_BOOL) {
        unsigned char x[8] = {};  // Open MPI stores bool variables as C bool
        if (MPI_T_cvar_read(handle, x) == MPI_SUCCESS) v = {true, x[0] ? 1 : 0, "", false};
    } else if (dtype == MPI_LONG || dtype == MPI_UNSIGNED_LONG || dtype == MPI_LONG_LONG ||
               dtype == MPI_UNSIGNED_LONG_LONG) {
        long long x = 0;
        if (MPI_T_cvar_read(handle, &x) == MPI_SUCCESS) v = {true, static_cast<long>(x), "", false};
    }
    MPI_T_cvar_handle_free(&handle);
    return v;
}

// Checks the MCA settings against the label; returns "" when they agree,
// "unavailable" when this MPI has no coll_tuned variables, else the mismatch.
std::string check_mca(const Options& o, json& mca) {
    const std::string c(mdtune::models::mpi::name(o.collective));
    const CvarValue dyn = read_cvar("coll_tuned_use_dynamic_rules");
    const CvarValue alg = read_cvar("coll_tuned_" + c + "_algorithm");
    const CvarValue seg = read_cvar("coll_tuned_" + c + "_algorithm_segmentsize");
    const CvarValue file = read_cvar("coll_tuned_dynamic_rules_filename");
    if (dyn.found) mca["coll_tuned_use_dynamic_rules"] = dyn.number;
    if (alg.found) mca["coll_tuned_" + c + "_algorithm"] = alg.number;
    if (seg.found) mca["coll_tuned_" + c + "_algorithm_segmentsize"] = seg.number;
    if (file.found) mca["coll_tuned_dynamic_rules_filename"] = file.text;
    if (!dyn.found || !alg.found) return "unavailable";
    if (o.selection == "forced") {
        if (dyn.number != 1) return "coll_tuned_use_dynamic_rules is not 1";
        if (alg.number != o.algorithm)
            return "coll_tuned_" + c + "_algorithm is " + std::to_string(alg.number) + ", labelled " +
                   std::to_string(o.algorithm);
        if (o.segsize && seg.found && seg.number != *o.segsize)
            return "segment size is " + std::to_string(seg.number) + ", labelled " + std::to_string(*o.segsize);
    } else if (o.selection == "rules") {
        if (dyn.number != 1) return "coll_tuned_use_dynamic_rules is not 1";
        if (alg.number != 0) return "an algorithm is forced while testing a rules file";
        if (!file.found || file.text.empty()) return "no coll_tuned_dynamic_rules_filename";
    } else if (dyn.number != 0 && alg.number != 0) {
        return "an algorithm is forced while measuring Open MPI's default";
    }
    return "";
}

// ---- the collectives --------------------------------------------------------

inline unsigned char pattern(int a, int b, std::uint64_t j) {
    return static_cast<unsigned char>((a * 131 + b * 31 + static_cast<long>(j % 251) * 7 + 1) & 0xFF);
}
inline int reduce_input(int rank, std::uint64_t i) { return (rank + 1) * static_cast<int>(i % 1021 + 1); }

class Bench {
public:
    virtual ~Bench() = default;
    virtual void prepare(std::uint64_t bytes) = 0;  // allocate and fill inputs
    virtual void poison() = 0;                      // make stale outputs detectable
    virtual int call() = 0;
    virtual bool check() const = 0;
    virtual std::uint64_t bytes() const = 0;        // the size actually moved (mdtune's convention)
};

class AllreduceBench : public Bench {
public:
    explicit AllreduceBench(World w) : w_(w) {}
    void prepare(std::uint64_t bytes) override {
        n_ = std::max<std::uint64_t>(1, bytes / sizeof(int));
        send_.resize(n_);
        recv_.resize(n_);
        for (std::uint64_t i = 0; i < n_; ++i) send_[i] = reduce_input(w_.rank, i);
    }
    void poison() override { std::fill(recv_.begin(), recv_.end(), -1); }
    int call() override {
        return MPI_Allreduce(send_.data(), recv_.data(), static_cast<int>(n_), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    bool check() const override {
        const int ranks_sum = w_.size * (w_.size + 1) / 2;  // sum of rank+1
        for (std::uint64_t i = 0; i < n_; ++i)
            if (recv_[i] != static_cast<int>(i % 1021 + 1) * ranks_sum) return false;
        return true;
    }
    std::uint64_t bytes() const override { return n_ * sizeof(int); }

private:
    World w_;
    std::uint64_t n_ = 0;
    std::vector<int> send_, recv_;
};

class ReduceScatterBench : public Bench {
public:
    explicit ReduceScatterBench(World w) : w_(w) {}
    void prepare(std::uint64_t bytes) override {
        block_ = std::max<std::uint64_t>(1, bytes / sizeof(int) / static_cast<std::uint64_t>(w_.size));
        const std::uint64_t n = block_ * static_cast<std::uint64_t>(w_.size);
        send_.resize(n);
        recv_.resize(block_);
        counts_.assign(static_cast<std::size_t>(w_.size), static_cast<int>(block_));
        for (std::uint64_t i = 0; i < n; ++i) send_[i] = reduce_input(w_.rank, i);
    }
    void poison() override { std::fill(recv_.begin(), recv_.end(), -1); }
    int call() override {
        return MPI_Reduce_scatter(send_.data(), recv_.data(), counts_.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    bool check() const override {
        const int ranks_sum = w_.size * (w_.size + 1) / 2;
        for (std::uint64_t j = 0; j < block_; ++j) {
            const std::uint64_t i = static_cast<std::uint64_t>(w_.rank) * block_ + j;
            if (recv_[j] != static_cast<int>(i % 1021 + 1) * ranks_sum) return false;
        }
        return true;
    }
    std::uint64_t bytes() const override { return send_.size() * sizeof(int); }

private:
    World w_;
    std::uint64_t block_ = 0;
    std::vector<int> send_, recv_, counts_;
};

// Every rank receives one b-byte block from every rank: its own block for each
// destination (alltoall, personalised) or one block for all (allgather).
class BlockExchangeBench : public Bench {
public:
    BlockExchangeBench(World w, bool personalised) : w_(w), personalised_(personalised) {}
    void prepare(std::uint64_t bytes) override {
        b_ = bytes;
        const int blocks = personalised_ ? w_.size : 1;
        send_.resize(b_ * static_cast<std::uint64_t>(blocks));
        recv_.resize(b_ * static_cast<std::uint64_t>(w_.size));
        for (int d = 0; d < blocks; ++d)
            for (std::uint64_t j = 0; j < b_; ++j) send_[static_cast<std::uint64_t>(d) * b_ + j] = pattern(w_.rank, d, j);
    }
    void poison() override { std::fill(recv_.begin(), recv_.end(), 0xEE); }
    bool check() const override {
        const int block = personalised_ ? w_.rank : 0;
        for (int s = 0; s < w_.size; ++s)
            for (std::uint64_t j = 0; j < b_; ++j)
                if (recv_[static_cast<std::uint64_t>(s) * b_ + j] != pattern(s, block, j)) return false;
        return true;
    }
    std::uint64_t bytes() const override { return b_; }

protected:
    World w_;
    bool personalised_;
    std::uint64_t b_ = 0;
    std::vector<unsigned char> send_, recv_;
};

class AlltoallBench : public BlockExchangeBench {
public:
    explicit AlltoallBench(World w) : BlockExchangeBench(w, true) {}
    int call() override {
        return MPI_Alltoall(send_.data(), static_cast<int>(b_), MPI_BYTE, recv_.data(), static_cast<int>(b_), MPI_BYTE,
                            MPI_COMM_WORLD);
    }
};

class AllgatherBench : public BlockExchangeBench {
public:
    explicit AllgatherBench(World w) : BlockExchangeBench(w, false) {}
    int call() override {
        return MPI_Allgather(send_.data(), static_cast<int>(b_), MPI_BYTE, recv_.data(), static_cast<int>(b_), MPI_BYTE,
                             MPI_COMM_WORLD);
    }
};

class BcastBench : public Bench {
public:
    explicit BcastBench(World w) : w_(w) {}
    void prepare(std::uint64_t bytes) override {
        buf_.resize(bytes);
        fill_root();
    }
    void poison() override {
        if (w_.rank == kRoot) fill_root();
        else std::fill(buf_.begin(), buf_.end(), 0xEE);
    }
    int call() override {
        return MPI_Bcast(buf_.data(), static_cast<int>(buf_.size()), MPI_BYTE, kRoot, MPI_COMM_WORLD);
    }
    bool check() const override {
        for (std::uint64_t j = 0; j < buf_.size(); ++j)
            if (buf_[j] != pattern(kRoot, 1, j)) return false;
        return true;
    }
    std::uint64_t bytes() const override { return buf_.size(); }

private:
    void fill_root() {
        if (w_.rank != kRoot) return;
        for (std::uint64_t j = 0; j < buf_.size(); ++j) buf_[j] = pattern(kRoot, 1, j);
    }
    static constexpr int kRoot = 0;
    World w_;
    std::vector<unsigned char> buf_;
};

std::unique_ptr<Bench> make_bench(Collective c, World w) {
    switch (c) {
        case Collective::Allreduce: return std::make_unique<AllreduceBench>(w);
        case Collective::ReduceScatter: return std::make_unique<ReduceScatterBench>(w);
        case Collective::Alltoall: return std::make_unique<AlltoallBench>(w);
        case Collective::Allgather: return std::make_unique<AllgatherBench>(w);
        case Collective::Bcast: return std::make_unique<BcastBench>(w);
    }
    return nullptr;
}

std::string mpi_error_text(int rc) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    MPI_Error_string(rc, text, &len);
    return std::string(text, static_cast<std::size_t>(len));
}

// "Open MPI v4.1.4, package: ..." -> "Open MPI 4.1.4" (the form detect_hardware() uses).
std::string short_version(const std::string& library) {
    std::smatch m;
    if (std::regex_search(library, m, std::regex(R"(Open MPI v?([0-9][0-9.a-z]*))"))) return "Open MPI " + m[1].str();
    if (std::regex_search(library, m, std::regex(R"(MPICH Version:\s*([0-9][0-9.a-z]*))"))) return "MPICH " + m[1].str();
    return library.substr(0, library.find_first_of(",\n"));
}

void emit(const json& j) {
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

// Linear interpolation between order statistics.
double quantile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A result row that ends the measurement of one size: status failed with the MPI error.
json& failed(json& r, int rc, const char* other_rank, double t_start) {
    r["status"] = "failed";
    r["error"] = rc == MPI_SUCCESS ? other_rank : mpi_error_text(rc);
    r["seconds"] = MPI_Wtime() - t_start;
    return r;
}

// Iterations from the data volume, then capped by the time of the warm-up: one
// call sizes the warm-up (at most a quarter of the time budget), the warm-up
// sizes the timed part; rank 0 decides, everyone follows. Runs the warm-up.
struct Iterations {
    long warmup = 1, timed = 1;
    int rc = MPI_SUCCESS;
};
Iterations warm_up(const Options& o, const World& w, Bench& bench) {
    Iterations it;
    const double volume = static_cast<double>(bench.bytes()) *
                          (mdtune::models::mpi::info(o.collective).rule_size_times_ranks ? w.size : 1);
    long iters = std::clamp(static_cast<long>(o.budget_bytes / std::max(volume, 1.0)), o.min_iters, o.max_iters);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    it.rc = bench.call();
    const double first = MPI_Wtime() - t0;
    long warmup = std::max(1L, static_cast<long>(std::ceil(static_cast<double>(iters) * o.warmup_frac)));
    warmup = share_long(w, std::clamp(static_cast<long>(0.25 * o.max_seconds / std::max(first, 1e-7)), 1L, warmup));
    double warm_time = first;
    for (long i = 1; i < warmup && it.rc == MPI_SUCCESS; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        it.rc = bench.call();
        warm_time += MPI_Wtime() - t0;
    }
    if (w.rank == 0) {
        const double per_call = warm_time / static_cast<double>(warmup);
        iters = std::clamp(static_cast<long>(o.max_seconds / std::max(per_call, 1e-7)), o.min_iters, iters);
    }
    it.warmup = warmup;
    it.timed = share_long(w, iters);
    return it;
}

// Rank 0: latencies over ranks of each rank's mean, and quantiles of the slowest rank per call.
void add_latencies(json& r, const std::vector<std::vector<double>>& all, long iters) {
    std::vector<double> rank_mean;
    std::vector<double> slowest(static_cast<std::size_t>(iters), 0.0);
    for (const auto& t : all) {
        double s = 0;
        for (std::size_t i = 0; i < t.size(); ++i) {
            s += t[i];
            slowest[i] = std::max(slowest[i], t[i]);
        }
        rank_mean.push_back(s / static_cast<double>(iters));
    }
    double avg = 0;
    for (double m : rank_mean) avg += m;
    avg /= static_cast<double>(rank_mean.size());
    r["lat_min_us"] = *std::min_element(rank_mean.begin(), rank_mean.end()) * 1e6;
    r["lat_avg_us"] = avg * 1e6;
    r["lat_max_us"] = *std::max_element(rank_mean.begin(), rank_mean.end()) * 1e6;
    r["lat_median_us"] = median(slowest) * 1e6;
    r["lat_p10_us"] = quantile(slowest, 0.1) * 1e6;
    r["lat_p25_us"] = quantile(slowest, 0.25) * 1e6;
}

json measure(const Options& o, const World& w, Bench& bench, std::uint64_t size) {
    const double t_start = MPI_Wtime();
    bench.prepare(size);
    json r = {{"type", "result"},       {"collective", std::string(mdtune::models::mpi::name(o.collective))},
              {"selection", o.selection}, {"algorithm", o.algorithm},
              {"ranks", w.size},         {"bytes", size},
              {"bytes_moved", bench.bytes()}};  // reduce_scatter rounds to whole blocks per rank
    if (o.segsize) r["segsize"] = *o.segsize;

    // 1. Verification on poisoned buffers.
    bench.poison();
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = bench.call();
    if (!all_true(w, rc == MPI_SUCCESS)) return failed(r, rc, "the call failed on another rank", t_start);
    bool correct = all_true(w, bench.check());

    // 2. Warm-up, which also sizes the timed part.
    const Iterations it = warm_up(o, w, bench);
    rc = it.rc;

    // 3. Timed calls, each after a barrier.
    std::vector<double> times(static_cast<std::size_t>(it.timed), 0.0);
    for (long i = 0; i < it.timed && rc == MPI_SUCCESS; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        rc = bench.call();
        times[static_cast<std::size_t>(i)] = MPI_Wtime() - t0;
    }
    if (!all_true(w, rc == MPI_SUCCESS)) return failed(r, rc, "a call failed on another rank", t_start);
    correct = all_true(w, bench.check()) && correct;  // the last timed call's result

    const auto all = gather_times(w, times);
    if (w.rank == 0) {
        r["iterations"] = it.timed;
        r["warmup"] = it.warmup;
        add_latencies(r, all, it.timed);
    }
    r["status"] = correct ? "ok" : "incorrect";
    r["error"] = correct ? "" : "wrong result";
    r["seconds"] = MPI_Wtime() - t_start;
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    if (wants_help(argc, argv)) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    MPI_Init(&argc, &argv);
    World w;
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.size);
    // Errors come back as codes: an algorithm unsupported for this size is a result, not a crash.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int provided = 0;
    const bool have_mpit = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS;

    int exit_code = 0;
    try {
        const Options o = parse(argc, argv);
        char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {};
        int len = 0;
        MPI_Get_library_version(lib, &len);
        std::string library(lib, static_cast<std::size_t>(len));
        while (!library.empty() && (library.back() == '\n' || library.back() == '\0')) library.pop_back();
        const Layout layout = node_layout(w);
        json mca = json::object();
        const std::string mismatch = have_mpit ? check_mca(o, mca) : "unavailable";
        json header = {{"type", "header"},
                       {"program", "mpi_collectives"},
                       {"mpi_library", library.substr(0, library.find('\n'))},
                       {"mpi_version", short_version(library)},
                       {"ranks", w.size},
                       {"nodes", layout.nodes},
                       {"ppn", layout.ppn},
                       {"uniform", layout.uniform},
                       {"collective", std::string(mdtune::models::mpi::name(o.collective))},
                       {"selection", o.selection},
                       {"algorithm", o.algorithm},
                       {"mca", mca},
                       {"mca_check", mismatch.empty() ? "ok" : mismatch == "unavailable" ? "unavailable" : "mismatch"}};
        if (o.segsize) header["segsize"] = *o.segsize;
        if (w.rank == 0) emit(header);
        if (o.probe) {
            if (w.rank == 0) emit({{"type", "done"}, {"seconds", 0.0}});
        } else if (!mismatch.empty() && mismatch != "unavailable") {
            // Measuring anyway would store numbers under the wrong algorithm.
            if (w.rank == 0) emit({{"type", "error"}, {"message", "MCA settings do not match the label: " + mismatch}});
            exit_code = 3;
        } else {
            const double t0 = MPI_Wtime();
            auto bench = make_bench(o.collective, w);
            for (std::uint64_t size : o.sizes) {
                json r = measure(o, w, *bench, size);
                r["nodes"] = layout.nodes;
                r["ppn"] = layout.ppn;
                if (w.rank == 0) emit(r);
            }
            if (w.rank == 0) emit({{"type", "done"}, {"seconds", MPI_Wtime() - t0}});
        }
    } catch (const ArgError& e) {
        if (w.rank == 0) {
            emit({{"type", "error"}, {"message", e.what()}});
            std::fprintf(stderr, "mpi_collectives: %s (see mpi_collectives --help)\n", e.what());
        }
        exit_code = 2;
    }
    if (have_mpit) MPI_T_finalize();
    MPI_Finalize();
    return exit_code;
}
