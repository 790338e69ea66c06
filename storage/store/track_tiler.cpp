#include "storage/store/flame_codec.h"
#include "storage/store/level_summarizer.h"
#include "storage/store/tile_codec.h"
#include "storage/store/track_buffer.h"

#include <algorithm>

namespace strata::storage {

namespace {

using model::TimeNs;

template<typename T>
void release(std::vector<T>& v)
{
    std::vector<T>().swap(v);
}

/// Depth from containment for intervals that asked for it: an interval is one deeper
/// than the intervals still open when it starts. Overlapping siblings (two kernels on one
/// stream under programmatic dependent launch) thus get extra depth, not clipped.
void assignDepths(std::vector<model::Interval>& sorted)
{
    std::vector<TimeNs> openEnds;
    for (model::Interval& e : sorted) {
        while (!openEnds.empty() && openEnds.back() <= e.startNs)
            openEnds.pop_back();
        if (e.depth == model::kAutoDepth)
            e.depth = static_cast<model::Depth>(std::min<std::size_t>(openEnds.size(), model::kAutoDepth - 1));
        openEnds.push_back(e.endNs);
    }
}

/// Cuts `rows` (already in time order) into tiles of kEventsPerTile.
template<typename Row, typename Tile, typename Fill, typename Start, typename End>
void cutExact(std::vector<TileRow>& out, TileKind kind, int level, std::span<const Row> rows,
              int zstdLevel, Fill fill, Start start, End end)
{
    for (std::size_t first = 0, idx = 0; first < rows.size(); first += kEventsPerTile, ++idx) {
        const std::size_t last = std::min(rows.size(), first + kEventsPerTile);
        Tile tile;
        TimeNs maxEnd = start(rows[first]);
        for (std::size_t i = first; i < last; ++i) {
            fill(tile, rows[i]);
            maxEnd = std::max(maxEnd, end(rows[i]));
        }
        out.push_back({{kind, level, static_cast<std::int64_t>(idx), start(rows[first]), maxEnd,
                        static_cast<std::int64_t>(last - first)},
                       encodeTile(tile, zstdLevel)});
    }
}

std::int64_t bucketOf(const IntervalCell& c) { return c.bucket; }
std::int64_t bucketOf(const CounterPiece& c) { return c.cell.bucket; }
std::int64_t bucketOf(const InstantCell& c) { return c.bucket; }

/// Groups summary cells (sorted by bucket) into tiles of at most kCellsPerSummaryTile
/// cells, each spanning its first to its last bucket. A count rather than a fixed time
/// span: sparse levels (a sampled call stack every few ms at a 256 ns grid) would
/// otherwise give one tile per cell.
template<typename Cell, typename Encode>
void cutSummary(std::vector<TileRow>& out, TileKind kind, int level, const model::LodGrid& grid,
                const std::vector<Cell>& cells, Encode encode)
{
    constexpr std::size_t kCellsPerSummaryTile = model::LodGrid::kBucketsPerTile;
    const TimeNs w = grid.bucketNs(level);
    for (std::size_t first = 0, idx = 0; first < cells.size(); first += kCellsPerSummaryTile, ++idx) {
        const std::size_t last = std::min(cells.size(), first + kCellsPerSummaryTile);
        out.push_back({{kind, level, static_cast<std::int64_t>(idx), bucketOf(cells[first]) * w,
                        (bucketOf(cells[last - 1]) + 1) * w, static_cast<std::int64_t>(last - first)},
                       encode(first, last)});
    }
}

/// The finest level worth storing: the first that summarises something, with cells at
/// most half the events they stand for. Finer levels would cost as much as the exact
/// events; the reader serves those zooms from exact events (about one per pixel there).
template<typename CellCount, typename EventCount>
int finestUsefulLevel(int levels, CellCount cells, EventCount events)
{
    for (int level = 1; level <= levels; ++level) {
        if (events(level) > 0 && 2 * cells(level) <= events(level))
            return level;
    }
    return levels + 1;
}

void encodeFlame(const FlamePyramid& pyramid, int zstdLevel, TrackFlame& out)
{
    if (pyramid.levels.empty())
        return;
    out.finestLevel = pyramid.levels.front().level;
    out.coarsestLevel = pyramid.levels.back().level;
    if (pyramid.fromIntervals)
        out.paths = encodeFlamePaths(pyramid.paths, zstdLevel);
    for (const FlameLevel& level : pyramid.levels) {
        for (const FlameBucket& b : level.buckets)
            out.rows.push_back({level.level, b.bucket, encodeFlameBucket(b, zstdLevel)});
    }
}

void tileIntervals(StoreBuilder::TrackBuffer& buf, const model::LodGrid& grid, int zstdLevel,
                   const FlameSummaryOptions& flame, TrackTiles& out)
{
    auto& events = buf.intervals;
    if (events.empty())
        return;
    std::sort(events.begin(), events.end(), [](const model::Interval& a, const model::Interval& b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.seq < b.seq;
    });
    assignDepths(events);
    if (buf.samples.empty())  // a track with samples gets the pyramid of its samples
        encodeFlame(summarizeFlameIntervals(grid, events, flame), zstdLevel, out.flame);

    for (const model::Interval& e : events) {
        out.stats.maxDepth = std::max<int>(out.stats.maxDepth, e.depth);
        auto& totals = out.stats.categories[e.category];
        ++totals.first;
        totals.second += e.durationNs();
    }
    const std::vector<std::size_t> bandStarts = groupByBand(grid, events);
    for (int band = 0; band <= grid.levels; ++band) {
        const std::span<const model::Interval> rows(events.data() + bandStarts[band],
                                                    bandStarts[band + 1] - bandStarts[band]);
        if (rows.empty())
            continue;
        BandStats stats{band, static_cast<std::int64_t>(rows.size()), 0};
        for (const model::Interval& e : rows)
            stats.maxDurationNs = std::max(stats.maxDurationNs, e.durationNs());
        out.bands.push_back(stats);
        cutExact<model::Interval, IntervalTile>(
            out.tiles, TileKind::Intervals, band, rows, zstdLevel,
            [&buf](IntervalTile& t, const model::Interval& e) {
                t.events.push_back(e);
                t.args.append(t.events.size() - 1, buf.intervalArgs.at(e.seq));
            },
            [](const model::Interval& e) { return e.startNs; },
            [](const model::Interval& e) { return e.endNs; });
    }
    release(buf.intervalArgs.ends);
    std::string().swap(buf.intervalArgs.bytes);

    const auto levels = summarizeIntervals(grid, events, bandStarts);
    // Events shorter than a bucket of level l: bands 0..l-1.
    std::vector<std::int64_t> shortEvents(grid.levels + 2, 0);
    for (int level = 1; level <= grid.levels; ++level)
        shortEvents[level] = static_cast<std::int64_t>(bandStarts[level]);
    out.stats.intervalLevel = finestUsefulLevel(
        grid.levels, [&](int l) { return static_cast<std::int64_t>(levels[l - 1].cells.size()); },
        [&](int l) { return shortEvents[l]; });
    for (int level = out.stats.intervalLevel; level <= grid.levels; ++level) {
        const IntervalSummaryTile& full = levels[level - 1];
        cutSummary(out.tiles, TileKind::IntervalSummary, level, grid, full.cells,
                   [&full, zstdLevel](std::size_t first, std::size_t last) {
                       return encodeTile(truncatedTile(full, first, last), zstdLevel);
                   });
    }
    out.stats.intervals = static_cast<std::int64_t>(events.size());
    release(events);
}

void tileInstants(StoreBuilder::TrackBuffer& buf, const model::LodGrid& grid, int zstdLevel,
                  TrackTiles& out)
{
    // Arrival index, to find args after the stable sort.
    std::vector<std::pair<model::Instant, std::uint32_t>> rows;
    rows.reserve(buf.instants.size());
    for (std::size_t i = 0; i < buf.instants.size(); ++i)
        rows.emplace_back(buf.instants[i], static_cast<std::uint32_t>(i));
    release(buf.instants);
    if (rows.empty())
        return;
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.first.timeNs < b.first.timeNs; });
    cutExact<std::pair<model::Instant, std::uint32_t>, InstantTile>(
        out.tiles, TileKind::Instants, 0, rows, zstdLevel,
        [&buf](InstantTile& t, const auto& r) {
            t.events.push_back(r.first);
            t.args.append(t.events.size() - 1, buf.instantArgs.at(r.second));
        },
        [](const auto& r) { return r.first.timeNs; }, [](const auto& r) { return r.first.timeNs; });
    std::vector<model::Instant> sorted;
    sorted.reserve(rows.size());
    for (const auto& r : rows)
        sorted.push_back(r.first);
    const auto levels = summarizeInstants(grid, sorted);
    out.stats.instantLevel = finestUsefulLevel(
        grid.levels, [&](int l) { return static_cast<std::int64_t>(levels[l - 1].size()); },
        [&](int) { return static_cast<std::int64_t>(sorted.size()); });
    for (int level = out.stats.instantLevel; level <= grid.levels; ++level) {
        cutSummary(out.tiles, TileKind::InstantSummary, level, grid, levels[level - 1],
                   [&cells = levels[level - 1], zstdLevel](std::size_t first, std::size_t last) {
                       return encodeTile(InstantSummaryTile{{cells.begin() + first, cells.begin() + last}}, zstdLevel);
                   });
    }
    out.stats.instants = static_cast<std::int64_t>(sorted.size());
}

void tileCounters(StoreBuilder::TrackBuffer& buf, const model::LodGrid& grid, int zstdLevel,
                  TrackTiles& out)
{
    auto& samples = buf.counters;
    if (samples.empty())
        return;
    std::stable_sort(samples.begin(), samples.end(),
                     [](const auto& a, const auto& b) { return a.timeNs < b.timeNs; });
    cutExact<model::CounterSample, CounterTile>(
        out.tiles, TileKind::Counters, 0, samples, zstdLevel,
        [](CounterTile& t, const model::CounterSample& s) { t.samples.push_back(s); },
        [](const auto& s) { return s.timeNs; }, [](const auto& s) { return s.timeNs; });
    const auto levels = summarizeCounters(grid, samples);
    out.stats.counterLevel = finestUsefulLevel(
        grid.levels, [&](int l) { return static_cast<std::int64_t>(levels[l - 1].size()); },
        [&](int) { return static_cast<std::int64_t>(samples.size()); });
    for (int level = out.stats.counterLevel; level <= grid.levels; ++level) {
        cutSummary(out.tiles, TileKind::CounterSummary, level, grid, levels[level - 1],
                   [&pieces = levels[level - 1], zstdLevel](std::size_t first, std::size_t last) {
                       CounterSummaryTile tile;
                       for (std::size_t i = first; i < last; ++i)
                           tile.cells.push_back(pieces[i].cell);
                       return encodeTile(tile, zstdLevel);
                   });
    }
    out.stats.counters = static_cast<std::int64_t>(samples.size());
    release(samples);
}

} // namespace

TrackTiles tileTrack(StoreBuilder::TrackBuffer& buf, const model::LodGrid& grid, int zstdLevel,
                     const FlameSummaryOptions& flame)
{
    TrackTiles out;
    // Span of the track over all kinds.
    bool any = false;
    auto note = [&](TimeNs s, TimeNs e) {
        out.stats.firstNs = any ? std::min(out.stats.firstNs, s) : s;
        out.stats.lastNs = any ? std::max(out.stats.lastNs, e) : e;
        any = true;
    };
    for (const auto& e : buf.intervals)
        note(e.startNs, e.endNs);
    for (const auto& e : buf.instants)
        note(e.timeNs, e.timeNs);
    for (const auto& s : buf.counters)
        note(s.timeNs, s.timeNs);
    for (const auto& f : buf.flows)
        note(f.fromNs, f.fromNs);
    for (const auto& s : buf.samples)
        note(s.timeNs, s.timeNs);

    tileIntervals(buf, grid, zstdLevel, flame, out);
    tileInstants(buf, grid, zstdLevel, out);
    tileCounters(buf, grid, zstdLevel, out);

    std::stable_sort(buf.flows.begin(), buf.flows.end(),
                     [](const auto& a, const auto& b) { return a.fromNs < b.fromNs; });
    cutExact<model::Flow, FlowTile>(
        out.tiles, TileKind::Flows, 0, buf.flows, zstdLevel,
        [](FlowTile& t, const model::Flow& f) { t.flows.push_back(f); },
        [](const auto& f) { return f.fromNs; }, [](const auto& f) { return std::max(f.fromNs, f.toNs); });
    out.stats.flows = static_cast<std::int64_t>(buf.flows.size());
    release(buf.flows);

    std::stable_sort(buf.samples.begin(), buf.samples.end(),
                     [](const auto& a, const auto& b) { return a.timeNs < b.timeNs; });
    cutExact<model::StackSample, SampleTile>(
        out.tiles, TileKind::Samples, 0, buf.samples, zstdLevel,
        [](SampleTile& t, const model::StackSample& s) { t.samples.push_back(s); },
        [](const auto& s) { return s.timeNs; }, [](const auto& s) { return s.timeNs; });
    out.stats.samples = static_cast<std::int64_t>(buf.samples.size());
    encodeFlame(summarizeFlameSamples(grid, buf.samples, flame), zstdLevel, out.flame);
    release(buf.samples);
    return out;
}

} // namespace strata::storage
