// A viewport query of the cells as drawn (CellDetail::Drawn) returns what a full query
// returns, each summary cell folded to its colour: one entry holding the cell's whole
// coverage under its first (most covered) name and role. Both forms of a tile live in
// the cache side by side, and intervalCell() reads back any cell in full.

#include "storage/store/run_builder.h"
#include "storage/store/shard_router.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "storage/store/tile_codec.h"

#include "tests/support/random_trace.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <random>

using namespace strata;
using storage::CellDetail;

namespace {

/// The cells and entries of `full` as a Drawn query returns them.
void foldToDrawn(const storage::TrackSlice& full, std::vector<storage::IntervalCell>& cells,
    std::vector<storage::Coverage>& entries)
{
    for (const storage::IntervalCell& c : full.cells) {
        storage::IntervalCell drawn;
        drawn.bucket = c.bucket;
        drawn.depth = c.depth;
        drawn.firstEntry = static_cast<std::uint32_t>(entries.size());
        if (c.entryCount > 0) {
            drawn.entryCount = 1;
            storage::Coverage e = full.entries[c.firstEntry];
            for (std::uint32_t k = 1; k < c.entryCount; ++k)
                e.coverageNs += full.entries[c.firstEntry + k].coverageNs;
            entries.push_back(e);
        }
        cells.push_back(drawn);
    }
}

bool sameCell(const storage::IntervalCell& a, const storage::IntervalCell& b)
{
    return a.bucket == b.bucket && a.depth == b.depth && a.count == b.count
        && a.longestStartNs == b.longestStartNs && a.longestDurationNs == b.longestDurationNs
        && a.longestName == b.longestName && a.firstEntry == b.firstEntry
        && a.entryCount == b.entryCount;
}

/// Checks a Drawn answer against the Full one; returns the cells compared.
std::size_t requireFolded(
    const std::vector<storage::TrackSlice>& drawn, const std::vector<storage::TrackSlice>& full)
{
    REQUIRE(drawn.size() == full.size());
    std::size_t cells = 0;
    for (std::size_t i = 0; i < full.size(); ++i) {
        const storage::TrackSlice& d = drawn[i];
        const storage::TrackSlice& f = full[i];
        INFO("track " << f.track);
        REQUIRE(d.intervalLevel == f.intervalLevel);
        REQUIRE(d.intervals == f.intervals);
        REQUIRE(d.instants == f.instants);
        REQUIRE(d.samples == f.samples);
        REQUIRE(d.flows == f.flows);
        REQUIRE(d.stackSamples == f.stackSamples);
        REQUIRE(d.instantCells == f.instantCells);
        std::vector<storage::IntervalCell> cellsExpected;
        std::vector<storage::Coverage> entriesExpected;
        foldToDrawn(f, cellsExpected, entriesExpected);
        REQUIRE(d.cells.size() == cellsExpected.size());
        for (std::size_t c = 0; c < d.cells.size(); ++c)
            REQUIRE(sameCell(d.cells[c], cellsExpected[c]));
        REQUIRE(d.entries == entriesExpected);
        cells += d.cells.size();
    }
    return cells;
}

void checkStore(const std::filesystem::path& path)
{
    storage::StoreReader store(path);
    storage::StoreReader reference(path);  // full queries only
    std::vector<model::TrackId> tracks(store.resources().size());
    for (std::size_t i = 0; i < tracks.size(); ++i)
        tracks[i] = static_cast<model::TrackId>(i);
    const model::TimeRange span = store.span();
    std::mt19937_64 rng(9);
    std::size_t cells = 0;
    for (int round = 0; round < 12; ++round) {
        model::TimeRange w = span;
        if (round > 0) {
            const auto width = std::max<model::TimeNs>(
                1000, static_cast<model::TimeNs>(span.durationNs() / std::pow(2.0, round % 7)));
            w.startNs = span.startNs
                + static_cast<model::TimeNs>(rng() % static_cast<std::uint64_t>(span.durationNs()));
            w.endNs = w.startNs + width;
        }
        const int pixels = round % 3 == 0 ? 1920 : 300;
        INFO("window " << w.startNs << " +" << w.durationNs() << " at " << pixels << " px");
        // Drawn cold, then full, then drawn again from the cache: the forms never mix.
        const auto drawn =
            store.query({ tracks, w.startNs, w.endNs, pixels, 0, CellDetail::Drawn });
        const auto full = store.query({ tracks, w.startNs, w.endNs, pixels, 0, CellDetail::Full });
        const auto drawnAgain =
            store.query({ tracks, w.startNs, w.endNs, pixels, 0, CellDetail::Drawn });
        cells += requireFolded(drawn, full);
        requireFolded(drawnAgain, full);
        // The full answer is the one a reader that never drew gives.
        const auto alone =
            reference.query({ tracks, w.startNs, w.endNs, pixels, 0, CellDetail::Full });
        for (std::size_t i = 0; i < full.size(); ++i) {
            REQUIRE(full[i].cells.size() == alone[i].cells.size());
            for (std::size_t c = 0; c < full[i].cells.size(); ++c)
                REQUIRE(sameCell(full[i].cells[c], alone[i].cells[c]));
            REQUIRE(full[i].entries == alone[i].entries);
        }
        // Every cell of a few tracks reads back in full, and a cell that is not there is not.
        for (const storage::TrackSlice& f : full) {
            if (f.track % 3 != 0 || f.intervalLevel == 0)
                continue;
            for (const storage::IntervalCell& c : f.cells) {
                const auto one = store.intervalCell(f.track, f.intervalLevel, c.bucket, c.depth);
                REQUIRE(one);
                storage::IntervalCell expected = c;
                expected.firstEntry = 0;
                REQUIRE(sameCell(one->cell, expected));
                REQUIRE(one->entries
                    == std::vector<storage::Coverage>(f.entries.begin() + c.firstEntry,
                        f.entries.begin() + c.firstEntry + c.entryCount));
            }
            if (!f.cells.empty())
                REQUIRE_FALSE(
                    store.intervalCell(f.track, f.intervalLevel, f.cells.back().bucket, 250));
        }
    }
    REQUIRE(cells > 1000);  // the windows did reach summary cells
}

}  // namespace

TEST_CASE(
    "a query of the cells as drawn returns each full cell folded to its colour", "[store][query]") {
    storage::MemoryTrace trace;
    test::RandomTraceOptions options;
    options.nodes = 2;
    test::makeRandomTrace(options, trace);
    test::TempDir dir;
    SECTION("a single store") {
        storage::StoreBuilder builder(dir / "one.strata");
        trace.replayInto(builder);
        builder.finish();
        checkStore(dir / "one.strata");
    }
    SECTION("a run of two shards") {
        storage::RunBuildOptions runOptions;
        runOptions.shards = 2;
        storage::RunBuilder run(dir / "run.strata", runOptions);
        storage::ShardRouter router(run, 1);
        trace.replayInto(router);
        run.finish();
        checkStore(dir / "run.strata");
    }
}
