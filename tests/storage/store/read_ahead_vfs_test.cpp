#include "storage/store/read_ahead_vfs.h"

#include "storage/store/memory_trace.h"
#include "storage/store/sqlite_db.h"
#include "storage/store/store_builder.h"

#include "tests/support/random_trace.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using namespace strata;

namespace {

/// Every tile's payload by id, read through `db` in the order of `ids`.
std::vector<std::string> payloads(storage::SqliteDb& db, const std::vector<std::int64_t>& ids)
{
    auto stmt = db.prepare("SELECT payload FROM tiles WHERE id = ?");
    std::vector<std::string> out;
    for (const std::int64_t id : ids) {
        stmt.bind(1, id);
        REQUIRE(stmt.step());
        out.emplace_back(stmt.blob(0));
        stmt.reset();
    }
    return out;
}

}  // namespace

TEST_CASE("a published store reads through the read-ahead VFS as through SQLite's own", "[store]") {
    // Tiles of several KB lie on chains of 1 KiB overflow pages: the VFS serves all but
    // the first pages of a chain from its copy. Read in order (runs of reads that follow
    // each other), backwards and shuffled (reads that do not), every payload must be the
    // bytes SQLite's own VFS reads.
    storage::MemoryTrace trace;
    test::makeRandomTrace({ .seed = 11, .threads = 4, .intervalsPerThread = 20000 }, trace);
    test::TempDir dir;
    const auto path = dir / "t.strata";
    {
        storage::StoreBuilder builder(path);
        trace.replayInto(builder);
        builder.finish();
    }
    storage::SqliteDb plain(path, storage::SqliteDb::Mode::ReadOnly);
    storage::SqliteDb published(path, storage::SqliteDb::Mode::Published);
    sqlite3_vfs* vfs = nullptr;
    REQUIRE(sqlite3_file_control(published.handle(), "main", SQLITE_FCNTL_VFS_POINTER, &vfs)
        == SQLITE_OK);
    REQUIRE(vfs);
    CHECK(std::string(vfs->zName) == storage::readAheadVfs());

    std::vector<std::int64_t> ids;
    std::size_t longest = 0;
    {
        auto stmt = plain.prepare("SELECT id, length(payload) FROM tiles ORDER BY id");
        while (stmt.step()) {
            ids.push_back(stmt.int64(0));
            longest = std::max(longest, static_cast<std::size_t>(stmt.int64(1)));
        }
    }
    REQUIRE(ids.size() > 100);
    REQUIRE(longest > 4 * 1024);  // chains of several overflow pages
    const auto expected = payloads(plain, ids);

    CHECK(payloads(published, ids) == expected);
    auto backwards = ids;
    std::reverse(backwards.begin(), backwards.end());
    auto got = payloads(published, backwards);
    std::reverse(got.begin(), got.end());
    CHECK(got == expected);
    auto shuffled = ids;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(3));
    got = payloads(published, shuffled);
    for (std::size_t i = 0; i < shuffled.size(); ++i) {
        const auto at = std::lower_bound(ids.begin(), ids.end(), shuffled[i]) - ids.begin();
        CHECK(got[i] == expected[static_cast<std::size_t>(at)]);
    }
    // Every page, in b-tree order, down to the file's last.
    auto check = published.prepare("PRAGMA integrity_check");
    REQUIRE(check.step());
    CHECK(check.text(0) == "ok");
}
