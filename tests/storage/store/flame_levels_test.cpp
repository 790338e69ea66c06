// The flame pyramid of intervals is built from the first level worth storing up, one
// window at a time (flame_summarizer.h): that level is the one the storage rule picks, and
// every level built from it equals the level built from level 1 up.

#include "storage/store/flame_summarizer.h"

#include "tests/support/random_trace.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

using namespace strata;
using model::TimeNs;

namespace {

/// The intervals of one random thread, sorted by start.
std::vector<model::Interval> randomThread(std::uint64_t seed)
{
    storage::MemoryTrace trace;
    test::makeRandomTrace({ .seed = seed, .threads = 1, .intervalsPerThread = 30000 }, trace);
    auto events = trace.track(2).intervals;
    std::stable_sort(events.begin(), events.end(),
        [](const model::Interval& a, const model::Interval& b) { return a.startNs < b.startNs; });
    return events;
}

}  // namespace

TEST_CASE("an interval pyramid starts at the first level worth storing and equals the one built "
          "from level 1",
    "[flame][pyramid]") {
    const std::vector<model::Interval> events = randomThread(21);
    REQUIRE(events.size() > 10000);
    const model::LodGrid grid = model::LodGrid::forSpan(50'000'000);

    storage::FlameSummaryOptions every;
    every.minEvents = 0;
    every.minCompression = 1;
    every.minEventsPerBucket = 1;
    const storage::FlamePyramid all = storage::summarizeFlameIntervals(grid, events, every);
    REQUIRE_FALSE(all.levels.empty());
    REQUIRE(all.levels.front().level == 1);

    storage::FlameSummaryOptions stored;
    stored.minEvents = 0;
    const storage::FlamePyramid pyramid = storage::summarizeFlameIntervals(grid, events, stored);
    REQUIRE_FALSE(pyramid.levels.empty());
    const int first = pyramid.levels.front().level;
    CHECK(first > 1);
    CHECK(pyramid.levels.back().level == all.levels.back().level);

    // The rule, from the full pyramid: entries and buckets of the level against the parts
    // that went into it (each interval of a band shorter than the level's bucket, split at
    // the bucket of the level its band joins, once for its path and once for its parent's).
    for (const storage::FlameLevel& level : all.levels) {
        std::int64_t raw = 0;
        for (const model::Interval& e : events) {
            const int band = grid.bandOf(e.durationNs());
            if (band >= std::min(level.level, grid.levels))
                continue;
            const TimeNs w = grid.bucketNs(band + 1);
            const std::int64_t pieces = e.endNs == e.startNs
                ? 1
                : model::floorDiv(e.endNs - 1, w) - model::floorDiv(e.startNs, w) + 1;
            raw += e.depth > 0 && e.endNs > e.startNs ? 2 * pieces : pieces;
        }
        std::int64_t entries = 0;
        for (const storage::FlameBucket& b : level.buckets)
            entries += static_cast<std::int64_t>(b.entries.size());
        const auto buckets = static_cast<std::int64_t>(level.buckets.size());
        const bool worth =
            entries * stored.minCompression <= raw && buckets * stored.minEventsPerBucket <= raw;
        INFO("level " << level.level << " raw " << raw << " entries " << entries);
        if (level.level <= first)
            CHECK(worth == (level.level == first));  // above it every level is stored
        if (level.level < first)
            continue;
        const storage::FlameLevel& got =
            pyramid.levels[static_cast<std::size_t>(level.level - first)];
        REQUIRE(got.level == level.level);
        CHECK(got.buckets == level.buckets);
    }
}

TEST_CASE("an interval pyramid built from pieces of whole windows equals the one of the track "
          "held whole",
    "[flame][pyramid][pieces]") {
    const std::vector<model::Interval> events = randomThread(23);
    const model::LodGrid grid = model::LodGrid::forSpan(50'000'000);
    storage::FlameSummaryOptions options;
    options.minEvents = 0;
    const storage::FlamePyramid whole = storage::summarizeFlameIntervals(grid, events, options);
    REQUIRE(whole.levels.size() > 2);

    using Buckets = std::map<std::pair<int, std::int64_t>, storage::FlameBucket>;
    Buckets expected;
    for (const storage::FlameLevel& level : whole.levels) {
        for (const storage::FlameBucket& b : level.buckets)
            expected[{ level.level, b.bucket }] = b;
    }
    const TimeNs windowNs = grid.bucketNs(grid.levels);
    for (const std::int64_t windowsPerPiece : { 1, 3, 17 }) {
        // Pieces: the intervals starting in windowsPerPiece windows each.
        std::vector<std::pair<std::int64_t, std::vector<model::Interval>>> pieces;
        for (const model::Interval& e : events) {
            const std::int64_t first =
                model::floorDiv(e.startNs, windowNs) / windowsPerPiece * windowsPerPiece;
            if (pieces.empty() || pieces.back().first != first)
                pieces.push_back({ first, {} });
            pieces.back().second.push_back(e);
        }
        REQUIRE(pieces.size() > 1);
        model::StackTable paths;
        storage::IntervalFlameSummarizer summarizer(
            grid, options, paths, static_cast<std::int64_t>(events.size()));
        for (const auto& [first, piece] : pieces)
            summarizer.count(piece);
        const storage::FlameStoredLevels levels = summarizer.levels();
        CHECK(levels.finest == whole.levels.front().level);
        CHECK(levels.coarsest == whole.levels.back().level);
        Buckets got;
        std::size_t duplicates = 0;
        const storage::FlameBucketSink sink =
            [&](int level, const std::vector<storage::FlameBucket>& buckets) {
                for (const storage::FlameBucket& b : buckets)
                    duplicates += !got.emplace(std::pair { level, b.bucket }, b).second;
            };
        for (std::size_t p = 0; p < pieces.size(); ++p) {
            const std::int64_t end =
                p + 1 < pieces.size() ? pieces[p + 1].first : storage::WindowRange::all().end;
            summarizer.build(pieces[p].second, { pieces[p].first, end }, sink);
        }
        summarizer.finish(sink);
        INFO(windowsPerPiece << " windows a piece");
        CHECK(duplicates == 0);
        CHECK(paths.size() == whole.paths.size());
        CHECK(got == expected);
    }
}
