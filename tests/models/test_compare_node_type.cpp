// `mdtune compare` by node type: databases merged from partitions of different
// hardware are compared under the node types their fingerprints recorded, and a
// node type names the hardware on the command line.
#include <gtest/gtest.h>

#include <filesystem>

#include "../common/run_command.h"
#include "../common/temp_dir_test.h"
#include "mdtune/core/hardware.h"
#include "mdtune/db/store.h"

namespace mdtune {
namespace {

namespace fs = std::filesystem;

void add_node(db::Store& store, const std::string& id, const std::string& node_type, double ns_per_day) {
    HardwareInfo hw;
    hw.id = id;
    hw.cpu_model = "Test CPU";
    hw.physical_cores = hw.hardware_threads = 4;
    hw.simd = {"avx2"};
    hw.node_type = node_type;
    store.put_hardware(id, hw.to_json());
    db::StoredTrial t;
    t.hardware_id = id;
    t.system = {mdcore::SystemKind::Water, 3000, 1};
    t.build_id = "build-test";
    t.result.status = TrialStatus::Ok;
    t.result.ns_per_day = ns_per_day;
    t.result.ms_median = t.result.ms_min = t.result.ms_max = 1.0;
    store.insert_trial(t);
}

class CompareNodeType : public mdtest::TempDirTest {};  // removed afterwards, with SQLite's -wal and -shm

TEST_F(CompareNodeType, NodeTypesLabelTheRowsAndNameTheHardware) {
    const fs::path db = path("compare.db");
    {
        db::Store store(db.string());
        add_node(store, "hw-aaaa000000000001", "features: icelake+ib", 40.0);
        add_node(store, "hw-bbbb000000000002", "features: milan", 55.0);
    }
    const std::string base = std::string(MDTUNE_BINARY) + " compare --db " + db.string() + " --systems water:3000";
    auto r = mdtest::run_command(base + " --hardware hw-aaaa000000000001,hw-bbbb000000000002");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("features: icelake+ib (hw-aaaa000"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("features: milan (hw-bbbb000"), std::string::npos) << r.output;
    r = mdtest::run_command(base + " --hardware 'features: milan'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("55.00"), std::string::npos) << r.output;
    r = mdtest::run_command(base + " --hardware 'features: sapphire'");
    EXPECT_EQ(r.exit_code, 2) << r.output;
}

}  // namespace
}  // namespace mdtune
