// The store builder writes its tiles and flame buckets through BatchedInsert, many rows a
// statement: the file must hold the same bytes as one INSERT a row (stores are pinned to
// digests), whatever the batches' cut, with other tables written between the runs.

#include "storage/store/sqlite_db.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>

using namespace strata;

namespace {

constexpr const char* kSchema =
    "PRAGMA page_size=1024; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
    "CREATE TABLE blobs(track INTEGER NOT NULL, level INTEGER NOT NULL, bucket INTEGER NOT NULL,"
    " payload BLOB NOT NULL, PRIMARY KEY(track, level, bucket)) WITHOUT ROWID;"
    "CREATE TABLE other(id INTEGER PRIMARY KEY, text TEXT NOT NULL);";

std::string payload(int track, int bucket)
{
    // Sizes from a few bytes to past a page, so that rows overflow and pages split.
    return std::string(static_cast<std::size_t>((track * 131 + bucket * 37) % 1500 + 1),
        static_cast<char>('a' + (track + bucket) % 26));
}

std::string bytesOf(const std::filesystem::path& file)
{
    std::ifstream in(file, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), {} };
}

/// Tracks of 0, 1, 31, 32, 33 and 100 rows, a row of `other` after each track's run.
void write(const std::filesystem::path& file, bool batched)
{
    const int rowsOf[] = { 0, 1, 31, 32, 33, 100 };
    {
        storage::SqliteDb db(file, storage::SqliteDb::Mode::Create);
        db.exec(kSchema);
        db.exec("BEGIN");
        storage::BatchedInsert batch(db, "blobs", 4);
        auto one = db.prepare("INSERT INTO blobs VALUES(?,?,?,?)");
        auto other = db.prepare("INSERT INTO other VALUES(?,?)");
        for (int track = 0; track < 6; ++track) {
            for (int bucket = 0; bucket < rowsOf[track]; ++bucket) {
                const std::string bytes = payload(track, bucket);
                if (batched) {
                    batch.value(track).value(bucket % 3).value(bucket).blob(bytes).endRow();
                } else {
                    one.bind(1, std::int64_t(track))
                        .bind(2, std::int64_t(bucket % 3))
                        .bind(3, std::int64_t(bucket))
                        .bindBlob(4, bytes)
                        .run();
                }
            }
            batch.flush();
            // Long enough that `other` takes new pages between the runs.
            other.bind(1, std::int64_t(track)).bind(2, std::string(700, 'o')).run();
        }
        db.exec("COMMIT");
    }
}

}  // namespace

TEST_CASE("rows INSERTed in batches make the same file as one statement a row", "[store][sqlite]") {
    test::TempDir dir;
    write(dir.path() / "one.db", false);
    write(dir.path() / "batched.db", true);
    const std::string one = bytesOf(dir.path() / "one.db");
    REQUIRE(one.size() > 100 * 1024);  // overflow pages and splits, not one page
    REQUIRE(bytesOf(dir.path() / "batched.db") == one);
}

TEST_CASE("a batched row with a column missing is refused", "[store][sqlite]") {
    test::TempDir dir;
    storage::SqliteDb db(dir.path() / "x.db", storage::SqliteDb::Mode::Create);
    db.exec(kSchema);
    storage::BatchedInsert batch(db, "blobs", 4);
    REQUIRE_THROWS_AS(batch.value(1).value(2).value(3).endRow(), std::logic_error);
}
