// What a store holds does not change when the builder changes how it gets there: the
// contents of stores built from fixed inputs are pinned to digests taken before the
// builder's memory rework (issue 16), on every path the builder has (in memory, spilled,
// one worker or two, long tracks tiled in pieces, a run of shards).
//
// The digest covers every row of every table (tile payloads included) in a canonical
// order, but not the SQLite file's own bytes (the library's version is in its header)
// nor meta tool_version: a new SQLite or a version bump leaves it alone, a changed tile,
// summary cell, flame bucket, id or count does not. A new zstd whose encoder compresses
// differently would change it too; then re-take the digests on the commit before yours.

#include "storage/store/run_builder.h"
#include "storage/store/run_manifest.h"
#include "storage/store/shard_router.h"
#include "storage/store/sqlite_db.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "storage/synth/synthetic_trace.h"

#include "tests/support/random_trace.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

using namespace strata;

namespace {

/// FNV-1a 64 (run_manifest.h) of every row of every table, each column quoted by SQLite.
std::string contentDigest(const std::filesystem::path& store)
{
    storage::SqliteDb db(store, storage::SqliteDb::Mode::ReadOnly);
    std::vector<std::string> tables;
    for (auto q = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
         q.step();)
        tables.emplace_back(q.text(0));
    std::string rows;
    for (const std::string& table : tables) {
        std::string columns;
        std::string order;
        int n = 0;
        for (auto q = db.prepare("SELECT name FROM pragma_table_info('" + table + "')");
             q.step();) {
            columns += (n ? " || '|' || quote(" : "quote(") + std::string(q.text(0)) + ")";
            order += (n ? ", " : "") + std::string(q.text(0));
            ++n;
        }
        rows += "table " + table + "\n";
        const std::string where = table == "meta" ? " WHERE key != 'tool_version'" : "";
        for (auto q =
                 db.prepare("SELECT " + columns + " FROM " + table + where + " ORDER BY " + order);
             q.step();) {
            rows += q.text(0);
            rows += '\n';
        }
    }
    return storage::textChecksum(rows);
}

/// A synthetic run big enough for every summary level, flame pyramids and spills.
void generateSynth(storage::TraceSink& sink)
{
    storage::SynthOptions options;
    options.events = 400'000;
    options.ranks = 8;
    storage::generateSyntheticTrace(options, sink);
}

std::string synthStoreDigest(
    const test::TempDir& dir, const std::string& name, storage::StoreBuildOptions options)
{
    storage::StoreBuilder builder(dir / name, options);
    generateSynth(builder);
    builder.finish();
    return contentDigest(dir / name);
}

}  // namespace

TEST_CASE("stores of fixed inputs keep the contents they had before the memory rework",
    "[store][golden]") {
    // Taken on main at 278513b and again at 830f556, the commit the rework starts from;
    // re-taken for store format version 2 (counter tiles at codec version 2, summary
    // levels that reduce little left out), which changes the contents on purpose; and for
    // raw literals in the zstd frames of interval and interval-summary tiles, which changes
    // their payload bytes and not what they decompress to; and for bodies under 64 bytes
    // stored in raw zstd blocks (raw_zstd_frame.h), the same: every payload decompresses
    // to the bytes it did; and for greedy matching of interval, summary and flow tiles
    // and zstd's hash-chain match finder for them (tile_codec.cpp), the same again; and
    // for store format version 4, interval summary tiles in a drawn and a detail part
    // (codec version 2), which decode to the same cells and entries; and for store format
    // version 5, exact interval and instant tiles with their args by member (codec
    // version 2, args_codec.h), which decode to the same events and args; and for the
    // detail part of interval summary tiles at zstd level 3 with Huffman-coded literals
    // (tile_codec.cpp), which decompresses to the bytes it did; and for store format
    // version 6, arrays of whole numbers in the args of exact tiles as number columns
    // (codec version 3, args_codec.h), which decode to the same args; and for store format
    // version 7, the flame buckets in groups of a row each (flame_codec.h), the bucket
    // payloads byte for byte those of version 6, and no flame tables in a store without a
    // pyramid (the random trace's).
    const std::string kSynth = "36ee217f770e2269";
    const std::string kRandom = "493604b112701404";
    const std::string kShards[] = { "514920e1c9dd1357", "e1147d0a05d08ff9" };
    test::TempDir dir;

    SECTION("synthetic run, in memory, two workers") {
        CHECK(synthStoreDigest(dir, "a.strata", {}) == kSynth);
    }
    SECTION("synthetic run, spilled, one worker, every track's tiles through a spool file") {
        storage::StoreBuildOptions options;
        options.threads = 1;
        options.memoryBudgetBytes = 1 << 20;
        options.pieceBytes = std::size_t(1) << 30;  // every track held whole
        options.spoolMemoryBytes = 0;
        CHECK(synthStoreDigest(dir, "b.strata", options) == kSynth);
    }
    SECTION("synthetic run, spilled, every track tiled in pieces of a few windows") {
        storage::StoreBuildOptions options;
        options.memoryBudgetBytes = 1 << 20;
        options.pieceBytes = 16 << 10;
        CHECK(synthStoreDigest(dir, "p.strata", options) == kSynth);
    }
    SECTION("random trace: instants, zero-length intervals, stack samples, args") {
        storage::MemoryTrace trace;
        test::makeRandomTrace({ .seed = 11, .threads = 3, .intervalsPerThread = 20000 }, trace);
        storage::StoreBuildOptions options;
        options.memoryBudgetBytes = 256 << 10;
        SECTION("held whole") {
            options.pieceBytes = std::size_t(1) << 30;
        }
        SECTION("in pieces") {
            options.pieceBytes = 8 << 10;
        }
        storage::StoreBuilder builder(dir / "c.strata", options);
        trace.replayInto(builder);
        builder.finish();
        CHECK(contentDigest(dir / "c.strata") == kRandom);
    }
    SECTION("synthetic run of two shards") {
        storage::RunBuildOptions options;
        options.shards = 2;
        storage::RunBuilder run(dir / "run.strata", options);
        storage::ShardRouter router(run, 1);
        generateSynth(router);
        run.finish();
        const auto shards = storage::StoreReader(dir / "run.strata").shards();
        REQUIRE(shards.size() == 2);
        for (std::size_t i = 0; i < shards.size(); ++i)
            CHECK(contentDigest(shards[i].path) == kShards[i]);
    }
}
