// What the store refuses and what it never writes: another program's database,
// failed opens that must leave the file byte-identical, and read-only opens of
// WAL files in folders the reader cannot write.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include "migrations.h"
#include "../common/temp_dir_test.h"
#include "file_bytes.h"
#include "mdtune/db/store.h"
#include "store_fixtures.h"

namespace fs = std::filesystem;
using namespace mdtune;

using mdtest::read_bytes;

namespace {

void exec_raw(const fs::path& p, const std::string& sql) { storetest::RawDb(p).exec(sql); }

// A file's bytes and modification time, to show an open left it alone.
struct Snapshot {
    explicit Snapshot(const fs::path& p) : bytes(read_bytes(p)) {
        struct stat st {};
        ::stat(p.c_str(), &st);
        mtime_ns = st.st_mtim.tv_sec * 1'000'000'000L + st.st_mtim.tv_nsec;
    }
    bool operator==(const Snapshot&) const = default;
    std::string bytes;
    long mtime_ns = 0;
};

std::string refusal_of(const std::string& path, db::Store::Mode mode) {
    try {
        db::Store s(path, mode);
    } catch (const db::DbRefusedError& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("not a DbRefusedError: ") + e.what();
    }
    return "";
}

using StoreRefusal = mdtest::TempDirTest;

// Runs `body` as a user the permission bits apply to (nobody, when the test runs as
// root) in a child process; returns its exit code (0 = body returned true).
int as_unprivileged_user(const std::function<bool()>& body) {
    const pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
        bool ok = false;
        try {
            ok = body();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "child: %s\n", e.what());
        }
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST_F(StoreRefusal, AnotherProgramsDatabaseIsRefusedNamingItsTables) {
    const std::string p = path("places.sqlite");
    exec_raw(p, "CREATE TABLE places(id INTEGER PRIMARY KEY, url TEXT); INSERT INTO places(url) VALUES('x');"
                "CREATE TABLE bookmarks(id INTEGER);");
    const Snapshot before(p);
    for (db::Store::Mode mode : {db::Store::Mode::ReadWrite, db::Store::Mode::ReadOnly}) {
        const std::string e = refusal_of(p, mode);
        EXPECT_NE(e.find(p + ": not an mdtune database"), std::string::npos) << e;
        EXPECT_NE(e.find("bookmarks, places"), std::string::npos) << e;
        EXPECT_NE(e.find("user_version 0"), std::string::npos) << e;
    }
    EXPECT_EQ(Snapshot(p), before);
    EXPECT_FALSE(fs::exists(p + "-wal"));
    EXPECT_FALSE(fs::exists(p + "-journal"));

    // Merging it is refused too, and merging into it.
    const std::string ours = path("ours.db");
    { db::Store s(ours); s.insert_trial(storetest::make_trial(20)); }
    EXPECT_THROW(db::Store(ours).merge_from(p), db::DbRefusedError);
    EXPECT_EQ(Snapshot(p), before);
}

TEST_F(StoreRefusal, ForeignUserVersionIsNotMistakenForANewerMdtune) {
    // Firefox's places.sqlite has user_version 70 and no mdtune tables.
    const std::string p = path("places.sqlite");
    exec_raw(p, "CREATE TABLE moz_places(id INTEGER); PRAGMA user_version = 70;");
    const std::string e = refusal_of(p, db::Store::Mode::ReadWrite);
    EXPECT_NE(e.find("not an mdtune database: user_version is 70"), std::string::npos) << e;
    EXPECT_NE(e.find("it has moz_places"), std::string::npos) << e;
    // At a version mdtune knows, its tables must be there.
    const std::string q = path("v2.db");
    exec_raw(q, "CREATE TABLE trials(x); PRAGMA user_version = 2;");
    const std::string f = refusal_of(q, db::Store::Mode::ReadOnly);
    EXPECT_NE(f.find("mdtune's table(s) builds, configs, hardware, models, sweeps and 1 more are missing"),
              std::string::npos) << f;
}

TEST_F(StoreRefusal, EmptyAndMdtuneFilesStillOpen) {
    const std::string empty = path("empty.db");
    std::ofstream(empty).flush();
    EXPECT_EQ(db::Store(empty).schema_version(), db::kSchemaVersion);
    // A user's own extra table beside mdtune's does not make it foreign.
    exec_raw(empty, "CREATE TABLE my_notes(t TEXT);");
    EXPECT_EQ(db::Store(empty, db::Store::Mode::ReadOnly).schema_version(), db::kSchemaVersion);
}

TEST_F(StoreRefusal, FailedOpensLeaveTheFileByteIdentical) {
    // A failing migration on a file in rollback-journal mode: WAL is switched on only
    // after migrating, so the header (journal mode) and every page stay as they were.
    const std::string old = path("v2.db");
    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(old.c_str(), &db), SQLITE_OK);
        db::migrate_to(db, 2);
        sqlite3_close(db);
    }
    const std::string newer = path("newer.db");
    { db::Store s(newer); s.insert_trial(storetest::make_trial(20)); }
    exec_raw(newer, "PRAGMA user_version = 99");
    const std::string foreign = path("foreign.db");
    exec_raw(foreign, "CREATE TABLE places(id INTEGER)");

    const Snapshot old_before(old), newer_before(newer), foreign_before(foreign);
    db::set_failing_migration_for_tests(3);
    EXPECT_THROW(db::Store s(old), db::DbError);
    db::set_failing_migration_for_tests(0);
    EXPECT_THROW(db::Store s(newer), db::DbRefusedError);
    EXPECT_THROW(db::Store s(foreign), db::DbRefusedError);
    EXPECT_TRUE(Snapshot(old) == old_before) << "a failed migration changed the file";
    EXPECT_TRUE(Snapshot(newer) == newer_before);
    EXPECT_TRUE(Snapshot(foreign) == foreign_before);
    for (const std::string& p : {old, foreign}) {
        EXPECT_FALSE(fs::exists(p + "-wal")) << p;
        EXPECT_FALSE(fs::exists(p + "-shm")) << p;
    }
    // The same file opens, migrates and only then switches to WAL.
    db::Store s(old);
    EXPECT_EQ(s.schema_version(), db::kSchemaVersion);
    EXPECT_EQ(read_bytes(old)[18], 2) << "not in WAL mode after a successful open";
}

TEST_F(StoreRefusal, WalDatabaseInAReadOnlyFolderIsReadWithoutWriting) {
    const std::string p = path("trials.db");
    { db::Store s(p); s.insert_trial(storetest::make_trial(20)); }
    ASSERT_EQ(read_bytes(p)[18], 2) << "expected a WAL file";
    ASSERT_FALSE(fs::exists(p + "-wal"));
    fs::permissions(p, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(dir_, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
    const Snapshot before(p);
    const int rc = as_unprivileged_user([&] {
        const db::Store ro(p, db::Store::Mode::ReadOnly);
        return ro.trials().size() == 1 && ro.schema_version() == db::kSchemaVersion;
    });
    EXPECT_EQ(rc, 0) << "the read-only open failed (see the child's message above)";
    EXPECT_TRUE(Snapshot(p) == before) << "a read changed the file";
    EXPECT_FALSE(fs::exists(p + "-wal"));
    EXPECT_FALSE(fs::exists(p + "-shm"));
    // The folder check is real: the same user cannot create a file there.
    EXPECT_NE(as_unprivileged_user([&] { return std::ofstream(path("probe")).good(); }), 0);
}

TEST_F(StoreRefusal, PendingWalInAReadOnlyFolderIsAClearError) {
    // A -wal file with commits not yet in the main file (a writer killed before its
    // checkpoint, copied here without its -shm): an immutable read would miss them.
    const std::string src = path("src.db");
    { db::Store s(src); }
    sqlite3* writer = nullptr;
    ASSERT_EQ(sqlite3_open(src.c_str(), &writer), SQLITE_OK);
    sqlite3_exec(writer, "PRAGMA wal_autocheckpoint = 0; INSERT INTO configs(id) VALUES('x');", nullptr, nullptr, nullptr);
    const fs::path ro_dir = dir_ / "ro";
    fs::create_directories(ro_dir);
    fs::copy_file(src, ro_dir / "trials.db");
    fs::copy_file(src + "-wal", ro_dir / "trials.db-wal");
    sqlite3_close(writer);
    ASSERT_GT(fs::file_size(ro_dir / "trials.db-wal"), 0u);
    fs::permissions(ro_dir, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
    const std::string p = (ro_dir / "trials.db").string();
    const int rc = as_unprivileged_user([&] {
        try {
            db::Store ro(p, db::Store::Mode::ReadOnly);
        } catch (const db::DbError& e) {
            return std::string(e.what()).find("-wal holds changes not yet in the file") != std::string::npos;
        }
        return false;
    });
    fs::permissions(ro_dir, fs::perms::owner_all, fs::perm_options::add);
    EXPECT_EQ(rc, 0);
}
