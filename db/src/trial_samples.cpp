// The trial_samples table: see trial_samples.h and docs/user/database.md.
#include "trial_samples.h"

#include "migrations.h"
#include "statement.h"

namespace mdtune::db {
namespace {

constexpr int kSamplesSchema = 6;
constexpr const char* kColumns =
    "round, position, ms_per_step, ref_ms_per_step, wall_s, measured_s, cpu_s, threads, load_avg, noisy";

}  // namespace

void write_samples(sqlite3* db, const std::string& trial_key, const std::vector<RepeatSample>& samples) {
    sql::Statement clear(db, "DELETE FROM trial_samples WHERE trial_key = ?");
    clear.bind_text(1, trial_key);
    clear.run();
    sql::Statement st(db, std::string("INSERT INTO trial_samples(trial_key, ") + kColumns +
                              ") VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const RepeatSample& s : samples) {
        st.bind_text(1, trial_key).bind_int(2, s.round).bind_int(3, s.position).bind_real(4, s.ms_per_step);
        if (s.ref_ms_per_step > 0) st.bind_real(5, s.ref_ms_per_step); else st.bind_null(5);
        st.bind_real(6, s.wall_s).bind_real(7, s.measured_s).bind_real(8, s.cpu_s).bind_int(9, s.threads);
        st.bind_real(10, s.load_avg).bind_int(11, s.noisy ? 1 : 0);
        st.run();
        st.reset();
    }
}

std::vector<RepeatSample> read_samples(sqlite3* db, const std::string& trial_key) {
    std::vector<RepeatSample> out;
    if (user_version(db) < kSamplesSchema) return out;  // a read-only open of an older file
    sql::Statement st(db, std::string("SELECT ") + kColumns + " FROM trial_samples WHERE trial_key = ? ORDER BY round");
    st.bind_text(1, trial_key);
    while (st.step()) {
        RepeatSample s;
        s.round = static_cast<int>(st.column_int(0));
        s.position = static_cast<int>(st.column_int(1));
        s.ms_per_step = st.column_real(2);
        s.ref_ms_per_step = st.column_real(3);  // NULL reads as 0: no reference
        s.wall_s = st.column_real(4);
        s.measured_s = st.column_real(5);
        s.cpu_s = st.column_real(6);
        s.threads = static_cast<int>(st.column_int(7));
        s.load_avg = st.column_real(8);
        s.noisy = st.column_int(9) != 0;
        out.push_back(s);
    }
    return out;
}

void copy_samples(sqlite3* from, sqlite3* to, const std::string& trial_key) {
    write_samples(to, trial_key, read_samples(from, trial_key));
}

}  // namespace mdtune::db
