// What a reader holds beyond its decoded-tile cache stays bounded whatever the size of the
// run: the tile indexes of the tracks read lately within their own budget (a query of
// every track pins them a part at a time), SQLite's own page caches small, and a view that
// draws one lane gets no deeper events. None of it changes an answer.

#include "storage/store/run_builder.h"
#include "storage/store/shard_router.h"
#include "storage/store/sqlite_db.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"

#include "tests/support/random_trace.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <random>
#include <sstream>

using namespace strata;
using model::TimeNs;

namespace {

std::filesystem::path buildRun(
    const storage::MemoryTrace& trace, const std::filesystem::path& path, int shards)
{
    storage::RunBuildOptions options;
    options.shards = shards;
    storage::RunBuilder run(path, options);
    storage::ShardRouter router(run, 1);
    trace.replayInto(router);
    run.finish();
    return path;
}

const storage::MemoryTrace& busyNodes()
{
    static const storage::MemoryTrace trace = [] {
        storage::MemoryTrace t;
        test::makeRandomTrace(
            { .seed = 7, .threads = 3, .intervalsPerThread = 20000, .nodes = 3 }, t);
        return t;
    }();
    return trace;
}

std::vector<model::TrackId> allTracks(const storage::StoreReader& reader)
{
    std::vector<model::TrackId> tracks(reader.resources().size());
    for (std::size_t i = 0; i < tracks.size(); ++i)
        tracks[i] = static_cast<model::TrackId>(i);
    return tracks;
}

/// Whole span, then windows from a few microseconds to most of the run.
std::vector<model::TimeRange> windows(const storage::StoreReader& reader, int count)
{
    const model::TimeRange span = reader.span();
    std::vector<model::TimeRange> out { span };
    std::mt19937_64 rng(count);
    while (static_cast<int>(out.size()) < count) {
        const TimeNs width = std::uniform_int_distribution<TimeNs>(2000, span.durationNs())(rng);
        const TimeNs start =
            std::uniform_int_distribution<TimeNs>(span.startNs, span.endNs - width)(rng);
        out.push_back({ start, start + width });
    }
    return out;
}

std::string text(const storage::IntervalCell& c)
{
    std::ostringstream out;
    out << c.bucket << " " << int(c.depth) << " " << c.count << " " << c.longestStartNs << " "
        << c.longestDurationNs << " " << c.longestName << " " << c.entryCount;
    return out.str();
}

/// Every field of a slice; cells with their entries, not their offsets into them.
std::string text(const storage::TrackSlice& s)
{
    std::ostringstream out;
    out << "track " << s.track << " levels " << s.intervalLevel << s.instantLevel << s.counterLevel
        << "\n";
    for (const model::Interval& e : s.intervals)
        out << "I " << e.startNs << " " << e.endNs << " " << e.name << " " << int(e.depth) << " "
            << e.seq << "\n";
    for (const storage::IntervalCell& c : s.cells) {
        out << "C " << text(c);
        for (std::uint32_t k = 0; k < c.entryCount; ++k)
            out << " " << s.entries.at(c.firstEntry + k).name << ":"
                << s.entries.at(c.firstEntry + k).coverageNs;
        out << "\n";
    }
    for (const model::Instant& i : s.instants)
        out << "i " << i.timeNs << " " << i.name << "\n";
    for (const storage::InstantCell& c : s.instantCells)
        out << "c " << c.bucket << " " << c.count << "\n";
    for (const model::CounterSample& c : s.samples)
        out << "s " << c.timeNs << " " << c.value << "\n";
    for (const storage::CounterCell& c : s.counterCells)
        out << "k " << c.bucket << " " << c.min << " " << c.max << "\n";
    for (const model::Flow& f : s.flows)
        out << "f " << f.fromNs << " " << f.toTrack << " " << f.toNs << "\n";
    return out.str();
}

std::string text(const std::vector<storage::TrackSlice>& slices)
{
    std::string out;
    for (const storage::TrackSlice& s : slices)
        out += text(s);
    return out;
}

}  // namespace

TEST_CASE("tile indexes stay within their budget, and queries answer as with room for every index",
    "[store][cache][run]") {
    test::TempDir dir;
    const auto path = buildRun(busyNodes(), dir / "run.strata", 3);
    constexpr std::size_t kBudget = 8 << 10;
    storage::StoreReader roomy(path);
    storage::StoreReader tight(path, { .indexBytes = kBudget });
    const auto tracks = allTracks(roomy);
    for (const model::TimeRange& w : windows(roomy, 12)) {
        const auto expected = roomy.query({ tracks, w.startNs, w.endNs, 1920 });
        REQUIRE(text(tight.query({ tracks, w.startNs, w.endNs, 1920 })) == text(expected));
        REQUIRE(tight.indexBytes() <= kBudget);
        // Single-track calls take their index through the same budget.
        const model::TrackId busiest = tracks[4];
        REQUIRE(tight.intervals(busiest, w.startNs, w.endNs)
            == roomy.intervals(busiest, w.startNs, w.endNs));
        REQUIRE(tight.indexBytes() <= kBudget);
    }
    // The budget binds here (all indexes take more), and it is a cache, not a bypass:
    // the roomy reader read each track's index once, the tight one again as they left.
    CHECK(roomy.indexBytes() > 2 * kBudget);
    CHECK(roomy.indexReads() == tracks.size());
    CHECK(tight.indexReads() > tracks.size());
    CHECK(tight.indexBytes() > 0);

    // Each tile of a track's index takes 24 bytes there, plus a little per list (kind and
    // level) and per track: every tile of the run is in one track's index.
    std::int64_t tiles = 0, lists = 0;
    for (const storage::ShardInfo& shard : roomy.shards()) {
        storage::SqliteDb db(shard.path, storage::SqliteDb::Mode::ReadOnly);
        auto count = db.prepare(
            "SELECT count(*), count(DISTINCT (track * 16 + kind) * 64 + level) FROM tiles");
        count.step();
        tiles += count.int64(0);
        lists += count.int64(1);
    }
    CHECK(roomy.indexBytes() >= static_cast<std::size_t>(tiles) * 24);
    CHECK(roomy.indexBytes()
        <= static_cast<std::size_t>(tiles * 24 + lists * 96) + tracks.size() * 256);

    // A budget that holds the indexes of the tracks asked for reads each once, however
    // many queries ask for them again.
    storage::StoreReader fits(path, { .indexBytes = roomy.indexBytes() });
    for (const model::TimeRange& w : windows(roomy, 12))
        fits.query({ tracks, w.startNs, w.endNs, 1920 });
    CHECK(fits.indexReads() == tracks.size());
}

TEST_CASE(
    "SQLite's page caches stay small however many tiles a reader reads", "[store][cache][run]") {
    test::TempDir dir;
    const auto runPath = buildRun(busyNodes(), dir / "run.strata", 3);
    const auto singlePath = dir / "single.strata";
    {
        storage::StoreBuilder builder(singlePath);
        busyNodes().replayInto(builder);
        builder.finish();
    }
    for (const auto& path : { singlePath, runPath }) {
        // A small tile cache: tiles are read from the file again and again.
        storage::StoreReader reader(path, { .cacheBytes = 64 << 10 });
        const auto tracks = allTracks(reader);
        for (const model::TimeRange& w : windows(reader, 200))
            reader.query({ tracks, w.startNs, w.endNs, 1920 });
        // Three connections a file (metadata and indexes, two for tiles), 256 KiB each at
        // most; SQLite's default was 2 MB each.
        const std::size_t files = reader.shards().size();
        CHECK(reader.sqliteCacheBytes() <= files * 3 * (264u << 10));
        CHECK(reader.sqliteCacheBytes() > 0);
    }
}

TEST_CASE("a query with a depth limit gets the shallow part of the same answer", "[store][lod]") {
    test::TempDir dir;
    const auto path = buildRun(busyNodes(), dir / "run.strata", 2);
    storage::StoreReader reader(path);
    const auto tracks = allTracks(reader);
    bool cut = false;
    for (const model::TimeRange& w : windows(reader, 12)) {
        const auto full = reader.query({ tracks, w.startNs, w.endNs, 1920 });
        for (const int limit : { 1, 2 }) {
            const auto shallow = reader.query({ tracks, w.startNs, w.endNs, 1920, limit });
            REQUIRE(shallow.size() == full.size());
            for (std::size_t i = 0; i < full.size(); ++i) {
                storage::TrackSlice expected = full[i];
                std::erase_if(
                    expected.intervals, [&](const model::Interval& e) { return e.depth >= limit; });
                expected.cells.clear();
                expected.entries.clear();
                for (const storage::IntervalCell& c : full[i].cells) {
                    if (c.depth >= limit)
                        continue;
                    storage::IntervalCell copy = c;
                    copy.firstEntry = static_cast<std::uint32_t>(expected.entries.size());
                    expected.cells.push_back(copy);
                    expected.entries.insert(expected.entries.end(),
                        full[i].entries.begin() + c.firstEntry,
                        full[i].entries.begin() + c.firstEntry + c.entryCount);
                }
                cut = cut || expected.cells.size() < full[i].cells.size()
                    || expected.intervals.size() < full[i].intervals.size();
                REQUIRE(text(shallow[i]) == text(expected));
            }
        }
    }
    CHECK(cut);  // the trace has deeper events in the windows, cells and exact ones
}

TEST_CASE("a counter's samples and cells in a window are sized once, not grown by doubling",
    "[store][lod]") {
    test::TempDir dir;
    const auto path = buildRun(busyNodes(), dir / "run.strata", 1);
    storage::StoreReader reader(path);
    const auto tracks = allTracks(reader);
    int exact = 0, summarised = 0;
    for (const model::TimeRange& w : windows(reader, 30)) {
        for (const int pixels : { 100, 4000 }) {
            for (const storage::TrackSlice& s :
                reader.query({ tracks, w.startNs, w.endNs, pixels })) {
                REQUIRE(s.counterCells.capacity() == s.counterCells.size());
                REQUIRE(s.samples.capacity() == s.samples.size());
                exact += s.samples.size() > 2 ? 1 : 0;
                summarised += s.counterCells.size() > 2 ? 1 : 0;
            }
        }
    }
    CHECK(exact > 10);
    CHECK(summarised > 10);
}

TEST_CASE("tileReads counts the tiles a reader decodes: a window asked again reads none",
    "[store][cache][run]") {
    test::TempDir dir;
    const auto path = buildRun(busyNodes(), dir / "run.strata", 3);
    storage::StoreReader roomy(path);
    storage::StoreReader tight(path, { .cacheBytes = 64 << 10 });
    const auto tracks = allTracks(roomy);
    CHECK(roomy.tileReads() == 0);
    for (const model::TimeRange& w : windows(roomy, 6)) {
        const storage::ViewportQuery q { tracks, w.startNs, w.endNs, 1920 };
        const std::string first = text(roomy.query(q));
        REQUIRE(roomy.tileReads() > 0);
        const std::uint64_t after = roomy.tileReads();
        REQUIRE(text(roomy.query(q)) == first);
        REQUIRE(roomy.tileReads() == after);
        // A cache too small for the window's tiles decodes them again.
        tight.query(q);
        const std::uint64_t tightAfter = tight.tileReads();
        REQUIRE(text(tight.query(q)) == first);
        REQUIRE(tight.tileReads() > tightAfter);
    }
}
