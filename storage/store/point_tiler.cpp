#include "storage/store/point_tiler.h"

#include "storage/store/exact_cutter.h"
#include "storage/store/level_summarizer.h"

#include <algorithm>
#include <type_traits>

namespace strata::storage {

namespace {

using model::TimeNs;

std::int64_t bucketOf(const CounterPiece& c)
{
    return c.cell.bucket;
}
std::int64_t bucketOf(const InstantCell& c)
{
    return c.bucket;
}

/// A stored level stands for at most this many cells of the finer stored level it
/// replaces, anywhere: a zoom of a level left out reads the finer one, at most this many
/// times the cells per pixel it would have read.
constexpr std::int64_t kMaxCellsMergedInGap = 2;

/// The finest level of instants or counters is stored only when its tiles take at most
/// half the bytes of the exact tiles, or when it stands for more than this many events a
/// cell on average (zooms below it read exact events: fewer than this many a cell on
/// average). A counter cell costs about three samples: a level with a third of the
/// samples' cells saves nothing.
constexpr std::int64_t kMaxExactEventsPerCell = 8;

/// The summary levels 1..grid.levels of one kind, their cells given as they are done
/// (each level's in time order), cut into tiles of kCellsPerSummaryTile cells as they
/// fill. finish() keeps the finest level worth storing (half the events' cells, and the
/// bytes rule above) and those above it worth storing over the last one kept: at most
/// half its cells, or somewhere more than kMaxCellsMergedInGap of its cells in one of
/// theirs (otherwise its zooms read the kept one, a few cells per pixel, and storing it
/// would cost about what that one costs again: Paraver gives several instants per time
/// stamp, and one level of instants can repeat the next three). The reader serves a
/// level left out from the stored one below it.
template<typename Cell>
class SummaryLevels
{
public:
    using Encode = std::string (*)(std::span<const Cell> cells, int zstdLevel);

    /// `events`: the track's of this kind, in all.
    SummaryLevels(TileKind kind, const model::LodGrid& grid, int zstdLevel, PayloadSpool& spool,
        Encode encode, std::int64_t events)
        : m_kind(kind)
        , m_grid(grid)
        , m_zstdLevel(zstdLevel)
        , m_spool(spool)
        , m_encode(encode)
        , m_events(events)
        , m_levels(static_cast<std::size_t>(grid.levels) + 1)
    {
        for (Level& l : m_levels)
            l.runs.resize(m_levels.size());
    }

    void cell(int level, const Cell& c)
    {
        Level& l = m_levels[static_cast<std::size_t>(level)];
        // A level of more cells than half the events is never stored, nor any below it
        // (each has at least as many): its tiles are not made.
        if (l.tooFine)
            return;
        if (2 * (l.cells + 1) > m_events) {
            l.tooFine = true;
            std::vector<Cell>().swap(l.pending);
            std::vector<TileRow>().swap(l.rows);
            return;
        }
        // How many of this level's cells share one cell of each coarser level.
        for (std::size_t coarser = static_cast<std::size_t>(level) + 1; coarser < m_levels.size();
             ++coarser) {
            Run& run = l.runs[coarser];
            const std::int64_t key =
                bucketOf(c) >> (m_grid.factorLog2 * (static_cast<int>(coarser) - level));
            run.length = l.cells > 0 && key == run.key ? run.length + 1 : 1;
            run.key = key;
            run.longest = std::max(run.longest, run.length);
        }
        ++l.cells;
        l.pending.push_back(c);
        if (l.pending.size() == kCellsPerSummaryTile)
            cut(level);
    }

    /// Appends the tiles of the levels kept to `tiles`; returns the finest kept
    /// (grid.levels + 1: none). `events` and `exactBytes`: those of the exact tiles.
    int finish(std::int64_t events, std::uint64_t exactBytes, std::vector<TileRow>& tiles)
    {
        int finest = m_grid.levels + 1;
        int lastStored = 0;
        for (int level = 1; level <= m_grid.levels; ++level) {
            if (!m_levels[static_cast<std::size_t>(level)].pending.empty())
                cut(level);
            const Level& l = m_levels[static_cast<std::size_t>(level)];
            if (finest > m_grid.levels) {
                if (events == 0 || l.tooFine || 2 * l.cells > events)
                    continue;
                if (2 * l.bytes > exactBytes && l.cells * kMaxExactEventsPerCell > events)
                    continue;
                finest = level;
            } else {
                const Level& stored = m_levels[static_cast<std::size_t>(lastStored)];
                if (2 * l.cells > stored.cells
                    && stored.runs[static_cast<std::size_t>(level)].longest <= kMaxCellsMergedInGap)
                    continue;
            }
            tiles.insert(tiles.end(), l.rows.begin(), l.rows.end());
            lastStored = level;
        }
        return finest;
    }

private:
    struct Run
    {
        std::int64_t key = 0;
        std::int64_t length = 0;
        std::int64_t longest = 0;
    };
    struct Level
    {
        std::int64_t cells = 0;
        std::uint64_t bytes = 0;  ///< of its tiles
        std::vector<Cell> pending;  ///< cells not yet in a tile
        std::vector<TileRow> rows;
        std::vector<Run> runs;  ///< per coarser level
        bool tooFine = false;  ///< over half the events' cells: not kept
    };

    void cut(int level)
    {
        Level& l = m_levels[static_cast<std::size_t>(level)];
        const TimeNs w = m_grid.bucketNs(level);
        const std::string payload = m_encode(l.pending, m_zstdLevel);
        l.bytes += payload.size();
        l.rows.push_back(
            { { m_kind, level, static_cast<std::int64_t>(l.rows.size()),
                  bucketOf(l.pending.front()) * w, (bucketOf(l.pending.back()) + 1) * w,
                  static_cast<std::int64_t>(l.pending.size()) },
                m_spool.add(payload) });
        l.pending.clear();
    }

    const TileKind m_kind;
    const model::LodGrid m_grid;
    const int m_zstdLevel;
    PayloadSpool& m_spool;
    const Encode m_encode;
    const std::int64_t m_events;
    std::vector<Level> m_levels;  ///< by level; element 0 unused
};

std::string encodeInstantCells(std::span<const InstantCell> cells, int zstdLevel)
{
    return encodeTile(InstantSummaryTile { { cells.begin(), cells.end() } }, zstdLevel);
}

std::string encodeCounterPieces(std::span<const CounterPiece> pieces, int zstdLevel)
{
    CounterSummaryTile tile;
    for (const CounterPiece& p : pieces)
        tile.cells.push_back(p.cell);
    return encodeTile(tile, zstdLevel);
}

/// One level's done cell, given to the level above's reducer.
void feedUp(InstantLevelReducer& above, const InstantCell& c, int factorLog2,
    std::vector<InstantCell>& done)
{
    above.add(c.bucket >> factorLog2, c.count, c.firstNs, c.firstName, done);
}
void feedUp(CounterLevelReducer& above, const CounterPiece& p, int, std::vector<CounterPiece>& done)
{
    above.add(p, done);
}

/// Events are fed to level 1 this many at a time, then the levels above take what is done.
constexpr std::size_t kClimbEvery = 4096;

/// What InstantTiler and CounterTiler share: the exact tiles, and the levels, each built
/// by its reducer (level_summarizer.h) from the cells of the level below.
template<typename Cell, typename Reducer, typename Tile>
struct PointTiling
{
    PointTiling(const model::LodGrid& g, int zstd, TrackTiles& tiles, std::int64_t total,
        TileKind exactKind, TileKind summaryKind, typename SummaryLevels<Cell>::Encode encode)
        : grid(g)
        , out(tiles)
        , exact(exactKind, 0, zstd, tiles.payloads, exactRows)
        , levels(summaryKind, g, zstd, tiles.payloads, encode, total)
        , done(static_cast<std::size_t>(g.levels) + 1)
    {
        for (int level = 0; level <= g.levels; ++level) {
            if constexpr (std::is_constructible_v<Reducer, TimeNs>)
                reducers.emplace_back(g.bucketNs(std::max(level, 1)));
            else
                reducers.emplace_back();
        }
    }

    /// Level 1's reducer has been given its `n`-th event of a piece (from 1).
    void fed(std::size_t n)
    {
        if (n % kClimbEvery == 0)
            climb(1);
    }

    /// Feeds each level's done cells to `levels` and to the level above, from `from` up:
    /// each level's reducer gets all of the level below's cells before its own are taken.
    void climb(int from)
    {
        for (std::size_t level = static_cast<std::size_t>(from); level < done.size(); ++level) {
            for (const Cell& c : done[level]) {
                levels.cell(static_cast<int>(level), c);
                if (level + 1 < done.size())
                    feedUp(reducers[level + 1], c, grid.factorLog2, done[level + 1]);
            }
            done[level].clear();
        }
    }

    /// The last cells of every level, then the tiles into `out`; the finest level stored.
    int finish()
    {
        exact.finish();
        for (int level = 1; level <= grid.levels; ++level) {
            reducers[static_cast<std::size_t>(level)].finish(done[static_cast<std::size_t>(level)]);
            climb(level);
        }
        out.tiles.insert(out.tiles.end(), exactRows.begin(), exactRows.end());
        return levels.finish(events, exact.bytes(), out.tiles);
    }

    const model::LodGrid grid;
    TrackTiles& out;
    std::vector<TileRow> exactRows;
    ExactCutter<Tile> exact;
    SummaryLevels<Cell> levels;
    std::vector<Reducer> reducers;  ///< by level
    std::vector<std::vector<Cell>> done;  ///< by level
    std::int64_t events = 0;
};

}  // namespace

struct InstantTiler::State : PointTiling<InstantCell, InstantLevelReducer, InstantTile>
{
    using PointTiling::PointTiling;
};

InstantTiler::InstantTiler(
    const model::LodGrid& grid, int zstdLevel, std::int64_t events, TrackTiles& out)
    : m_state(std::make_unique<State>(grid, zstdLevel, out, events, TileKind::Instants,
        TileKind::InstantSummary, encodeInstantCells))
{}

InstantTiler::~InstantTiler() = default;

void InstantTiler::add(Column<model::Instant>& piece, ArgsColumn& args)
{
    State& s = *m_state;
    // Arrival index, to find args after the stable sort.
    std::vector<std::pair<model::Instant, std::uint32_t>> rows;
    rows.reserve(piece.size());
    for (std::size_t i = 0; i < piece.size(); ++i)
        rows.emplace_back(piece[i], static_cast<std::uint32_t>(i));
    release(piece);
    std::stable_sort(rows.begin(), rows.end(),
        [](const auto& a, const auto& b) { return a.first.timeNs < b.first.timeNs; });
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const model::Instant& e = rows[i].first;
        const std::string_view eventArgs = args.at(rows[i].second);
        s.exact.add(e.timeNs, e.timeNs, [&](InstantTile& t) {
            t.events.push_back(e);
            appendArgs(t.args, t.events.size() - 1, eventArgs);
        });
        s.reducers[1].add(s.grid.bucketOf(e.timeNs, 1), 1, e.timeNs, e.name, s.done[1]);
        s.fed(i + 1);
    }
    s.climb(1);
    s.events += static_cast<std::int64_t>(rows.size());
    release(args);
}

void InstantTiler::finish()
{
    State& s = *m_state;
    s.out.stats.instantLevel = s.finish();
    s.out.stats.instants = s.events;
}

struct CounterTiler::State : PointTiling<CounterPiece, CounterLevelReducer, CounterTile>
{
    using PointTiling::PointTiling;
};

CounterTiler::CounterTiler(
    const model::LodGrid& grid, int zstdLevel, std::int64_t events, TrackTiles& out)
    : m_state(std::make_unique<State>(grid, zstdLevel, out, events, TileKind::Counters,
        TileKind::CounterSummary, encodeCounterPieces))
{}

CounterTiler::~CounterTiler() = default;

void CounterTiler::add(Column<model::CounterSample>& piece)
{
    State& s = *m_state;
    std::stable_sort(piece.begin(), piece.end(),
        [](const auto& a, const auto& b) { return a.timeNs < b.timeNs; });
    for (std::size_t i = 0; i < piece.size(); ++i) {
        const model::CounterSample& sample = piece[i];
        s.exact.add(
            sample.timeNs, sample.timeNs, [&](CounterTile& t) { t.samples.push_back(sample); });
        s.reducers[1].add(counterPieceOf(sample), s.done[1]);
        s.fed(i + 1);
    }
    s.climb(1);
    s.events += static_cast<std::int64_t>(piece.size());
    release(piece);
}

void CounterTiler::finish()
{
    State& s = *m_state;
    s.out.stats.counterLevel = s.finish();
    s.out.stats.counters = s.events;
}

}  // namespace strata::storage
