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
    st.read_columns(0, m.id, m.kind, m.feature_set, m.coefficients_json, m.training_trial_ids_json, m.cv_json,
                    m.created_at, m.build_id, m.hardware_scope);
    return m;
}

}  // namespace

long ModelStore::insert(const StoredModel& m) {
    Transaction tx(store_.handle());
    const long id = sql::insert_row(store_.handle(),
                                    "INSERT INTO models(kind, feature_set, coefficients_json, training_trial_ids_json, "
                                    "cv_json, created_at, build_id, hardware_scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                    m.kind, m.feature_set, m.coefficients_json, m.training_trial_ids_json, m.cv_json,
                                    m.created_at.empty() ? now_iso8601() : m.created_at, m.build_id, m.hardware_scope);
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
