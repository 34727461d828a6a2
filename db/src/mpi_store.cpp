// The MPI collective tables (schema v4). Like store.cpp: prepared statements,
// every write inside one transaction, every error a DbError naming the file.
#include "mdtune/db/mpi_store.h"

#include <sqlite3.h>

#include "statement.h"
#include "timestamp.h"

namespace mdtune::db {
namespace {

void check_measurement(sqlite3* db, const MpiMeasurement& m) {
    const auto bad = [&](const std::string& what) {
        throw DbError(sql::db_path(db) + ": MPI measurement " + m.collective + " algorithm " +
                      std::to_string(m.algorithm) + " at " + std::to_string(m.bytes) + " B: " + what);
    };
    if (m.hardware_id.empty()) bad("no hardware id");
    if (m.collective.empty()) bad("no collective");
    if (m.selection != "forced" && m.selection != "default") bad("selection '" + m.selection + "'");
    if (m.status != "ok" && m.status != "incorrect" && m.status != "failed") bad("status '" + m.status + "'");
    if (m.nodes < 1 || m.ppn < 1 || m.ranks < 1) bad("layout must be positive");
    if (m.bytes < 0) bad("negative size");
}

constexpr const char* kMeasurementColumns =
    "id, sweep_id, hardware_id, mpi_library, nodes, ppn, ranks, collective, selection, algorithm, segsize, "
    "faninout, bytes, iterations, warmup, lat_min_us, lat_avg_us, lat_max_us, lat_median_us, lat_p10_us, status, "
    "error, created_at";

MpiMeasurement read_measurement(const sql::Statement& st) {
    MpiMeasurement m;
    st.read_columns(0, m.id, m.sweep_id, m.hardware_id, m.mpi_library, m.nodes, m.ppn, m.ranks, m.collective,
                    m.selection, m.algorithm, m.segsize, m.faninout, m.bytes, m.iterations, m.warmup, m.lat_min_us,
                    m.lat_avg_us, m.lat_max_us, m.lat_median_us, m.lat_p10_us, m.status, m.error, m.created_at);
    return m;
}

}  // namespace

long MpiStore::begin_sweep(const std::string& hardware_id, const std::string& mpi_library, const std::string& launcher,
                           const std::string& settings_json) {
    Transaction tx(store_.handle());
    const long id = sql::insert_row(store_.handle(),
                                    "INSERT INTO mpi_sweeps(hardware_id, mpi_library, launcher, settings_json, status, "
                                    "started_at) VALUES(?, ?, ?, ?, 'running', ?)",
                                    hardware_id, mpi_library, launcher, settings_json, now_iso8601());
    tx.commit();
    return id;
}

void MpiStore::finish_sweep(long sweep_id, const std::string& status) {
    sqlite3* db = store_.handle();
    if (status != "done" && status != "interrupted") throw DbError(sql::db_path(db) + ": sweep status '" + status + "'");
    Transaction tx(db);
    sql::Statement st(db, "UPDATE mpi_sweeps SET status = ?, finished_at = ? WHERE id = ?");
    st.bind_text(1, status).bind_text(2, now_iso8601()).bind_int(3, sweep_id);
    st.run();
    if (sqlite3_changes(db) != 1) throw DbError(sql::db_path(db) + ": no MPI sweep " + std::to_string(sweep_id));
    tx.commit();
}

void MpiStore::put_measurements(const std::vector<MpiMeasurement>& rows, Upsert mode) {
    sqlite3* db = store_.handle();
    for (const auto& m : rows) check_measurement(db, m);  // all or nothing
    Transaction tx(db);
    sql::Statement st(
        db,
        "INSERT INTO mpi_results(sweep_id, hardware_id, mpi_library, nodes, ppn, ranks, collective, selection, "
        "algorithm, segsize, faninout, bytes, iterations, warmup, lat_min_us, lat_avg_us, lat_max_us, lat_median_us, "
        "lat_p10_us, status, error, created_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(hardware_id, mpi_library, nodes, ppn, collective, selection, algorithm, segsize, faninout, bytes) "
        "DO UPDATE SET sweep_id = excluded.sweep_id, ranks = excluded.ranks, iterations = excluded.iterations, "
        "warmup = excluded.warmup, lat_min_us = excluded.lat_min_us, lat_avg_us = excluded.lat_avg_us, "
        "lat_max_us = excluded.lat_max_us, lat_median_us = excluded.lat_median_us, lat_p10_us = excluded.lat_p10_us, "
        "status = excluded.status, "
        "error = excluded.error, created_at = excluded.created_at" +
            std::string(mode == Upsert::Replace
                            ? ""
                            : " WHERE mpi_results.status != 'ok' OR (excluded.status = 'ok' AND "
                              "coalesce(excluded.lat_p10_us, excluded.lat_median_us) < "
                              "coalesce(mpi_results.lat_p10_us, mpi_results.lat_median_us))"));
    for (const auto& m : rows) {
        if (m.sweep_id > 0) st.bind_int(1, m.sweep_id);
        else st.bind_null(1);
        st.bind_all(2, m.hardware_id, m.mpi_library, m.nodes, m.ppn, m.ranks, m.collective, m.selection, m.algorithm,
                    m.segsize, m.faninout, m.bytes, m.iterations, m.warmup);
        // Latencies of a failed run (or not reported) are NULL, not 0.
        const bool measured = m.status == "ok" || m.status == "incorrect";
        const double lat[] = {m.lat_min_us, m.lat_avg_us, m.lat_max_us, m.lat_median_us, m.lat_p10_us};
        for (int k = 0; k < 5; ++k) {
            if (measured && lat[k] > 0) st.bind_real(15 + k, lat[k]);
            else st.bind_null(15 + k);
        }
        st.bind_all(20, m.status, m.error, m.created_at.empty() ? now_iso8601() : m.created_at);
        st.run();
        st.reset();
    }
    tx.commit();
}

std::vector<MpiMeasurement> MpiStore::measurements(const MpiFilter& f) const {
    sqlite3* db = store_.handle();
    std::string q = std::string("SELECT ") + kMeasurementColumns + " FROM mpi_results WHERE 1 = 1";
    if (f.hardware_id) q += " AND hardware_id = ?";
    if (f.mpi_library) q += " AND mpi_library = ?";
    if (f.collective) q += " AND collective = ?";
    if (f.ranks) q += " AND ranks = ?";
    if (f.selection) q += " AND selection = ?";
    q += " ORDER BY collective, nodes, ppn, algorithm, segsize, bytes";
    sql::Statement st(db, q);
    int c = 1;
    if (f.hardware_id) st.bind_text(c++, *f.hardware_id);
    if (f.mpi_library) st.bind_text(c++, *f.mpi_library);
    if (f.collective) st.bind_text(c++, *f.collective);
    if (f.ranks) st.bind_int(c++, *f.ranks);
    if (f.selection) st.bind_text(c++, *f.selection);
    std::vector<MpiMeasurement> out;
    while (st.step()) out.push_back(read_measurement(st));
    return out;
}

void MpiStore::put_rules_evaluation(const std::string& digest, const std::string& text,
                                    const std::vector<MpiRulesEval>& rows) {
    sqlite3* db = store_.handle();
    if (digest.empty()) throw DbError(sql::db_path(db) + ": rules evaluation without a digest");
    Transaction tx(db);
    const std::string now = now_iso8601();
    sql::Statement file(db, "INSERT OR IGNORE INTO mpi_rules_files(digest, text, created_at) VALUES(?, ?, ?)");
    file.bind_text(1, digest).bind_text(2, text).bind_text(3, now);
    file.run();
    sql::Statement st(db,
                      "INSERT INTO mpi_rules_evals(digest, hardware_id, mpi_library, nodes, ppn, ranks, collective, "
                      "bytes, rounds, default_us, rules_us, default_median_us, rules_median_us, created_at) "
                      "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const auto& r : rows) {
        st.bind_all(1, digest, r.hardware_id, r.mpi_library, r.nodes, r.ppn, r.ranks, r.collective, r.bytes, r.rounds,
                    r.default_us, r.rules_us, r.default_median_us, r.rules_median_us,
                    r.created_at.empty() ? now : r.created_at);
        st.run();
        st.reset();
    }
    tx.commit();
}

std::vector<MpiRulesEval> MpiStore::rules_evaluations(const std::string& digest) const {
    sql::Statement st(store_.handle(),
                      "SELECT digest, hardware_id, mpi_library, nodes, ppn, ranks, collective, bytes, rounds, "
                      "default_us, rules_us, default_median_us, rules_median_us, created_at FROM mpi_rules_evals "
                      "WHERE digest = ? "
                      "ORDER BY collective, ranks, bytes, id");
    st.bind_text(1, digest);
    std::vector<MpiRulesEval> out;
    while (st.step()) {
        MpiRulesEval r;
        st.read_columns(0, r.digest, r.hardware_id, r.mpi_library, r.nodes, r.ppn, r.ranks, r.collective, r.bytes,
                        r.rounds, r.default_us, r.rules_us, r.default_median_us, r.rules_median_us, r.created_at);
        out.push_back(r);
    }
    return out;
}

long MpiStore::put_model(const MpiModelRow& row) {
    Transaction tx(store_.handle());
    const long id = sql::insert_row(store_.handle(),
                                    "INSERT INTO mpi_models(hardware_id, mpi_library, collective, feature_set, "
                                    "model_json, cv_json, training_rows, created_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
                                    row.hardware_id, row.mpi_library, row.collective, row.feature_set, row.model_json,
                                    row.cv_json, row.training_rows,
                                    row.created_at.empty() ? now_iso8601() : row.created_at);
    tx.commit();
    return id;
}

std::optional<MpiModelRow> MpiStore::latest_model(const std::string& hardware_id, const std::string& collective) const {
    sql::Statement st(store_.handle(),
                      "SELECT id, hardware_id, mpi_library, collective, feature_set, model_json, cv_json, "
                      "training_rows, created_at FROM mpi_models WHERE hardware_id = ? AND collective = ? "
                      "ORDER BY id DESC LIMIT 1");
    st.bind_text(1, hardware_id).bind_text(2, collective);
    if (!st.step()) return std::nullopt;
    MpiModelRow r;
    st.read_columns(0, r.id, r.hardware_id, r.mpi_library, r.collective, r.feature_set, r.model_json, r.cv_json,
                    r.training_rows, r.created_at);
    return r;
}

}  // namespace mdtune::db
