#include "storage/store/flame_codec.h"
#include "storage/store/level_summarizer.h"
#include "storage/store/tile_codec.h"
#include "storage/store/track_buffer.h"

#include <algorithm>
#include <ranges>

namespace strata::storage {

namespace {

using model::TimeNs;

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

/// Sorts intervals by (start, seq). Through 16-byte keys, then one gather: sorting the
/// 40-byte intervals themselves moved them about log n times each (7 % of a Paraver
/// ingest's instructions). Tracks already in order (a Paraver thread's states alone)
/// are left as they are.
void sortByStart(std::vector<model::Interval>& events)
{
    const auto before = [](const model::Interval& a, const model::Interval& b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.seq < b.seq;
    };
    if (std::is_sorted(events.begin(), events.end(), before))
        return;
    struct Key
    {
        TimeNs startNs;
        std::uint32_t seq;
        std::uint32_t index;
    };
    std::vector<Key> keys(events.size());
    for (std::size_t i = 0; i < events.size(); ++i)
        keys[i] = { events[i].startNs, events[i].seq, static_cast<std::uint32_t>(i) };
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.seq < b.seq;
    });
    std::vector<model::Interval> sorted;
    sorted.reserve(events.size());
    for (const Key& k : keys)
        sorted.push_back(events[k.index]);
    events.swap(sorted);
}

/// Empties a tile for the next one, its columns keeping their memory: grown again from
/// nothing for every tile of 512 events (`tile = {}`), they took ~40 instructions an event.
void clearArgs(ArgsColumn& args)
{
    args.bytes.clear();
    args.ends.clear();
}
void clearTile(IntervalTile& t)
{
    t.events.clear();
    clearArgs(t.args);
}
void clearTile(InstantTile& t)
{
    t.events.clear();
    clearArgs(t.args);
}
void clearTile(CounterTile& t)
{
    t.samples.clear();
}
void clearTile(FlowTile& t)
{
    t.flows.clear();
}
void clearTile(SampleTile& t)
{
    t.samples.clear();
}

/// Cuts `rows` (already in time order; any range) into tiles of kEventsPerTile.
template<typename Tile, typename Rows, typename Fill, typename Start, typename End>
void cutExact(TrackTiles& out, TileKind kind, int level, Rows&& rows, int zstdLevel, Fill fill,
    Start start, End end)
{
    Tile tile;
    std::int64_t idx = 0;
    std::int64_t n = 0;
    TimeNs t0 = 0;
    TimeNs maxEnd = 0;
    auto flush = [&] {
        out.tiles.push_back({ { kind, level, idx++, t0, maxEnd, n },
            out.payloads.add(encodeTile(tile, zstdLevel)) });
        clearTile(tile);
        n = 0;
    };
    for (const auto& row : rows) {
        if (n == 0)
            t0 = maxEnd = start(row);
        fill(tile, row);
        maxEnd = std::max(maxEnd, end(row));
        if (++n == static_cast<std::int64_t>(kEventsPerTile))
            flush();
    }
    if (n > 0)
        flush();
}

std::int64_t bucketOf(const CounterPiece& c) { return c.cell.bucket; }
std::int64_t bucketOf(const InstantCell& c) { return c.bucket; }

/// Summary tiles hold at most this many cells, each tile spanning its first to its last
/// bucket. A count rather than a fixed time span: sparse levels (a sampled call stack
/// every few ms at a 256 ns grid) would otherwise give one tile per cell.
constexpr std::size_t kCellsPerSummaryTile = model::LodGrid::kBucketsPerTile;

/// A level's summary tiles, encoded but not yet stored.
struct EncodedLevel
{
    std::vector<std::pair<TileIndexEntry, std::string>> tiles;
    std::uint64_t bytes = 0;
};

/// Groups a whole level's cells (sorted by bucket) into tiles; `encode` takes a tile's cells.
template<typename Cell, typename Encode>
EncodedLevel encodeSummary(TileKind kind, int level, const model::LodGrid& grid,
    std::span<const Cell> cells, Encode encode)
{
    EncodedLevel out;
    const TimeNs w = grid.bucketNs(level);
    for (std::size_t first = 0, idx = 0; first < cells.size(); first += kCellsPerSummaryTile, ++idx) {
        const auto tile =
            cells.subspan(first, std::min(kCellsPerSummaryTile, cells.size() - first));
        out.tiles.emplace_back(TileIndexEntry { kind, level, static_cast<std::int64_t>(idx),
                                   bucketOf(tile.front()) * w, (bucketOf(tile.back()) + 1) * w,
                                   static_cast<std::int64_t>(tile.size()) },
            encode(tile));
        out.bytes += out.tiles.back().second.size();
    }
    return out;
}

/// Cuts one interval summary level into tiles as its cells arrive, window by window
/// (level_summarizer.h): holds less than a tile's cells between windows.
class IntervalLevelTiles
{
public:
    IntervalLevelTiles(int level, const model::LodGrid& grid, int zstdLevel, PayloadSpool& spool)
        : m_level(level)
        , m_zstdLevel(zstdLevel)
        , m_spool(spool)
    {
        m_pending.bucketNs = grid.bucketNs(level);
    }

    void add(const IntervalSummaryTile& cells)
    {
        appendCells(m_pending, cells);
        std::size_t first = 0;
        for (; m_pending.cells.size() - first >= kCellsPerSummaryTile;
             first += kCellsPerSummaryTile)
            cut(first, first + kCellsPerSummaryTile);
        if (first == 0)
            return;
        // Keep the cells of the next tile, their entries moved to the front.
        const auto base = first < m_pending.cells.size()
            ? m_pending.cells[first].firstEntry
            : static_cast<std::uint32_t>(m_pending.entries.size());
        m_pending.cells.erase(
            m_pending.cells.begin(), m_pending.cells.begin() + static_cast<std::ptrdiff_t>(first));
        m_pending.entries.erase(m_pending.entries.begin(), m_pending.entries.begin() + base);
        for (IntervalCell& cell : m_pending.cells)
            cell.firstEntry -= base;
    }

    /// The level's tiles, the last one included.
    std::vector<TileRow> finish()
    {
        if (!m_pending.cells.empty())
            cut(0, m_pending.cells.size());
        return std::move(m_rows);
    }

private:
    void cut(std::size_t first, std::size_t last)
    {
        const TimeNs w = m_pending.bucketNs;
        m_rows.push_back(
            { { TileKind::IntervalSummary, m_level, static_cast<std::int64_t>(m_rows.size()),
                  m_pending.cells[first].bucket * w, (m_pending.cells[last - 1].bucket + 1) * w,
                  static_cast<std::int64_t>(last - first) },
                m_spool.add(encodeTile(truncatedTile(m_pending, first, last), m_zstdLevel)) });
    }

    const int m_level;
    const int m_zstdLevel;
    PayloadSpool& m_spool;
    IntervalSummaryTile m_pending;  ///< cells not yet in a tile
    std::vector<TileRow> m_rows;
};

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

void encodeFlame(const FlamePyramid& pyramid, int zstdLevel, TrackTiles& out)
{
    if (pyramid.levels.empty())
        return;
    out.flame.finestLevel = pyramid.levels.front().level;
    out.flame.coarsestLevel = pyramid.levels.back().level;
    if (pyramid.fromIntervals)
        out.flame.paths = encodeFlamePaths(pyramid.paths, zstdLevel);
    for (const FlameLevel& level : pyramid.levels) {
        for (const FlameBucket& b : level.buckets)
            out.flame.rows.push_back(
                { level.level, b.bucket, out.payloads.add(encodeFlameBucket(b, zstdLevel)) });
    }
}

/// The flame pyramid of intervals, its buckets encoded as they are built.
void encodeIntervalFlame(const model::LodGrid& grid, std::span<const model::Interval> sorted,
    const FlameSummaryOptions& options, int zstdLevel, TrackTiles& out)
{
    std::vector<std::vector<FlameRow>> levels;
    model::StackTable paths;
    const FlameStoredLevels range = summarizeFlameIntervals(
        grid, sorted, options, paths, [&](int level, const std::vector<FlameBucket>& buckets) {
            if (levels.size() <= static_cast<std::size_t>(level))
                levels.resize(static_cast<std::size_t>(level) + 1);
            for (const FlameBucket& b : buckets)
                levels[level].push_back(
                    { level, b.bucket, out.payloads.add(encodeFlameBucket(b, zstdLevel)) });
        });
    if (range.empty())
        return;
    out.flame.finestLevel = range.finest;
    out.flame.coarsestLevel = range.coarsest;
    out.flame.paths = encodeFlamePaths(paths, zstdLevel);
    for (const std::vector<FlameRow>& level : levels)
        out.flame.rows.insert(out.flame.rows.end(), level.begin(), level.end());
}

/// A stored level stands for at most this many cells of the finer stored level it
/// replaces, anywhere: a zoom of a level left out reads the finer one, at most this many
/// times the cells per pixel it would have read.
constexpr std::int64_t kMaxCellsMergedInGap = 2;

/// Whether `level` (cells sorted by bucket) is worth storing over `stored`, the last
/// stored level, `shift` = factorLog2 levels finer: it must hold at most half as many
/// cells, or else somewhere merge more than kMaxCellsMergedInGap of them into one.
/// Otherwise its zooms read `stored` (a few cells per pixel), and storing it would cost
/// about what `stored` costs again (Paraver gives several instants per time stamp: one
/// level of instants can repeat the next three).
template<typename Cell>
bool worthStoring(std::span<const Cell> level, std::span<const Cell> stored, int shift)
{
    if (2 * level.size() <= stored.size())
        return true;
    std::int64_t run = 0;
    for (std::size_t i = 0; i < stored.size(); ++i) {
        const bool same =
            i > 0 && (bucketOf(stored[i]) >> shift) == (bucketOf(stored[i - 1]) >> shift);
        run = same ? run + 1 : 1;
        if (run > kMaxCellsMergedInGap)
            return true;
    }
    return false;
}

/// The finest level of instants or counters is stored only when its tiles take at most
/// half the bytes of the exact tiles, or when it stands for more than this many events a
/// cell on average (zooms below it read exact events: fewer than this many a cell on
/// average). A counter cell costs about three samples: a level with a third of the
/// samples' cells saves nothing.
constexpr std::int64_t kMaxExactEventsPerCell = 8;

/// Builds a kind's summary levels one at a time (`next(level, finer)` gives level
/// `level`) and stores the finest worth storing (half the events' cells, and the bytes
/// rule above) and those above it worth storing over the last stored one (worthStoring);
/// returns the finest. The reader serves a level left out from the stored one below it.
template<typename Cell, typename Next, typename Encode>
int cutLevels(TrackTiles& out, TileKind kind, const model::LodGrid& grid, std::int64_t events,
    std::uint64_t exactBytes, Next next, Encode encode)
{
    int finest = grid.levels + 1;
    int lastStored = 0;
    std::vector<Cell> cells;
    std::vector<Cell> stored;  // the cells of lastStored
    for (int level = 1; level <= grid.levels; ++level) {
        cells = next(level, cells);
        const std::span<const Cell> span(cells);
        const auto n = static_cast<std::int64_t>(cells.size());
        EncodedLevel encoded;
        if (finest > grid.levels) {
            if (events == 0 || 2 * n > events)
                continue;
            encoded = encodeSummary(kind, level, grid, span, encode);
            if (2 * encoded.bytes > exactBytes && n * kMaxExactEventsPerCell > events)
                continue;
            finest = level;
        } else if (worthStoring(span, std::span<const Cell>(stored),
                       grid.factorLog2 * (level - lastStored))) {
            encoded = encodeSummary(kind, level, grid, span, encode);
        } else {
            continue;
        }
        for (auto& [entry, payload] : encoded.tiles)
            out.tiles.push_back({ entry, out.payloads.add(payload) });
        lastStored = level;
        stored = cells;
    }
    return finest;
}

void tileIntervals(StoreBuilder::TrackBuffer& buf, const model::LodGrid& grid, int zstdLevel,
                   const FlameSummaryOptions& flame, TrackTiles& out)
{
    auto& events = buf.intervals;
    if (events.empty())
        return;
    sortByStart(events);
    assignDepths(events);

    std::vector<std::uint8_t> bands(events.size());
    std::vector<BandStats> stats(grid.levels + 1);
    for (std::size_t i = 0; i < events.size(); ++i) {
        const model::Interval& e = events[i];
        out.stats.maxDepth = std::max<int>(out.stats.maxDepth, e.depth);
        auto& totals = out.stats.categories[e.category];
        ++totals.first;
        totals.second += e.durationNs();
        bands[i] = static_cast<std::uint8_t>(grid.bandOf(e.durationNs()));
        BandStats& band = stats[bands[i]];
        ++band.count;
        band.maxDurationNs = std::max(band.maxDurationNs, e.durationNs());
    }
    // Exact tiles band by band, each in (start, seq) order: the events' indices grouped by
    // band (a counting sort, stable) rather than a copy of the events, or a pass over all
    // of them per band (~8 M instructions of a 300 k-record Paraver ingest).
    std::vector<std::uint32_t> byBand(events.size());
    std::vector<std::size_t> bandStart(grid.levels + 2, 0);
    for (int band = 0; band <= grid.levels; ++band)
        bandStart[band + 1] = bandStart[band] + static_cast<std::size_t>(stats[band].count);
    {
        std::vector<std::size_t> fill(bandStart.begin(), bandStart.end() - 1);
        for (std::size_t i = 0; i < events.size(); ++i)
            byBand[fill[bands[i]]++] = static_cast<std::uint32_t>(i);
    }
    release(bands);
    for (int band = 0; band <= grid.levels; ++band) {
        if (stats[band].count == 0)
            continue;
        stats[band].band = band;
        out.bands.push_back(stats[band]);
        auto ofBand =
            std::span(byBand).subspan(bandStart[band], bandStart[band + 1] - bandStart[band])
            | std::views::transform(
                [&](std::uint32_t i) -> const model::Interval& { return events[i]; });
        cutExact<IntervalTile>(
            out, TileKind::Intervals, band, ofBand, zstdLevel,
            [&buf](IntervalTile& t, const model::Interval& e) {
                t.events.push_back(e);
                appendArgs(t.args, t.events.size() - 1, buf.intervalArgs.at(e.seq));
            },
            [](const model::Interval& e) { return e.startNs; },
            [](const model::Interval& e) { return e.endNs; });
    }
    release(buf.intervalArgs);
    release(byBand);
    if (buf.samples.empty())  // a track with samples gets the pyramid of its samples
        encodeIntervalFlame(grid, events, flame, zstdLevel, out);

    // Levels below the finest worth storing are never built.
    const std::vector<std::int64_t> cells = countIntervalCells(grid, events);
    std::vector<std::int64_t> shortEvents(
        grid.levels + 2, 0);  // bands 0..l-1: shorter than a bucket of l
    for (int level = 1; level <= grid.levels; ++level)
        shortEvents[level] = shortEvents[level - 1] + stats[level - 1].count;
    out.stats.intervalLevel = finestUsefulLevel(
        grid.levels, [&](int l) { return cells[l - 1]; }, [&](int l) { return shortEvents[l]; });
    std::vector<IntervalLevelTiles> levels;
    for (int level = out.stats.intervalLevel; level <= grid.levels; ++level)
        levels.emplace_back(level, grid, zstdLevel, out.payloads);
    summarizeIntervals(
        grid, events, out.stats.intervalLevel, [&](int level, const IntervalSummaryTile& window) {
            levels[level - out.stats.intervalLevel].add(window);
        });
    for (IntervalLevelTiles& level : levels) {
        for (TileRow& row : level.finish())
            out.tiles.push_back(std::move(row));
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
    const std::uint64_t before = out.payloads.bytes();
    cutExact<InstantTile>(
        out, TileKind::Instants, 0, rows, zstdLevel,
        [&buf](InstantTile& t, const auto& r) {
            t.events.push_back(r.first);
            appendArgs(t.args, t.events.size() - 1, buf.instantArgs.at(r.second));
        },
        [](const auto& r) { return r.first.timeNs; }, [](const auto& r) { return r.first.timeNs; });
    release(buf.instantArgs);
    const std::uint64_t exactBytes = out.payloads.bytes() - before;
    std::vector<model::Instant> sorted;
    sorted.reserve(rows.size());
    for (const auto& r : rows)
        sorted.push_back(r.first);
    release(rows);
    out.stats.instantLevel = cutLevels<InstantCell>(
        out, TileKind::InstantSummary, grid, static_cast<std::int64_t>(sorted.size()), exactBytes,
        [&](int level, const std::vector<InstantCell>& finer) {
            return level == 1 ? instantLevelOne(grid, sorted) : coarserInstantLevel(grid, finer);
        },
        [zstdLevel](std::span<const InstantCell> cells) {
            return encodeTile(InstantSummaryTile { { cells.begin(), cells.end() } }, zstdLevel);
        });
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
    const std::uint64_t before = out.payloads.bytes();
    cutExact<CounterTile>(
        out, TileKind::Counters, 0, samples, zstdLevel,
        [](CounterTile& t, const model::CounterSample& s) { t.samples.push_back(s); },
        [](const auto& s) { return s.timeNs; }, [](const auto& s) { return s.timeNs; });
    const std::uint64_t exactBytes = out.payloads.bytes() - before;
    out.stats.counterLevel = cutLevels<CounterPiece>(
        out, TileKind::CounterSummary, grid, static_cast<std::int64_t>(samples.size()), exactBytes,
        [&](int level, const std::vector<CounterPiece>& finer) {
            return level == 1 ? counterLevelOne(grid, samples)
                              : coarserCounterLevel(grid, level, finer);
        },
        [zstdLevel](std::span<const CounterPiece> pieces) {
            CounterSummaryTile tile;
            for (const CounterPiece& p : pieces)
                tile.cells.push_back(p.cell);
            return encodeTile(tile, zstdLevel);
        });
    out.stats.counters = static_cast<std::int64_t>(samples.size());
    release(samples);
}

} // namespace

TrackTiles tileTrack(StoreBuilder::TrackBuffer& buf, const model::LodGrid& grid, int zstdLevel,
    const FlameSummaryOptions& flame, PayloadSpool payloads)
{
    TrackTiles out;
    out.payloads = std::move(payloads);
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

    // Flows mostly come in time order (a trace's records do): a merge sort of sorted
    // flows still copies them log n times (~15 M instructions of a 300 k-record Paraver
    // ingest), a check does not.
    const auto earlierFlow = [](const auto& a, const auto& b) {
        return a.fromNs < b.fromNs;
    };
    if (!std::is_sorted(buf.flows.begin(), buf.flows.end(), earlierFlow))
        std::stable_sort(buf.flows.begin(), buf.flows.end(), earlierFlow);
    cutExact<FlowTile>(
        out, TileKind::Flows, 0, buf.flows, zstdLevel,
        [](FlowTile& t, const model::Flow& f) { t.flows.push_back(f); },
        [](const auto& f) { return f.fromNs; },
        [](const auto& f) { return std::max(f.fromNs, f.toNs); });
    out.stats.flows = static_cast<std::int64_t>(buf.flows.size());
    release(buf.flows);

    std::stable_sort(buf.samples.begin(), buf.samples.end(),
                     [](const auto& a, const auto& b) { return a.timeNs < b.timeNs; });
    cutExact<SampleTile>(
        out, TileKind::Samples, 0, buf.samples, zstdLevel,
        [](SampleTile& t, const model::StackSample& s) { t.samples.push_back(s); },
        [](const auto& s) { return s.timeNs; }, [](const auto& s) { return s.timeNs; });
    out.stats.samples = static_cast<std::int64_t>(buf.samples.size());
    encodeFlame(summarizeFlameSamples(grid, buf.samples, flame), zstdLevel, out);
    release(buf.samples);
    return out;
}

} // namespace strata::storage
