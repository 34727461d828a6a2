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
    int c = 0;
    m.id = st.column_int(c++);
    m.sweep_id = st.column_int(c++);
    m.hardware_id = st.column_text(c++);
    m.mpi_library = st.column_text(c++);
    m.nodes = static_cast<int>(st.column_int(c++));
    m.ppn = static_cast<int>(st.column_int(c++));
    m.ranks = static_cast<int>(st.column_int(c++));
    m.collective = st.column_text(c++);
    m.selection = st.column_text(c++);
    m.algorithm = static_cast<int>(st.column_int(c++));
    m.segsize = st.column_int(c++);
    m.faninout = static_cast<int>(st.column_int(c++));
    m.bytes = st.column_int(c++);
    m.iterations = st.column_int(c++);
    m.warmup = st.column_int(c++);
    m.lat_min_us = st.column_real(c++);
    m.lat_avg_us = st.column_real(c++);
    m.lat_max_us = st.column_real(c++);
    m.lat_median_us = st.column_real(c++);
    m.lat_p10_us = st.column_real(c++);
    m.status = st.column_text(c++);
    m.error = st.column_text(c++);
    m.created_at = st.column_text(c++);
    return m;
}

}  // namespace

long MpiStore::begin_sweep(const std::string& hardware_id, const std::string& mpi_library, const std::string& launcher,
                           const std::string& settings_json) {
    sqlite3* db = store_.handle();
    Transaction tx(db);
    sql::Statement st(db,
                      "INSERT INTO mpi_sweeps(hardware_id, mpi_library, launcher, settings_json, status, started_at) "
                      "VALUES(?, ?, ?, ?, 'running', ?)");
    st.bind_text(1, hardware_id).bind_text(2, mpi_library).bind_text(3, launcher).bind_text(4, settings_json);
    st.bind_text(5, now_iso8601());
    st.run();
    const long id = static_cast<long>(sqlite3_last_insert_rowid(db));
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
        st.bind_text(2, m.hardware_id);
        st.bind_text(3, m.mpi_library);
        st.bind_int(4, m.nodes);
        st.bind_int(5, m.ppn);
        st.bind_int(6, m.ranks);
        st.bind_text(7, m.collective);
        st.bind_text(8, m.selection);
        st.bind_int(9, m.algorithm);
        st.bind_int(10, m.segsize);
        st.bind_int(11, m.faninout);
        st.bind_int(12, m.bytes);
        st.bind_int(13, m.iterations);
        st.bind_int(14, m.warmup);
        // Latencies of a failed run (or not reported) are NULL, not 0.
        const bool measured = m.status == "ok" || m.status == "incorrect";
        const double lat[] = {m.lat_min_us, m.lat_avg_us, m.lat_max_us, m.lat_median_us, m.lat_p10_us};
        for (int k = 0; k < 5; ++k) {
            if (measured && lat[k] > 0) st.bind_real(15 + k, lat[k]);
            else st.bind_null(15 + k);
        }
        st.bind_text(20, m.status);
        st.bind_text(21, m.error);
        st.bind_text(22, m.created_at.empty() ? now_iso8601() : m.created_at);
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
        st.bind_text(1, digest).bind_text(2, r.hardware_id).bind_text(3, r.mpi_library);
        st.bind_int(4, r.nodes).bind_int(5, r.ppn).bind_int(6, r.ranks).bind_text(7, r.collective);
        st.bind_int(8, r.bytes).bind_int(9, r.rounds).bind_real(10, r.default_us).bind_real(11, r.rules_us);
        st.bind_real(12, r.default_median_us).bind_real(13, r.rules_median_us);
        st.bind_text(14, r.created_at.empty() ? now : r.created_at);
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
        r.digest = st.column_text(0);
        r.hardware_id = st.column_text(1);
        r.mpi_library = st.column_text(2);
        r.nodes = static_cast<int>(st.column_int(3));
        r.ppn = static_cast<int>(st.column_int(4));
        r.ranks = static_cast<int>(st.column_int(5));
        r.collective = st.column_text(6);
        r.bytes = st.column_int(7);
        r.rounds = static_cast<int>(st.column_int(8));
        r.default_us = st.column_real(9);
        r.rules_us = st.column_real(10);
        r.default_median_us = st.column_real(11);
        r.rules_median_us = st.column_real(12);
        r.created_at = st.column_text(13);
        out.push_back(r);
    }
    return out;
}

long MpiStore::put_model(const MpiModelRow& row) {
    sqlite3* db = store_.handle();
    Transaction tx(db);
    sql::Statement st(db,
                      "INSERT INTO mpi_models(hardware_id, mpi_library, collective, feature_set, model_json, cv_json, "
                      "training_rows, created_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?)");
    st.bind_text(1, row.hardware_id).bind_text(2, row.mpi_library).bind_text(3, row.collective);
    st.bind_text(4, row.feature_set).bind_text(5, row.model_json).bind_text(6, row.cv_json);
    st.bind_int(7, row.training_rows).bind_text(8, row.created_at.empty() ? now_iso8601() : row.created_at);
    st.run();
    const long id = static_cast<long>(sqlite3_last_insert_rowid(db));
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
    r.id = st.column_int(0);
    r.hardware_id = st.column_text(1);
    r.mpi_library = st.column_text(2);
    r.collective = st.column_text(3);
    r.feature_set = st.column_text(4);
    r.model_json = st.column_text(5);
    r.cv_json = st.column_text(6);
    r.training_rows = st.column_int(7);
    r.created_at = st.column_text(8);
    return r;
}

}  // namespace mdtune::db
