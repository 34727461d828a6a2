// Reads and writes of bench_runs / bench_results (schema v3, see migrations.cpp).
#include "mdtune/db/bench_store.h"

#include <sqlite3.h>

#include <cmath>
#include <map>

#include "statement.h"

namespace mdtune::db {
namespace {

// Same format as the trial store's timestamps (ISO 8601 UTC, milliseconds).
constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

constexpr const char* kRunColumns =
    "id, label, git_commit, build_flags, hardware_id, metric, created_at, context_json";

BenchRunRow read_run(sqlite3* db, const sql::Statement& st) {
    BenchRunRow r;
    r.id = st.column_int(0);
    r.label = st.column_text(1);
    r.git_commit = st.column_text(2);
    r.build_flags = st.column_text(3);
    r.hardware_id = st.column_text(4);
    const std::string metric = st.column_text(5);
    const auto m = parse_bench_metric(metric);
    if (!m) throw DbError(sql::db_path(db) + ": bench run " + std::to_string(r.id) + " has metric '" + metric + "'");
    r.metric = *m;
    r.created_at = st.column_text(6);
    r.context_json = st.column_text(7);
    return r;
}

void load_results(sqlite3* db, BenchRunRow& run) {
    sql::Statement st(db,
                      "SELECT name, repetition, value, unit, iterations, extra_json FROM bench_results "
                      "WHERE run_id = ? ORDER BY rowid");
    st.bind_int(1, run.id);
    while (st.step()) {
        BenchResultRow r;
        r.name = st.column_text(0);
        r.repetition = static_cast<int>(st.column_int(1));
        r.value = st.column_real(2);
        r.unit = st.column_text(3);
        r.iterations = st.column_int(4);
        r.extra_json = st.column_text(5);
        run.results.push_back(std::move(r));
    }
}

std::vector<BenchRunRow> query_runs(sqlite3* db, const std::string& where, const std::vector<std::string>& params,
                                    bool with_results) {
    sql::Statement st(db, std::string("SELECT ") + kRunColumns + " FROM bench_runs WHERE " + where + " ORDER BY id");
    for (std::size_t i = 0; i < params.size(); ++i) st.bind_text(static_cast<int>(i + 1), params[i]);
    std::vector<BenchRunRow> out;
    while (st.step()) out.push_back(read_run(db, st));
    if (with_results)
        for (auto& r : out) load_results(db, r);
    return out;
}

// SQL LIKE pattern matching `prefix` literally.
std::string like_prefix(const std::string& prefix) {
    std::string p;
    for (char c : prefix) {
        if (c == '%' || c == '_' || c == '\\') p += '\\';
        p += c;
    }
    return p + '%';
}

}  // namespace

std::string_view to_string(BenchMetric m) {
    return m == BenchMetric::Instructions ? "instructions" : "real_time";
}

std::optional<BenchMetric> parse_bench_metric(std::string_view text) {
    if (text == "real_time") return BenchMetric::RealTime;
    if (text == "instructions") return BenchMetric::Instructions;
    return std::nullopt;
}

std::vector<long> BenchStore::insert(const std::vector<BenchRunRow>& runs) {
    sqlite3* db = store_.handle();
    std::vector<long> ids;
    Transaction tx(db);
    sql::Statement run_st(db, std::string("INSERT INTO bench_runs(label, git_commit, build_flags, hardware_id, metric, "
                                          "created_at, context_json) VALUES(?, ?, ?, ?, ?, ") +
                                  kNow + ", ?)");
    sql::Statement res_st(db,
                          "INSERT INTO bench_results(run_id, name, repetition, value, unit, iterations, extra_json) "
                          "VALUES(?, ?, ?, ?, ?, ?, ?)");
    for (const BenchRunRow& run : runs) {
        if (run.label.empty()) throw DbError(store_.path() + ": a bench run needs a label");
        run_st.reset();
        run_st.bind_text(1, run.label);
        if (run.git_commit.empty()) run_st.bind_null(2); else run_st.bind_text(2, run.git_commit);
        run_st.bind_text(3, run.build_flags).bind_text(4, run.hardware_id).bind_text(5, to_string(run.metric));
        run_st.bind_text(6, run.context_json);
        run_st.run();
        const long id = static_cast<long>(sqlite3_last_insert_rowid(db));
        for (const BenchResultRow& r : run.results) {
            res_st.reset();
            res_st.bind_int(1, id).bind_text(2, r.name).bind_int(3, r.repetition);
            // NaN would be stored as NULL and fail NOT NULL; say which value it was.
            if (!std::isfinite(r.value))
                throw DbError(store_.path() + ": bench result '" + r.name + "' repetition " +
                              std::to_string(r.repetition) + " has a non-finite value");
            res_st.bind_real(4, r.value).bind_text(5, r.unit).bind_int(6, r.iterations);
            if (r.extra_json.empty()) res_st.bind_null(7); else res_st.bind_text(7, r.extra_json);
            res_st.run();
        }
        ids.push_back(id);
    }
    tx.commit();
    return ids;
}

std::vector<BenchRunRow> BenchStore::runs_matching(const std::string& selector, BenchMetric metric,
                                                   bool with_results) const {
    sqlite3* db = store_.handle();
    const std::string m(to_string(metric));
    auto by_label = query_runs(db, "label = ? AND metric = ?", {selector, m}, with_results);
    if (!by_label.empty() || selector.size() < 4) return by_label;
    return query_runs(db, "git_commit LIKE ? ESCAPE '\\' AND metric = ?", {like_prefix(selector), m}, with_results);
}

std::vector<BenchRunRow> BenchStore::runs(BenchMetric metric) const {
    return query_runs(store_.handle(), "metric = ?", {std::string(to_string(metric))}, false);
}

std::optional<BenchRunRow> BenchStore::latest_run(BenchMetric metric) const {
    sqlite3* db = store_.handle();
    sql::Statement st(db, std::string("SELECT ") + kRunColumns +
                              " FROM bench_runs WHERE metric = ? ORDER BY id DESC LIMIT 1");
    st.bind_text(1, to_string(metric));
    if (!st.step()) return std::nullopt;
    return read_run(db, st);
}

std::vector<BenchSeriesPoint> BenchStore::series(const std::string& name, BenchMetric metric) const {
    sqlite3* db = store_.handle();
    sql::Statement st(db,
                      "SELECT r.id, r.label, r.git_commit, r.hardware_id, r.created_at, b.value, b.unit "
                      "FROM bench_results b JOIN bench_runs r ON r.id = b.run_id "
                      "WHERE b.name = ? AND r.metric = ? ORDER BY r.id, b.repetition, b.rowid");
    st.bind_text(1, name).bind_text(2, to_string(metric));
    std::vector<BenchSeriesPoint> out;
    while (st.step()) {
        const long id = st.column_int(0);
        if (out.empty() || out.back().run_id != id) {
            BenchSeriesPoint p;
            p.run_id = id;
            p.label = st.column_text(1);
            p.git_commit = st.column_text(2);
            p.hardware_id = st.column_text(3);
            p.created_at = st.column_text(4);
            p.unit = st.column_text(6);
            out.push_back(std::move(p));
        }
        out.back().values.push_back(st.column_real(5));
    }
    return out;
}

std::vector<std::string> BenchStore::names(BenchMetric metric) const {
    sqlite3* db = store_.handle();
    sql::Statement st(db,
                      "SELECT DISTINCT b.name FROM bench_results b JOIN bench_runs r ON r.id = b.run_id "
                      "WHERE r.metric = ? ORDER BY b.name");
    st.bind_text(1, to_string(metric));
    std::vector<std::string> out;
    while (st.step()) out.push_back(st.column_text(0));
    return out;
}

long BenchStore::run_count() const {
    return static_cast<long>(sql::query_int(store_.handle(), "SELECT COUNT(*) FROM bench_runs"));
}

long BenchStore::result_count() const {
    return static_cast<long>(sql::query_int(store_.handle(), "SELECT COUNT(*) FROM bench_results"));
}

}  // namespace mdtune::db
