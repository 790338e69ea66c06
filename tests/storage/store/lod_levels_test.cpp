// Every level of the pyramid agrees with the raw events it summarises, and queries pick
// exact events or a level whose bucket is no wider than a pixel.

#include "storage/store/level_summarizer.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "tests/support/random_trace.h"
#include "tests/support/temp_dir.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <tuple>

using namespace strata;
using model::TimeNs;

namespace {

using CoverageKey = std::pair<model::StringId, model::Role>;
struct ExpectedCell
{
    std::map<CoverageKey, TimeNs> coverage;
    std::uint32_t count = 0;
    TimeNs longestNs = -1;
};
using ExpectedLevel = std::map<std::pair<std::int64_t, model::Depth>, ExpectedCell>;

/// Level `level` computed the slow way, from the raw intervals shorter than a bucket.
ExpectedLevel bruteForce(const std::vector<model::Interval>& events, const model::LodGrid& grid, int level)
{
    const TimeNs w = grid.bucketNs(level);
    ExpectedLevel out;
    for (const model::Interval& e : events) {
        if (e.durationNs() >= w)
            continue;
        const std::int64_t first = model::floorDiv(e.startNs, w);
        const std::int64_t last = e.endNs > e.startNs ? model::floorDiv(e.endNs - 1, w) : first;
        for (std::int64_t b = first; b <= last; ++b) {
            ExpectedCell& c = out[{b, e.depth}];
            c.coverage[{e.name, e.role}] += std::min(e.endNs, (b + 1) * w) - std::max(e.startNs, b * w);
            c.count += b == first;
            c.longestNs = std::max(c.longestNs, e.durationNs());
        }
    }
    return out;
}

std::vector<model::Interval> sortedIntervals(const storage::MemoryTrack& track)
{
    auto events = track.intervals;
    for (std::size_t i = 0; i < events.size(); ++i)
        events[i].seq = static_cast<std::uint32_t>(i);
    std::stable_sort(events.begin(), events.end(), [](auto& a, auto& b) { return a.startNs < b.startNs; });
    return events;
}

std::filesystem::path buildStore(const storage::MemoryTrace& trace, const std::filesystem::path& path)
{
    storage::StoreBuilder builder(path);
    trace.replayInto(builder);
    builder.finish();
    return path;
}

} // namespace

TEST_CASE("every interval level equals a direct computation from the raw events", "[lod]")
{
    storage::MemoryTrace trace;
    test::makeRandomTrace({.seed = 3}, trace);
    const model::LodGrid grid = model::LodGrid::forSpan(50'000'000);
    REQUIRE(grid.levels >= 5);
    const auto events = sortedIntervals(trace.track(2));
    REQUIRE(events.size() > 1000);
    const auto levels = storage::summarizeIntervals(grid, events);
    for (int level = 1; level <= grid.levels; ++level) {
        INFO("level " << level);
        const ExpectedLevel expected = bruteForce(events, grid, level);
        const storage::IntervalSummaryTile& cells = levels[level - 1];
        REQUIRE(cells.cells.size() == expected.size());
        for (const storage::IntervalCell& c : cells.cells) {
            const auto it = expected.find({c.bucket, c.depth});
            REQUIRE(it != expected.end());
            std::map<CoverageKey, TimeNs> got;
            for (std::uint32_t k = 0; k < c.entryCount; ++k) {
                const storage::Coverage& e = cells.entries[c.firstEntry + k];
                got[{e.name, e.role}] += e.coverageNs;
                if (k > 0)  // entries by decreasing coverage
                    CHECK(cells.entries[c.firstEntry + k - 1].coverageNs >= e.coverageNs);
            }
            CHECK(got == it->second.coverage);
            CHECK(c.count == it->second.count);
            CHECK(c.longestDurationNs == it->second.longestNs);
        }
    }
}

TEST_CASE("interval levels built from any level up equal those built from level 1, and are counted exactly",
          "[lod]")
{
    storage::MemoryTrace trace;
    test::makeRandomTrace({.seed = 4}, trace);
    const model::LodGrid grid = model::LodGrid::forSpan(50'000'000);
    const auto events = sortedIntervals(trace.track(2));
    const auto full = storage::summarizeIntervals(grid, events);
    // A builder stores levels from the first with few enough cells: it counts them first.
    const std::vector<std::int64_t> counted = storage::countIntervalCells(grid, events);
    REQUIRE(counted.size() == full.size());
    for (int level = 1; level <= grid.levels; ++level) {
        INFO("level " << level);
        CHECK(counted[level - 1] == static_cast<std::int64_t>(full[level - 1].cells.size()));
    }
    // ... and builds them from there up, one window (a top-level bucket) at a time.
    for (int from = 2; from <= grid.levels; ++from) {
        std::vector<storage::IntervalSummaryTile> levels(grid.levels);
        std::vector<std::int64_t> lastBucket(grid.levels, std::numeric_limits<std::int64_t>::min());
        storage::summarizeIntervals(grid, events, from, [&](int level, const storage::IntervalSummaryTile& window) {
            REQUIRE(level >= from);
            REQUIRE(window.bucketNs == grid.bucketNs(level));
            CHECK(window.cells.front().bucket > lastBucket[level - 1]);  // windows come in time order
            lastBucket[level - 1] = window.cells.back().bucket;
            storage::appendCells(levels[level - 1], window);
        });
        for (int level = 1; level <= grid.levels; ++level) {
            INFO("from " << from << " level " << level);
            const storage::IntervalSummaryTile& got = levels[level - 1];
            if (level < from) {
                CHECK(got.cells.empty());
                continue;
            }
            const storage::IntervalSummaryTile& want = full[level - 1];
            REQUIRE(got.cells.size() == want.cells.size());
            REQUIRE(got.entries.size() == want.entries.size());
            for (std::size_t i = 0; i < got.cells.size(); ++i) {
                const storage::IntervalCell& a = got.cells[i];
                const storage::IntervalCell& b = want.cells[i];
                CHECK(std::tie(a.bucket, a.depth, a.count, a.longestStartNs, a.longestDurationNs, a.longestName,
                               a.firstEntry, a.entryCount)
                      == std::tie(b.bucket, b.depth, b.count, b.longestStartNs, b.longestDurationNs, b.longestName,
                                  b.firstEntry, b.entryCount));
            }
            for (std::size_t i = 0; i < got.entries.size(); ++i) {
                const storage::Coverage& a = got.entries[i];
                const storage::Coverage& b = want.entries[i];
                CHECK(std::tie(a.name, a.role, a.coverageNs) == std::tie(b.name, b.role, b.coverageNs));
            }
        }
    }
}

TEST_CASE("every counter level equals a direct computation from the samples", "[lod]")
{
    storage::MemoryTrace trace;
    test::makeRandomTrace({.seed = 5, .countersPerTrack = 3000}, trace);
    model::TrackId counter = 0;
    for (const model::TrackInfo& t : trace.resources().tracks())
        counter = t.kind == model::ResourceKind::Counter ? t.id : counter;
    auto samples = trace.track(counter).counters;
    REQUIRE(samples.size() > 1000);
    std::stable_sort(samples.begin(), samples.end(), [](auto& a, auto& b) { return a.timeNs < b.timeNs; });
    const model::LodGrid grid = model::LodGrid::forSpan(50'000'000);
    const auto levels = storage::summarizeCounters(grid, samples);
    const TimeNs firstNs = samples.front().timeNs;
    const TimeNs lastNs = samples.back().timeNs;
    for (int level = 1; level <= grid.levels; ++level) {
        INFO("level " << level);
        const TimeNs w = grid.bucketNs(level);
        std::map<std::int64_t, std::vector<std::size_t>> byBucket;
        for (std::size_t i = 0; i < samples.size(); ++i)
            byBucket[model::floorDiv(samples[i].timeNs, w)].push_back(i);
        REQUIRE(levels[level - 1].size() == byBucket.size());
        for (const storage::CounterPiece& piece : levels[level - 1]) {
            const storage::CounterCell& c = piece.cell;
            REQUIRE(byBucket.count(c.bucket));
            const TimeNs b0 = c.bucket * w, b1 = b0 + w;
            const TimeNs lo = std::max(b0, firstNs), hi = std::min(b1, lastNs);
            double integral = 0, mn = 1e300, mx = -1e300;
            for (std::size_t i = 0; i < samples.size(); ++i) {
                const TimeNs s = samples[i].timeNs;
                const TimeNs e = i + 1 < samples.size() ? samples[i + 1].timeNs : s;
                const TimeNs overlap = std::min(e, hi) - std::max(s, lo);
                if (overlap > 0)
                    integral += samples[i].value * static_cast<double>(overlap);
                if (overlap > 0 || (s >= b0 && s < b1)) {
                    mn = std::min(mn, samples[i].value);
                    mx = std::max(mx, samples[i].value);
                }
            }
            CHECK(c.count == byBucket[c.bucket].size());
            CHECK(c.min == mn);
            CHECK(c.max == mx);
            CHECK(c.last == samples[byBucket[c.bucket].back()].value);
            CHECK(c.weightNs == std::max<TimeNs>(0, hi - lo));
            if (c.weightNs > 0)
                CHECK(c.mean == Approx(integral / static_cast<double>(c.weightNs)).epsilon(1e-9));
        }
    }
}

TEST_CASE("queries return exact events or a level no coarser than a pixel", "[lod][store]")
{
    storage::MemoryTrace trace;
    test::makeRandomTrace({.seed = 11, .threads = 2, .intervalsPerThread = 20000}, trace);
    test::TempDir dir;
    storage::StoreReader reader(buildStore(trace, dir / "q.strata"));
    const model::LodGrid& grid = reader.grid();
    const std::vector<model::TrackId> tracks = {2, 3};
    // The exact events as stored (the round-trip test proves them equal to the input),
    // so names are the store's string ids.
    std::map<model::TrackId, std::vector<model::Interval>> raw;
    for (model::TrackId t : tracks)
        raw[t] = reader.intervals(t, reader.span().startNs, reader.span().endNs + 1);

    std::mt19937_64 rng(42);
    int exact = 0, summarised = 0;
    for (int i = 0; i < 150; ++i) {
        const TimeNs width = std::max<TimeNs>(1, static_cast<TimeNs>(std::exp(std::uniform_real_distribution<>(3, std::log(5e7))(rng))));
        const TimeNs start = std::uniform_int_distribution<TimeNs>(-1000, 50'000'000 - width / 2)(rng);
        const int px = std::uniform_int_distribution<int>(50, 2000)(rng);
        const double nsPerPx = static_cast<double>(width) / px;
        const auto slices = reader.query({tracks, start, start + width, px});
        for (const storage::TrackSlice& slice : slices) {
            INFO("window " << start << "+" << width << " px " << px << " level " << slice.intervalLevel);
            const TimeNs w = slice.intervalLevel > 0 ? grid.bucketNs(slice.intervalLevel) : 0;
            std::vector<model::Interval> want;
            for (const model::Interval& e : raw[slice.track]) {
                const bool overlaps = e.startNs < start + width && (e.endNs > start || (e.endNs == e.startNs && e.startNs >= start));
                if (overlaps && e.durationNs() >= w)
                    want.push_back(e);
            }
            REQUIRE(slice.intervals.size() == want.size());
            for (std::size_t k = 0; k < want.size(); ++k) {
                CHECK(slice.intervals[k].startNs == want[k].startNs);
                CHECK(slice.intervals[k].seq == want[k].seq);
            }
            if (slice.intervalLevel == 0) {
                ++exact;
                CHECK(slice.cells.empty());
                continue;
            }
            ++summarised;
            CHECK(static_cast<double>(w) <= nsPerPx);
            // Cells: the kept names are exact, and per role everything adds up.
            const ExpectedLevel expected = bruteForce(raw[slice.track], grid, slice.intervalLevel);
            std::size_t inWindow = 0;
            for (const auto& [key, cell] : expected)
                inWindow += key.first * w < start + width && (key.first + 1) * w > start;
            REQUIRE(slice.cells.size() == inWindow);
            for (const storage::IntervalCell& c : slice.cells) {
                const ExpectedCell& e = expected.at({c.bucket, c.depth});
                std::map<model::Role, TimeNs> roleTotal, wantRole;
                for (std::uint32_t k = 0; k < c.entryCount; ++k) {
                    const storage::Coverage& entry = slice.entries[c.firstEntry + k];
                    if (entry.coverageNs > 0)
                        roleTotal[entry.role] += entry.coverageNs;
                    if (entry.name != storage::kOtherNames)
                        CHECK(e.coverage.at({entry.name, entry.role}) == entry.coverageNs);
                }
                for (const auto& [key, ns] : e.coverage) {
                    if (ns > 0)  // zero-length intervals beyond the top names leave no trace
                        wantRole[key.second] += ns;
                }
                CHECK(roleTotal == wantRole);
                CHECK(c.count == e.count);
            }
        }
    }
    CHECK(exact > 10);
    CHECK(summarised > 10);
}

TEST_CASE("the tile cache stays within its budget under a long random query sequence", "[store][cache]")
{
    storage::MemoryTrace trace;
    test::makeRandomTrace({.seed = 13, .threads = 4, .intervalsPerThread = 10000}, trace);
    test::TempDir dir;
    const auto path = buildStore(trace, dir / "c.strata");
    for (const std::size_t budget : {std::size_t(16) << 10, std::size_t(256) << 10, std::size_t(4) << 20}) {
        storage::StoreReader reader(path, {.cacheBytes = budget});
        std::vector<model::TrackId> tracks(reader.resources().size());
        for (std::size_t i = 0; i < tracks.size(); ++i)
            tracks[i] = static_cast<model::TrackId>(i);
        std::mt19937_64 rng(budget);
        std::size_t maxSeen = 0;
        for (int i = 0; i < 400; ++i) {
            const TimeNs width = std::uniform_int_distribution<TimeNs>(1000, 50'000'000)(rng);
            const TimeNs start = std::uniform_int_distribution<TimeNs>(0, 50'000'000 - width)(rng);
            reader.query({tracks, start, start + width, 1920});
            REQUIRE(reader.cacheBytes() <= budget);
            maxSeen = std::max(maxSeen, reader.cacheBytes());
        }
        if (budget < (std::size_t(1) << 20))
            CHECK(maxSeen > budget / 4);  // the cache is used, not bypassed
    }
}
