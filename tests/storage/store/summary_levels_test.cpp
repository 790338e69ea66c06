// Which summary levels of instants and counters a store keeps: one that reduces little
// over the stored level below it is left out (Paraver gives several instants per time
// stamp, so a level can repeat the next ones), and its zooms read that stored level.

#include "storage/store/level_summarizer.h"
#include "storage/store/memory_trace.h"
#include "storage/store/sqlite_db.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "storage/store/tiles.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <map>
#include <tuple>

using namespace strata;
using model::TimeNs;

namespace {

/// Two instants and two samples of a steady counter (its cells cost next to nothing) at
/// each of 2000 time stamps 1 ms apart (every
/// level with buckets under 1 ms repeats level 1), and a burst of 64 stamps 256 ns apart
/// at 500 ms (level 2 merges four of level 1's cells there).
struct PairedTrace
{
    storage::MemoryTrace trace;
    model::TrackId thread = 0, counter = 0;
    std::vector<model::Instant> instants;  ///< as the store holds them, sorted
    std::vector<model::CounterSample> samples;

    PairedTrace()
    {
        const auto process =
            trace.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank 0");
        thread = trace.addTrack(process, model::ResourceKind::Thread, "thread 0");
        counter = trace.addTrack(process, model::ResourceKind::Counter, "cycles", 0, "");
        std::vector<TimeNs> stamps;
        for (int i = 0; i < 2000; ++i)
            stamps.push_back(TimeNs(i) * 1'000'000);
        for (int i = 1; i <= 64; ++i)
            stamps.push_back(500'000'000 + TimeNs(i) * 256);
        std::sort(stamps.begin(), stamps.end());
        const model::StringId name = trace.intern("mark");
        for (std::size_t i = 0; i < stamps.size(); ++i) {
            for (int k = 0; k < 2; ++k) {
                instants.push_back({ stamps[i], name, model::kEmptyString });
                samples.push_back({ stamps[i], 7.0 });
                trace.addInstant(thread, instants.back());
                trace.addCounterSample(counter, samples.back());
            }
        }
    }
};

std::filesystem::path buildStore(
    const storage::MemoryTrace& trace, const std::filesystem::path& path)
{
    storage::StoreBuilder builder(path);
    trace.replayInto(builder);
    builder.finish();
    return path;
}

struct StoredLevel
{
    std::int64_t cells = 0;
    std::int64_t bytes = 0;
};

/// Stored level -> its cells and bytes, of one kind of one track.
std::map<int, StoredLevel> storedLevels(
    const std::filesystem::path& store, model::TrackId track, storage::TileKind kind)
{
    storage::SqliteDb db(store, storage::SqliteDb::Mode::ReadOnly);
    auto q = db.prepare("SELECT level, sum(n), sum(length(payload)) FROM tiles"
                        " WHERE track = ? AND kind = ? GROUP BY level");
    q.bind(1, std::int64_t(track)).bind(2, std::int64_t(kind));
    std::map<int, StoredLevel> out;
    while (q.step())
        out[static_cast<int>(q.int64(0))] = { q.int64(1), q.int64(2) };
    return out;
}

/// The most cells of `finer` (sorted by bucket) that one bucket `shift` bits coarser holds.
template<typename Bucket>
std::int64_t mostMerged(std::size_t n, Bucket bucket, int shift)
{
    std::map<std::int64_t, std::int64_t> per;
    std::int64_t most = 0;
    for (std::size_t i = 0; i < n; ++i)
        most = std::max(most, ++per[bucket(i) >> shift]);
    return most;
}

}  // namespace

TEST_CASE(
    "a stored summary level halves the stored level below it or merges more than two of its cells",
    "[lod][store]") {
    const PairedTrace t;
    test::TempDir dir;
    const auto store = buildStore(t.trace, dir / "paired.strata");
    const model::LodGrid grid = storage::StoreReader(store).grid();
    REQUIRE(grid.levels >= 8);
    const auto instantLevels = storage::summarizeInstants(grid, t.instants);
    const auto counterLevels = storage::summarizeCounters(grid, t.samples);

    auto check = [&](storage::TileKind exactKind, storage::TileKind kind, model::TrackId track,
                     auto cellsOf, auto bucketOf) {
        const auto stored = storedLevels(store, track, kind);
        const StoredLevel exact = storedLevels(store, track, exactKind).at(0);
        REQUIRE(!stored.empty());
        // The finest stored level: half the events' cells, and half their bytes unless a
        // cell stands for more than 8 events; a finer level holding a cell per 8 events
        // or fewer would have been stored.
        const int finest = stored.begin()->first;
        INFO("finest stored level " << finest << ": " << stored.begin()->second.cells << " cells, "
                                    << stored.begin()->second.bytes << " bytes; " << exact.cells
                                    << " events, " << exact.bytes << " bytes");
        CHECK(2 * stored.begin()->second.cells <= exact.cells);
        CHECK((2 * stored.begin()->second.bytes <= exact.bytes
            || 8 * stored.begin()->second.cells <= exact.cells));
        for (int level = 1; level < finest; ++level)
            CHECK(8 * static_cast<std::int64_t>(cellsOf(level)) > exact.cells);
        int below = finest;
        for (int level = finest + 1; level <= grid.levels; ++level) {
            INFO("level " << level << " over stored level " << below);
            const std::size_t cells = cellsOf(level), belowCells = cellsOf(below);
            const bool halves = 2 * cells <= belowCells;
            const bool merges = mostMerged(
                                    belowCells, [&](std::size_t i) { return bucketOf(below, i); },
                                    grid.factorLog2 * (level - below))
                > 2;
            CHECK(stored.count(level) == (halves || merges ? 1u : 0u));
            if (stored.count(level)) {
                CHECK(stored.at(level).cells == static_cast<std::int64_t>(cells));
                below = level;
            }
        }
        return stored;
    };
    SECTION("instants") {
        const auto stored = check(
            storage::TileKind::Instants, storage::TileKind::InstantSummary, t.thread,
            [&](int level) { return instantLevels[level - 1].size(); },
            [&](int level, std::size_t i) { return instantLevels[level - 1][i].bucket; });
        // The burst makes levels 2..4 worth storing (each merges four cells of the one
        // below there); levels 5 and 6 repeat level 4 (the 1 ms apart stamps merge two at
        // a time from level 7 on, four from level 8 on).
        for (int level = 2; level <= 4; ++level)
            CHECK(stored.count(level) == 1);
        CHECK(stored.count(5) == 0);
        CHECK(stored.count(6) == 0);
    }
    SECTION("counters") {
        const auto stored = check(
            storage::TileKind::Counters, storage::TileKind::CounterSummary, t.counter,
            [&](int level) { return counterLevels[level - 1].size(); },
            [&](int level, std::size_t i) { return counterLevels[level - 1][i].cell.bucket; });
        for (int level = 2; level <= 4; ++level)
            CHECK(stored.count(level) == 1);
        CHECK(stored.count(5) == 0);
        CHECK(stored.count(6) == 0);
    }
}

TEST_CASE("a zoom of a summary level left out reads the stored level below it", "[lod][store]") {
    const PairedTrace t;
    test::TempDir dir;
    storage::StoreReader reader(buildStore(t.trace, dir / "read.strata"));
    const model::LodGrid& grid = reader.grid();
    const auto instantLevels = storage::summarizeInstants(grid, t.instants);
    const auto counterLevels = storage::summarizeCounters(grid, t.samples);
    const auto store = dir / "paired.strata";
    buildStore(t.trace, store);
    const auto storedInstants = storedLevels(store, t.thread, storage::TileKind::InstantSummary);
    const auto storedCounters = storedLevels(store, t.counter, storage::TileKind::CounterSummary);
    REQUIRE(storedInstants.size() < std::size_t(grid.levels));  // some level left out
    const int px = 200;  // fewer than an exact tile's events: the summaries are read
    for (int pixelLevel = storedInstants.begin()->first; pixelLevel <= 8; ++pixelLevel) {
        // Buckets of pixelLevel are one pixel wide: a window of px of them at the burst.
        const TimeNs w = grid.bucketNs(pixelLevel);
        const TimeNs start = 500'000'000 - px / 2 * w;
        const auto slices = reader.query({ { t.thread, t.counter }, start, start + px * w, px });
        // The stored level at or below the pixel's (the same for both kinds here).
        REQUIRE(storedInstants.begin()->first <= pixelLevel);
        const int stored = std::prev(storedInstants.upper_bound(pixelLevel))->first;
        REQUIRE(stored == std::prev(storedCounters.upper_bound(pixelLevel))->first);
        INFO("pixel level " << pixelLevel << ", stored level " << stored);
        const TimeNs sw = grid.bucketNs(stored);
        auto inWindow = [&](std::int64_t bucket) {
            return bucket * sw < start + px * w && (bucket + 1) * sw > start;
        };

        const storage::TrackSlice& instants = slices[0];
        REQUIRE(instants.instantLevel == stored);
        // Names are the store's ids: compare the rest.
        using Tick = std::tuple<std::int64_t, std::uint32_t, TimeNs>;
        std::vector<Tick> got, want;
        for (const storage::InstantCell& c : instants.instantCells)
            got.emplace_back(c.bucket, c.count, c.firstNs);
        for (const storage::InstantCell& c : instantLevels[stored - 1]) {
            if (inWindow(c.bucket))
                want.emplace_back(c.bucket, c.count, c.firstNs);
        }
        CHECK(got == want);

        const storage::TrackSlice& counter = slices[1];
        REQUIRE(counter.counterLevel == stored);
        using Cell =
            std::tuple<std::int64_t, std::uint32_t, double, double, double, double, TimeNs>;
        auto cell = [](const storage::CounterCell& c) {
            return Cell(c.bucket, c.count, c.min, c.max, c.mean, c.last, c.weightNs);
        };
        std::vector<Cell> cells, wantCells;
        for (const storage::CounterCell& c : counter.counterCells)
            cells.push_back(cell(c));
        // The cells in the window, and the one before it (the value carried in).
        const auto& level = counterLevels[stored - 1];
        for (std::size_t i = 0; i < level.size(); ++i) {
            const storage::CounterCell& c = level[i].cell;
            const bool carried = (c.bucket + 1) * sw <= start && i + 1 < level.size()
                && (level[i + 1].cell.bucket + 1) * sw > start;
            if (inWindow(c.bucket) || carried)
                wantCells.push_back(cell(c));
        }
        CHECK(cells == wantCells);
        // A few cells per pixel at most.
        CHECK(instants.instantCells.size() <= std::size_t(4 * px));
    }
}
