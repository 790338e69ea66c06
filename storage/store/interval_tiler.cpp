#include "storage/store/interval_tiler.h"

#include "storage/store/exact_cutter.h"
#include "storage/store/flame_codec.h"
#include "storage/store/interval_windows.h"
#include "storage/store/level_summarizer.h"

#include <algorithm>
#include <optional>

namespace strata::storage {

namespace {

using model::TimeNs;

/// Depth from containment for intervals that asked for it: an interval is one deeper
/// than the intervals still open when it starts (`openEnds`: their ends, kept from one
/// piece to the next). Overlapping siblings (two kernels on one stream under
/// programmatic dependent launch) thus get extra depth, not clipped.
void assignDepths(Column<model::Interval>& sorted, std::vector<TimeNs>& openEnds)
{
    for (model::Interval& e : sorted) {
        while (!openEnds.empty() && openEnds.back() <= e.startNs)
            openEnds.pop_back();
        if (e.depth == model::kAutoDepth)
            e.depth = static_cast<model::Depth>(
                std::min<std::size_t>(openEnds.size(), model::kAutoDepth - 1));
        openEnds.push_back(e.endNs);
    }
}

/// Sorts intervals by (start, seq) and returns where each came from (empty: they were in
/// order). Through 16-byte keys, then one gather: sorting the 40-byte intervals
/// themselves moved them about log n times each (7 % of a Paraver ingest's
/// instructions). Tracks already in order (a Paraver thread's states alone) are left as
/// they are.
std::vector<std::uint32_t> sortByStart(Column<model::Interval>& events)
{
    const auto before = [](const model::Interval& a, const model::Interval& b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.seq < b.seq;
    };
    std::vector<std::uint32_t> from;
    if (std::is_sorted(events.begin(), events.end(), before))
        return from;
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
    Column<model::Interval> sorted;
    sorted.reserve(events.size());
    from.reserve(events.size());
    for (const Key& k : keys) {
        sorted.push_back(events[k.index]);
        from.push_back(k.index);
    }
    events.swap(sorted);
    return from;
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

}  // namespace

struct IntervalTiler::State
{
    State(const model::LodGrid& g, int zstd, const FlameSummaryOptions& flameOptions, bool pyramid,
        std::int64_t total, TrackTiles& tiles, std::optional<model::TimeRange> span)
        : grid(g)
        , zstdLevel(zstd)
        , out(tiles)
        , bands(static_cast<std::size_t>(g.levels) + 1)
        , bandRows(static_cast<std::size_t>(g.levels) + 1)
        , cells(g)
    {
        cutters.reserve(bands.size());
        for (std::size_t band = 0; band < bands.size(); ++band)
            cutters.emplace_back(
                TileKind::Intervals, static_cast<int>(band), zstd, out.payloads, bandRows[band]);
        if (pyramid)
            flame.emplace(g, flameOptions, paths, total, span);
    }

    const model::LodGrid grid;
    const int zstdLevel;
    TrackTiles& out;
    // Pass 1:
    std::vector<TimeNs> openEnds;
    std::vector<BandStats> bands;
    std::vector<std::vector<TileRow>> bandRows;  ///< exact tiles, per band
    std::vector<ExactCutter<IntervalTile>> cutters;  ///< per band
    IntervalCellCounter cells;
    std::int64_t events = 0;
    // Pass 2:
    std::vector<TimeNs> openEndsAgain;
    std::vector<IntervalLevelTiles> levels;  ///< from out.stats.intervalLevel up
    std::vector<model::Interval> carried;  ///< into the next piece
    // The pyramid:
    model::StackTable paths;
    std::optional<IntervalFlameSummarizer> flame;
    FlameStoredLevels flameLevels;
    std::vector<std::vector<FlameRow>> flameRows;  ///< per level
    /// Encodes a level's buckets as the pyramid hands them out.
    const FlameBucketSink flameSink = [this](int level, const std::vector<FlameBucket>& buckets) {
        if (flameRows.size() <= static_cast<std::size_t>(level))
            flameRows.resize(static_cast<std::size_t>(level) + 1);
        for (const FlameBucket& b : buckets)
            flameRows[level].push_back(
                { level, b.bucket, out.payloads.add(encodeFlameBucket(b, zstdLevel)) });
    };
};

IntervalTiler::IntervalTiler(const model::LodGrid& grid, int zstdLevel,
    const FlameSummaryOptions& flame, bool pyramid, std::int64_t events, TrackTiles& out,
    std::optional<model::TimeRange> span)
    : m_state(std::make_unique<State>(grid, zstdLevel, flame, pyramid, events, out, span))
{}

IntervalTiler::~IntervalTiler() = default;

void IntervalTiler::cut(Column<model::Interval>& piece, ArgsColumn& args)
{
    State& s = *m_state;
    const std::vector<std::uint32_t> from = sortByStart(piece);
    assignDepths(piece, s.openEnds);

    std::vector<std::uint8_t> bands(piece.size());
    std::vector<std::int64_t> counts(s.bands.size(), 0);
    for (std::size_t i = 0; i < piece.size(); ++i) {
        const model::Interval& e = piece[i];
        s.out.stats.maxDepth = std::max<int>(s.out.stats.maxDepth, e.depth);
        auto& totals = s.out.stats.categories[e.category];
        ++totals.first;
        totals.second += e.durationNs();
        bands[i] = static_cast<std::uint8_t>(s.grid.bandOf(e.durationNs()));
        BandStats& band = s.bands[bands[i]];
        ++counts[bands[i]];
        band.maxDurationNs = std::max(band.maxDurationNs, e.durationNs());
    }
    // Exact tiles band by band, each in (start, seq) order: the events' indices grouped by
    // band (a counting sort, stable) rather than a copy of the events, or a pass over all
    // of them per band (~8 M instructions of a 300 k-record Paraver ingest).
    std::vector<std::uint32_t> byBand(piece.size());
    std::vector<std::size_t> bandStart(s.bands.size() + 1, 0);
    for (std::size_t band = 0; band < s.bands.size(); ++band)
        bandStart[band + 1] = bandStart[band] + static_cast<std::size_t>(counts[band]);
    {
        std::vector<std::size_t> fill(bandStart.begin(), bandStart.end() - 1);
        for (std::size_t i = 0; i < piece.size(); ++i)
            byBand[fill[bands[i]]++] = static_cast<std::uint32_t>(i);
    }
    release(bands);
    for (std::size_t band = 0; band < s.bands.size(); ++band) {
        s.bands[band].count += counts[band];
        for (std::size_t k = bandStart[band]; k < bandStart[band + 1]; ++k) {
            const std::uint32_t i = byBand[k];
            const model::Interval& e = piece[i];
            const std::string_view eventArgs = args.at(from.empty() ? i : from[i]);
            s.cutters[band].add(e.startNs, e.endNs, [&](IntervalTile& t) {
                t.events.push_back(e);
                appendArgs(t.args, t.events.size() - 1, eventArgs);
            });
        }
    }
    release(byBand);
    release(args);  // before the pyramid's walk takes its memory
    s.cells.add(piece);
    if (s.flame)
        s.flame->count(piece);
    s.events += static_cast<std::int64_t>(piece.size());
}

void IntervalTiler::decideLevels()
{
    State& s = *m_state;
    if (s.events == 0)
        return;  // a track of no intervals keeps the stats it has
    // Levels below the finest worth storing are never built.
    const std::vector<std::int64_t>& cells = s.cells.cells();
    std::vector<std::int64_t> shortEvents(
        s.grid.levels + 2, 0);  // bands 0..l-1: shorter than a bucket of l
    for (int level = 1; level <= s.grid.levels; ++level)
        shortEvents[level] = shortEvents[level - 1] + s.bands[level - 1].count;
    s.out.stats.intervalLevel = finestUsefulLevel(
        s.grid.levels, [&](int l) { return cells[l - 1]; }, [&](int l) { return shortEvents[l]; });
    for (int level = s.out.stats.intervalLevel; level <= s.grid.levels; ++level)
        s.levels.emplace_back(level, s.grid, s.zstdLevel, s.out.payloads);
    if (s.flame)
        s.flameLevels = s.flame->levels();
}

void IntervalTiler::summarize(Column<model::Interval>& piece, WindowRange range)
{
    State& s = *m_state;
    if (s.events == 0)
        return;
    if (!range.wholeTrack()) {
        sortByStart(piece);
        assignDepths(piece, s.openEndsAgain);
    }
    summarizeIntervals(s.grid, s.carried, piece, range, s.out.stats.intervalLevel,
        [&](int level, const IntervalSummaryTile& window) {
            s.levels[level - s.out.stats.intervalLevel].add(window);
        });
    if (!range.wholeTrack()) {
        std::vector<model::Interval> next;
        for (std::uint32_t i : carriedIntervals(s.grid, s.carried, piece))
            next.push_back(i < s.carried.size() ? s.carried[i] : piece[i - s.carried.size()]);
        s.carried.swap(next);
    }
    if (s.flameLevels.empty())
        return;
    s.flame->build(piece, range, s.flameSink);
}

void IntervalTiler::finish()
{
    State& s = *m_state;
    if (s.events == 0)
        return;
    for (ExactCutter<IntervalTile>& cutter : s.cutters)
        cutter.finish();
    for (std::size_t band = 0; band < s.bands.size(); ++band) {
        if (s.bands[band].count == 0)
            continue;
        s.bands[band].band = static_cast<int>(band);
        s.out.bands.push_back(s.bands[band]);
        for (TileRow& row : s.bandRows[band])
            s.out.tiles.push_back(std::move(row));
    }
    for (IntervalLevelTiles& level : s.levels) {
        for (TileRow& row : level.finish())
            s.out.tiles.push_back(std::move(row));
    }
    s.out.stats.intervals = s.events;
    if (s.flameLevels.empty())
        return;
    s.flame->finish(s.flameSink);
    s.out.flame.finestLevel = s.flameLevels.finest;
    s.out.flame.coarsestLevel = s.flameLevels.coarsest;
    s.out.flame.paths = encodeFlamePaths(s.paths, s.zstdLevel);
    for (const std::vector<FlameRow>& level : s.flameRows)
        s.out.flame.rows.insert(s.out.flame.rows.end(), level.begin(), level.end());
}

}  // namespace strata::storage
