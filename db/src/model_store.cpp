// Rows of the `models` table. Every sqlite3 call goes through statement.h, so
// failures become DbError naming the file and the SQL.
#include "mdtune/db/model_store.h"

#include "statement.h"
#include "timestamp.h"

namespace mdtune::db {
namespace {

constexpr const char* kColumns =
    "id, kind, feature_set, coefficients_json, training_trial_ids_json, cv_json, created_at, build_id, hardware_scope";

StoredModel read_row(const sql::Statement& st) {
    StoredModel m;
    m.id = st.column_int(0);
    m.kind = st.column_text(1);
    m.feature_set = st.column_text(2);
    m.coefficients_json = st.column_text(3);
    m.training_trial_ids_json = st.column_text(4);
    m.cv_json = st.column_text(5);
    m.created_at = st.column_text(6);
    m.build_id = st.column_text(7);
    m.hardware_scope = st.column_text(8);
    return m;
}

}  // namespace

long ModelStore::insert(const StoredModel& m) {
    sqlite3* db = store_.handle();
    Transaction tx(db);
    sql::Statement st(db,
                      "INSERT INTO models(kind, feature_set, coefficients_json, training_trial_ids_json, cv_json, "
                      "created_at, build_id, hardware_scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    st.bind_text(1, m.kind)
        .bind_text(2, m.feature_set)
        .bind_text(3, m.coefficients_json)
        .bind_text(4, m.training_trial_ids_json)
        .bind_text(5, m.cv_json)
        .bind_text(6, m.created_at.empty() ? now_iso8601() : m.created_at)
        .bind_text(7, m.build_id)
        .bind_text(8, m.hardware_scope);
    st.run();
    const long id = static_cast<long>(sqlite3_last_insert_rowid(db));
    tx.commit();
    return id;
}

std::optional<StoredModel> ModelStore::get(long id) const {
    sql::Statement st(store_.handle(), std::string("SELECT ") + kColumns + " FROM models WHERE id = ?");
    st.bind_int(1, id);
    if (!st.step()) return std::nullopt;
    return read_row(st);
}

std::optional<StoredModel> ModelStore::latest(const std::optional<std::string>& kind) const {
    // Highest id = last inserted; created_at may tie within a millisecond.
    sql::Statement st(store_.handle(), std::string("SELECT ") + kColumns + " FROM models" +
                                           (kind ? " WHERE kind = ?" : "") + " ORDER BY id DESC LIMIT 1");
    if (kind) st.bind_text(1, *kind);
    if (!st.step()) return std::nullopt;
    return read_row(st);
}

std::vector<StoredModel> ModelStore::list() const {
    sql::Statement st(store_.handle(), std::string("SELECT ") + kColumns + " FROM models ORDER BY id");
    std::vector<StoredModel> out;
    while (st.step()) out.push_back(read_row(st));
    return out;
}

std::vector<std::string> ModelStore::hardware_ids() const {
    sql::Statement st(store_.handle(), "SELECT id FROM hardware ORDER BY first_seen, id");
    std::vector<std::string> out;
    while (st.step()) out.push_back(st.column_text(0));
    return out;
}

}  // namespace mdtune::db
