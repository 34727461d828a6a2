// docs/user/database.md cannot drift from the schema: every table and column it lists
// exists, every column of the schema is listed, and every ```sql query in it runs on
// a database written through the store and returns the rows worked out here by hand.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../common/temp_dir_test.h"
#include "mdtune/db/store.h"

using namespace mdtune;

namespace {

std::string read_doc() {
    std::ifstream in(MDT_DATABASE_DOC);
    EXPECT_TRUE(in.good()) << "cannot read " << MDT_DATABASE_DOC;
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// The ```sql blocks, in document order.
std::vector<std::string> sql_blocks(const std::string& doc) {
    std::vector<std::string> out;
    std::string block;
    bool inside = false;
    for (const std::string& line : lines_of(doc)) {
        if (!inside && line == "```sql") {
            inside = true;
            block.clear();
        } else if (inside && line == "```") {
            inside = false;
            out.push_back(block);
        } else if (inside) {
            block += line + "\n";
        }
    }
    return out;
}

std::vector<std::string> backticked(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t open = text.find('`'); open != std::string::npos; open = text.find('`', open)) {
        const std::size_t close = text.find('`', open + 1);
        if (close == std::string::npos) break;
        out.push_back(text.substr(open + 1, close - open - 1));
        open = close + 1;
    }
    return out;
}

using Columns = std::set<std::pair<std::string, std::string>>;  // (table, column)

// "### a, b" sections: the first cell of each table row names columns, as `column`
// when the section has one table and as `table.column` when it has several.
Columns documented_columns(const std::string& doc) {
    Columns out;
    std::vector<std::string> tables;
    for (const std::string& line : lines_of(doc)) {
        if (line.rfind("## ", 0) == 0) tables.clear();
        if (line.rfind("### ", 0) == 0) {
            tables.clear();
            std::stringstream names(line.substr(4));
            for (std::string t; std::getline(names, t, ',');) tables.push_back(t.substr(t.find_first_not_of(' ')));
            continue;
        }
        if (tables.empty() || line.rfind("| `", 0) != 0) continue;
        const std::string cell = line.substr(1, line.find('|', 1) - 1);
        for (const std::string& name : backticked(cell)) {
            const std::size_t dot = name.find('.');
            if (tables.size() == 1 && dot == std::string::npos) {
                out.insert({tables[0], name});
            } else {
                EXPECT_NE(dot, std::string::npos) << "'" << name << "' under a section of several tables needs its table";
                out.insert({name.substr(0, dot), name.substr(dot + 1)});
            }
        }
    }
    return out;
}

Columns schema_columns(sqlite3* db) {
    Columns out;
    sqlite3_stmt* st = nullptr;
    const char* sql =
        "SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'";
    EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    while (sqlite3_step(st) == SQLITE_ROW)
        out.insert({reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
                    reinterpret_cast<const char*>(sqlite3_column_text(st, 1))});
    sqlite3_finalize(st);
    return out;
}

struct Result {
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;  // NULL reads as "NULL"
};

Result run_query(sqlite3* db, const std::string& sql) {
    Result r;
    sqlite3_stmt* st = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, &tail) != SQLITE_OK) {
        ADD_FAILURE() << sqlite3_errmsg(db) << " in\n" << sql;
        return r;
    }
    EXPECT_EQ(std::string(tail).find_first_not_of(" \n"), std::string::npos) << "one statement per block:\n" << sql;
    for (int c = 0; c < sqlite3_column_count(st); ++c) r.columns.push_back(sqlite3_column_name(st, c));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        std::vector<std::string> row;
        for (int c = 0; c < sqlite3_column_count(st); ++c) {
            const unsigned char* text = sqlite3_column_text(st, c);
            row.push_back(text ? reinterpret_cast<const char*>(text) : "NULL");
        }
        r.rows.push_back(row);
    }
    EXPECT_EQ(rc, SQLITE_DONE) << sqlite3_errmsg(db) << " in\n" << sql;
    sqlite3_finalize(st);
    return r;
}

using DatabaseDoc = mdtest::TempDirTest;

// Two machines, two water sizes, every trial status, a baseline (default config)
// per sweep and system, one trial outside any sweep and one build without trials.
void fill(db::Store& store) {
    store.put_hardware("hw-a", R"({"id":"hw-a","cpu_model":"Test CPU A","physical_cores":8})");
    store.put_hardware("hw-b", R"({"id":"hw-b","cpu_model":"Test CPU B","physical_cores":16})");
    store.put_build("build-1", R"({"mdcore":{"id":"gnu-build-id:aa"}})");
    store.put_build("build-2", R"({"mdcore":{"id":"gnu-build-id:bb"}})");
    store.put_build("build-3", R"({"mdcore":{"id":"file-fnv1a:cc"}})");
    const long quick = store.create_sweep("quick", "[system]\n", "exhaustive");
    const long big = store.create_sweep("big", "[system]\n", "random");

    const auto add = [&store](long sweep, const std::string& hw, const std::string& build, long natoms,
                              const std::string& cluster, long nstlist, TrialStatus status, double ms, double ns,
                              const std::string& effective_cluster, double nonbonded_s, double search_s,
                              const std::string& stderr_tail = "") {
        db::StoredTrial t;
        t.sweep_id = sweep;
        t.hardware_id = hw;
        t.system = SystemDescriptor{mdcore::SystemKind::Water, natoms, 1};
        if (!cluster.empty()) t.config.set(Param::Cluster, cluster);
        if (nstlist) t.config.set(Param::Nstlist, nstlist);
        t.build_id = build;
        t.measure = MeasureSettings{500, 50, 3, 30.0};
        TrialResult& r = t.result;
        r.status = status;
        r.repeats = is_failure(status) ? 0 : 3;
        r.ms_median = r.ms_min = r.ms_max = ms;
        r.ns_per_day = ns;
        if (!is_failure(status)) {
            r.timings = {{"nonbonded", nonbonded_s}, {"search", search_s}};
            r.report.emplace();
            r.report->config.cluster = *mdcore::parse_cluster_shape(effective_cluster);
        }
        r.stderr_tail = stderr_tail;
        ASSERT_TRUE(store.insert_trial(t));
    };
    using S = TrialStatus;
    add(quick, "hw-a", "build-1", 3000, "", 0, S::Ok, 2.0, 100.0, "4x4", 0.0012, 0.0003);              // 1
    add(quick, "hw-a", "build-1", 3000, "4x8", 0, S::Ok, 1.5, 133.3, "4x8", 0.0009, 0.0002);           // 2
    add(quick, "hw-a", "build-1", 3000, "8x4", 0, S::Ok, 1.5, 133.3, "8x4", 0.0010, 0.0002);           // 3
    add(quick, "hw-a", "build-1", 3000, "", 80, S::Invalid, 1.0, 200.0, "4x4", 0.0006, 0.0001);        // 4
    add(quick, "hw-a", "build-1", 3000, "", 10, S::Failed, 0, 0, "", 0, 0, "bad\n[mdtune] exit code 2");  // 5
    add(quick, "hw-a", "build-1", 12000, "", 0, S::Ok, 8.0, 25.0, "4x4", 0.005, 0.001);                // 6
    add(quick, "hw-a", "build-1", 12000, "4x8", 0, S::Ok, 6.0, 33.3, "4x8", 0.004, 0.001);             // 7
    add(quick, "hw-a", "build-1", 12000, "8x4", 0, S::Timeout, 0, 0, "", 0, 0, "[mdtune] timed out");  // 8
    add(big, "hw-b", "build-2", 3000, "", 0, S::Ok, 1.0, 200.0, "8x4", 0.0006, 0.0001);                // 9
    add(big, "hw-b", "build-2", 3000, "4x8", 0, S::Crashed, 0, 0, "", 0, 0, "[mdtune] killed by signal 11");  // 10
    add(big, "hw-b", "build-2", 3000, "8x4", 0, S::Ok, 0.8, 250.0, "8x4", 0.0005, 0.0001);             // 11
    add(0, "hw-b", "build-2", 12000, "4x8", 0, S::Ok, 4.0, 50.0, "4x8", 0.002, 0.0005);                 // 12
    store.finish_sweep(quick, "done");
    store.finish_sweep(big, "interrupted");
}

using Rows = std::vector<std::vector<std::string>>;

// What each query of the document returns on fill()'s database, in document order.
const std::vector<Result>& expected_results() {
    static const std::vector<Result> results{
        {{"hardware_id", "kind", "natoms", "config_id", "ms_median", "ns_per_day"},
         Rows{{"hw-a", "water", "3000", "cluster=4x8", "1.5", "133.3"},  // ties with 8x4: the lower id
              {"hw-a", "water", "12000", "cluster=4x8", "6.0", "33.3"},
              {"hw-b", "water", "3000", "cluster=8x4", "0.8", "250.0"},
              {"hw-b", "water", "12000", "cluster=4x8", "4.0", "50.0"}}},
        {{"id", "status", "system", "config_id", "stderr_tail"},
         Rows{{"5", "failed", "water:natoms=3000:seed=1", "nstlist=10", "bad\n[mdtune] exit code 2"},
              {"8", "timeout", "water:natoms=12000:seed=1", "cluster=8x4", "[mdtune] timed out"},
              {"10", "crashed", "water:natoms=3000:seed=1", "cluster=4x8", "[mdtune] killed by signal 11"}}},
        {{"cpu", "cores", "kind", "natoms", "best_ns_per_day", "ok_trials"},
         Rows{{"Test CPU B", "16", "water", "3000", "250.0", "2"},
              {"Test CPU A", "8", "water", "3000", "133.3", "3"},
              {"Test CPU B", "16", "water", "12000", "50.0", "1"},
              {"Test CPU A", "8", "water", "12000", "33.3", "2"}}},
        {{"hardware_id", "kind", "natoms", "default_ms", "best_ms", "speedup"},
         Rows{{"hw-a", "water", "3000", "2.0", "1.5", "1.33"},
              {"hw-a", "water", "12000", "8.0", "6.0", "1.33"},
              {"hw-b", "water", "3000", "1.0", "0.8", "1.25"}}},  // hw-b's 12000 has no baseline
        {{"sweep", "name", "sweep_status", "status", "trials"},
         Rows{{"1", "quick", "done", "failed", "1"},
              {"1", "quick", "done", "invalid", "1"},
              {"1", "quick", "done", "ok", "5"},
              {"1", "quick", "done", "timeout", "1"},
              {"2", "big", "interrupted", "crashed", "1"},
              {"2", "big", "interrupted", "ok", "2"}}},
        {{"hardware_id", "cluster", "trials", "best_ms", "nonbonded_ms", "search_ms"},
         Rows{{"hw-a", "4x8", "1", "1.5", "0.9", "0.2"},
              {"hw-a", "8x4", "1", "1.5", "1.0", "0.2"},
              {"hw-a", "4x4", "1", "2.0", "1.2", "0.3"},
              {"hw-b", "8x4", "2", "0.8", "0.55", "0.1"}}},
        {{"build", "mdcore", "trials"},
         Rows{{"build-1", "gnu-build-id:aa", "8"}, {"build-2", "gnu-build-id:bb", "4"}, {"build-3", "file-fnv1a:cc", "0"}}},
    };
    return results;
}

TEST_F(DatabaseDoc, ListsEveryTableAndColumnOfTheSchemaAndNoOther) {
    db::Store store(path("empty.db"));
    const Columns schema = schema_columns(store.handle());
    const Columns documented = documented_columns(read_doc());
    ASSERT_FALSE(schema.empty());
    for (const auto& [table, column] : schema)
        EXPECT_TRUE(documented.count({table, column})) << table << "." << column << " is not in docs/user/database.md";
    for (const auto& [table, column] : documented)
        EXPECT_TRUE(schema.count({table, column})) << "docs/user/database.md lists " << table << "." << column
                                                    << ", which the schema does not have";
}

TEST_F(DatabaseDoc, NamesTheCurrentSchemaVersion) {
    EXPECT_NE(read_doc().find("currently **" + std::to_string(db::kSchemaVersion) + "**"), std::string::npos);
}

TEST_F(DatabaseDoc, EveryQueryReturnsTheRowsOfItsDescription) {
    db::Store store(path("mdtune.db"));
    fill(store);
    const std::vector<std::string> queries = sql_blocks(read_doc());
    const std::vector<Result>& expected = expected_results();
    ASSERT_EQ(queries.size(), expected.size()) << "a query was added to or removed from docs/user/database.md: "
                                                  "give this test its expected rows";
    for (std::size_t q = 0; q < queries.size(); ++q) {
        SCOPED_TRACE("query " + std::to_string(q + 1) + ":\n" + queries[q]);
        const Result got = run_query(store.handle(), queries[q]);
        EXPECT_EQ(got.columns, expected[q].columns);
        EXPECT_EQ(got.rows, expected[q].rows);
    }
}

// `db merge` output answers every query as its input does.
TEST_F(DatabaseDoc, QueriesAnswerTheSameOnAMergedFile) {
    db::Store whole(path("whole.db"));
    fill(whole);
    db::Store merged(path("merged.db"));
    merged.merge_from(path("whole.db"));
    const std::vector<std::string> queries = sql_blocks(read_doc());
    for (std::size_t q = 0; q < queries.size(); ++q) {
        SCOPED_TRACE("query " + std::to_string(q + 1));
        const Result a = run_query(whole.handle(), queries[q]);
        const Result b = run_query(merged.handle(), queries[q]);
        EXPECT_EQ(a.rows, b.rows);
    }
}

}  // namespace
