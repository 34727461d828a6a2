#pragma once
// MPI collective tuning tables (schema v4): measurements of Open MPI's
// algorithms, rules-file evaluations and fitted selection models. Plain rows;
// what they mean lives in benchmarks/mpi (mdtune_mpi).
#include <optional>
#include <string>
#include <vector>

#include "mdtune/db/store.h"

namespace mdtune::db {

struct MpiMeasurement {
    long id = 0;
    long sweep_id = 0;               // 0: not part of a sweep
    std::string hardware_id;
    std::string mpi_library;         // "Open MPI 4.1.4"
    int nodes = 1, ppn = 1, ranks = 1;
    std::string collective;          // allreduce | alltoall | bcast | allgather | reduce_scatter
    std::string selection;           // forced | default
    int algorithm = 0;               // coll_tuned id, 0 for Open MPI's default
    long segsize = 0;
    int faninout = 0;
    long bytes = 0;                  // OSU convention: per-rank block for allgather/alltoall
    long iterations = 0, warmup = 0;
    double lat_min_us = 0, lat_avg_us = 0, lat_max_us = 0;  // over ranks of each rank's mean
    double lat_median_us = 0;        // median over iterations of the slowest rank
    double lat_p10_us = 0;           // 10th percentile of the same: the undisturbed latency selection uses
    std::string status;              // ok | incorrect | failed
    std::string error;
    std::string created_at;          // set by the store when empty
};

struct MpiFilter {
    std::optional<std::string> hardware_id;
    std::optional<std::string> mpi_library;
    std::optional<std::string> collective;
    std::optional<int> ranks;
    std::optional<std::string> selection;
};

struct MpiRulesEval {
    std::string digest;              // of the rules file text
    std::string hardware_id, mpi_library;
    int nodes = 1, ppn = 1, ranks = 1;
    std::string collective;
    long bytes = 0;
    int rounds = 0;
    double default_us = 0, rules_us = 0;                // 10th percentiles
    double default_median_us = 0, rules_median_us = 0;  // medians
    std::string created_at;
};

struct MpiModelRow {
    long id = 0;
    std::string hardware_id, mpi_library, collective, feature_set;
    std::string model_json, cv_json;
    long training_rows = 0;
    std::string created_at;
};

// Works on an open Store (its connection and transactions); owns nothing.
class MpiStore {
public:
    explicit MpiStore(Store& store) : store_(store) {}

    long begin_sweep(const std::string& hardware_id, const std::string& mpi_library, const std::string& launcher,
                     const std::string& settings_json);
    void finish_sweep(long sweep_id, const std::string& status);  // done | interrupted

    // What a new row does to a recorded one with the same (hardware, library,
    // layout, collective, selection, algorithm, segsize, faninout, bytes).
    enum class Upsert {
        Replace,     // a re-measurement
        KeepFaster,  // a repeat: keep the lower 10th percentile (load only ever adds time); ok beats failed
    };
    // One transaction.
    void put_measurements(const std::vector<MpiMeasurement>& rows, Upsert mode = Upsert::Replace);
    std::vector<MpiMeasurement> measurements(const MpiFilter& filter = {}) const;

    // Stores the file text once (by digest) and its paired latencies, in one transaction.
    void put_rules_evaluation(const std::string& digest, const std::string& text, const std::vector<MpiRulesEval>& rows);
    std::vector<MpiRulesEval> rules_evaluations(const std::string& digest) const;

    long put_model(const MpiModelRow& row);
    std::optional<MpiModelRow> latest_model(const std::string& hardware_id, const std::string& collective) const;

private:
    Store& store_;
};

}  // namespace mdtune::db
