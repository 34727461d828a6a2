// The MPI collective tables of the database (db/src/mpi_store.cpp): store,
// replace, filter, keep-faster upserts, rules evaluations and models.
#include <gtest/gtest.h>

#include "mdtune/db/mpi_store.h"
#include "mdtune/models/mpi_selection.h"
#include "mpi_test_support.h"

using namespace mdtune;
using namespace mpitest;

TEST(MpiStoreTest, StoresReplacesAndFilters) {
    TempDir dir;
    db::Store store(dir.file("m.db"));
    EXPECT_EQ(store.schema_version(), db::kSchemaVersion);
    db::MpiStore ms(store);
    const long sweep = ms.begin_sweep("hw1", "Open MPI 4.1.4", "mpirun", "{}");
    db::MpiMeasurement m{.sweep_id = sweep, .hardware_id = "hw1", .mpi_library = "Open MPI 4.1.4", .nodes = 1, .ppn = 4,
                         .ranks = 4, .collective = "allreduce", .selection = "forced", .algorithm = 3, .bytes = 64,
                         .iterations = 100, .lat_median_us = 2.5, .status = "ok"};
    db::MpiMeasurement f = m;
    f.algorithm = 6;
    f.status = "failed";
    f.error = "MPI_ERR_ARG";
    ms.put_measurements({m, f});
    m.lat_median_us = 2.0;  // re-measured
    ms.put_measurements({m});
    ms.finish_sweep(sweep, "done");
    auto rows = ms.measurements();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].lat_median_us, 2.0);
    EXPECT_EQ(rows[1].error, "MPI_ERR_ARG");
    EXPECT_EQ(rows[1].lat_median_us, 0.0);  // NULL for failures
    db::MpiFilter filter;
    filter.collective = "bcast";
    EXPECT_TRUE(ms.measurements(filter).empty());
    filter.collective = "allreduce";
    filter.ranks = 4;
    EXPECT_EQ(ms.measurements(filter).size(), 2u);
    // A bad row leaves the database as it was.
    db::MpiMeasurement broken = m;
    broken.bytes = 128;
    db::MpiMeasurement worse = m;
    worse.status = "great";
    EXPECT_THROW(ms.put_measurements({broken, worse}), db::DbError);
    EXPECT_EQ(ms.measurements().size(), 2u);
    EXPECT_THROW(ms.finish_sweep(sweep + 100, "done"), db::DbError);

    // Repeats keep the faster row; a failed repeat never replaces a success.
    m.lat_p10_us = 1.5;
    ms.put_measurements({m});
    db::MpiMeasurement slower = m;
    slower.lat_p10_us = 1.8;
    db::MpiMeasurement failed = m;
    failed.status = "failed";
    ms.put_measurements({slower, failed}, db::MpiStore::Upsert::KeepFaster);
    filter.selection = "forced";
    auto kept = ms.measurements(filter);
    EXPECT_EQ(kept[0].lat_p10_us, 1.5);
    EXPECT_EQ(kept[0].status, "ok");
    db::MpiMeasurement faster = m;
    faster.lat_p10_us = 1.2;
    db::MpiMeasurement now_ok = f;  // the failed algorithm 6 row, measured fine this time
    now_ok.status = "ok";
    now_ok.lat_p10_us = 9;
    ms.put_measurements({faster, now_ok}, db::MpiStore::Upsert::KeepFaster);
    kept = ms.measurements(filter);
    EXPECT_EQ(kept[0].lat_p10_us, 1.2);
    EXPECT_EQ(kept[1].status, "ok");

    db::MpiRulesEval e;
    e.hardware_id = "hw1";
    e.mpi_library = "Open MPI 4.1.4";
    e.collective = "bcast";
    e.bytes = 8;
    e.rounds = 2;
    e.default_us = 3;
    e.rules_us = 2;
    ms.put_rules_evaluation("abc", "1\n", {e, e});
    EXPECT_EQ(ms.rules_evaluations("abc").size(), 2u);
    ms.put_rules_evaluation("abc", "1\n", {e});  // same file again: its text is kept once
    EXPECT_EQ(ms.rules_evaluations("abc").size(), 3u);

    db::MpiModelRow row;
    row.hardware_id = "hw1";
    row.mpi_library = "Open MPI 4.1.4";
    row.collective = "bcast";
    row.feature_set = describe(models::mpi::FeatureSet::Spline);
    row.model_json = "[]";
    row.cv_json = "{}";
    ms.put_model(row);
    const long second = ms.put_model(row);
    EXPECT_EQ(ms.latest_model("hw1", "bcast")->id, second);
    EXPECT_FALSE(ms.latest_model("hw1", "alltoall"));
}
