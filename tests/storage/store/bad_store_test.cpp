// Files that are not stores, newer stores, truncated and corrupted stores give a clean
// StoreError naming the file: never a crash, never a silent wrong answer from a tile.

#include "storage/store/sqlite_db.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "tests/support/random_trace.h"
#include "tests/support/temp_dir.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <random>

using namespace strata;

namespace {

std::string readBytes(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void writeBytes(const std::filesystem::path& p, const std::string& bytes)
{
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

/// Opens the store and reads everything in it; returns normally or throws StoreError.
void readEverything(const std::filesystem::path& path)
{
    storage::StoreReader reader(path, {.cacheBytes = 1 << 20});
    std::vector<model::TrackId> tracks;
    for (const model::TrackInfo& t : reader.resources().tracks())
        tracks.push_back(t.id);
    const model::TimeRange span = reader.span();
    for (const int px : {100, 100000}) {
        const auto slices = reader.query({tracks, span.startNs - 5, span.endNs + 5, px});
        for (const auto& slice : slices) {
            for (std::size_t i = 0; i < slice.intervals.size(); i += 97)
                reader.intervalArgs(slice.track, slice.intervals[i]);
        }
    }
}

std::string goodStore(const test::TempDir& dir)
{
    storage::MemoryTrace trace;
    test::makeRandomTrace({.seed = 21, .threads = 2, .intervalsPerThread = 4000}, trace);
    storage::StoreBuilder builder(dir / "good.strata");
    trace.replayInto(builder);
    builder.finish();
    return readBytes(dir / "good.strata");
}

} // namespace

TEST_CASE("a file that is not a store gives a clear error", "[store][bad]")
{
    test::TempDir dir;
    writeBytes(dir / "trace.json", "{\"traceEvents\": []}");
    CHECK_THROWS_WITH(storage::StoreReader(dir / "trace.json"),
                      Catch::Contains("trace.json") && Catch::Contains("not a Strata store"));
    writeBytes(dir / "empty.strata", "");
    CHECK_THROWS_AS(storage::StoreReader(dir / "empty.strata"), storage::StoreError);
    CHECK_THROWS_WITH(storage::StoreReader(dir / "missing.strata"), Catch::Contains("no such"));
    {
        storage::SqliteDb other(dir / "other.db", storage::SqliteDb::Mode::Create);
        other.exec("CREATE TABLE t(x); INSERT INTO t VALUES(1);");
    }
    CHECK_THROWS_WITH(storage::StoreReader(dir / "other.db"), Catch::Contains("not a Strata store"));
}

TEST_CASE("a store of a newer format version is refused with its version", "[store][bad]")
{
    test::TempDir dir;
    goodStore(dir);
    {
        storage::SqliteDb db(dir / "good.strata", storage::SqliteDb::Mode::Create);
        db.exec("UPDATE meta SET value = '99' WHERE key = 'format_version'");
    }
    CHECK_THROWS_WITH(storage::StoreReader(dir / "good.strata"),
                      Catch::Contains("version 99") && Catch::Contains("newer"));
}

TEST_CASE("every truncation of a store gives a clean error", "[store][bad]")
{
    test::TempDir dir;
    const std::string bytes = goodStore(dir);
    REQUIRE_NOTHROW(readEverything(dir / "good.strata"));
    std::mt19937_64 rng(1);
    for (int i = 0; i < 40; ++i) {
        const std::size_t size = i == 0 ? 0 : i == 1 ? 50 : rng() % bytes.size();
        writeBytes(dir / "cut.strata", bytes.substr(0, size));
        INFO("truncated to " << size << " of " << bytes.size());
        CHECK_THROWS_AS(readEverything(dir / "cut.strata"), storage::StoreError);
    }
}

TEST_CASE("random byte flips in a store never crash the reader", "[store][bad]")
{
    test::TempDir dir;
    const std::string bytes = goodStore(dir);
    std::mt19937_64 rng(2);
    int errors = 0;
    for (int i = 0; i < 300; ++i) {
        std::string damaged = bytes;
        const int flips = 1 + static_cast<int>(rng() % 8);
        for (int f = 0; f < flips; ++f)
            damaged[rng() % damaged.size()] ^= static_cast<char>(1 + rng() % 255);
        writeBytes(dir / "bad.strata", damaged);
        try {
            readEverything(dir / "bad.strata");
        } catch (const storage::StoreError& e) {
            ++errors;
            CHECK_THAT(e.what(), Catch::Contains("bad.strata"));
        }
    }
    // Most flips land in tile payloads or b-tree pages and are caught; some land in
    // free space or unread bytes and change nothing the reader looks at.
    CHECK(errors > 100);
}
