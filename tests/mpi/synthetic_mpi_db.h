#pragma once
// A database of synthetic MPI measurements (no MPI needed): allreduce and
// alltoall on one node at 2, 3, 4, 6 and 8 ranks, 8 B .. 4 MiB; algorithm 3
// wins small messages, algorithm 4 large ones, Open MPI's default is 10 %
// behind the best. Hardware "hw-test", library "Open MPI 4.1.4".
#include <algorithm>
#include <string>
#include <vector>

#include "../common/temp_dir_test.h"
#include "mdtune/db/mpi_store.h"
#include "mdtune/db/store.h"

namespace mdtest {

inline void write_synthetic_mpi_db(const std::string& db) {
    mdtune::db::Store store(db);
    mdtune::db::MpiStore ms(store);
    std::vector<mdtune::db::MpiMeasurement> rows;
    for (const char* coll : {"allreduce", "alltoall"})
        for (int ppn : {2, 3, 4, 6, 8})
            for (long b = 8; b <= (4L << 20); b *= 4)
                for (int alg : {0, 3, 4}) {
                    mdtune::db::MpiMeasurement m;
                    m.hardware_id = "hw-test";
                    m.mpi_library = "Open MPI 4.1.4";
                    m.nodes = 1;
                    m.ppn = m.ranks = ppn;
                    m.collective = coll;
                    m.selection = alg ? "forced" : "default";
                    m.algorithm = alg;
                    m.bytes = b;
                    m.iterations = 10;
                    const double small = 2.0 * ppn + double(b) * 0.004 * ppn;
                    const double large = 30.0 * ppn + double(b) * 0.002 * ppn;
                    m.lat_median_us = alg == 3 ? small : alg == 4 ? large : 1.1 * std::min(small, large);
                    m.lat_min_us = m.lat_avg_us = m.lat_max_us = m.lat_median_us;
                    m.status = "ok";
                    rows.push_back(m);
                }
    ms.put_measurements(rows);
}

// A test with its own directory, where synthetic_db() writes the database above.
class SyntheticMpiDbTest : public TempDirTest {
protected:
    std::string synthetic_db() const {
        const std::string db = path("mpi.db");
        write_synthetic_mpi_db(db);
        return db;
    }
};

}  // namespace mdtest
