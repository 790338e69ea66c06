#include "storage/store/level_summarizer.h"

#include "storage/store/interval_windows.h"

#include <algorithm>
#include <array>
#include <limits>

namespace strata::storage {

namespace {

using model::TimeNs;

/// What one interval, or one entry of a finer cell, adds to a cell.
struct Contribution
{
    std::int64_t bucket;
    TimeNs coverageNs;
    TimeNs longestStartNs;
    TimeNs longestDurationNs;  ///< -1: carries no longest event
    model::StringId name;
    model::StringId longestName;
    std::uint32_t count;
    model::Depth depth;
    model::Role role;
};

/// Adds the pieces of `e` in buckets [lo, hi) of width bucketNs; its count goes to the
/// bucket it starts in (when that bucket is in range).
void addInterval(std::vector<Contribution>& out, const model::Interval& e, TimeNs bucketNs,
    std::int64_t lo, std::int64_t hi)
{
    const std::int64_t first = model::floorDiv(e.startNs, bucketNs);
    const std::int64_t last = e.endNs > e.startNs ? model::floorDiv(e.endNs - 1, bucketNs) : first;
    for (std::int64_t b = std::max(first, lo); b <= std::min(last, hi - 1); ++b) {
        const TimeNs from = std::max(e.startNs, b * bucketNs);
        const TimeNs to = std::min(e.endNs, (b + 1) * bucketNs);
        out.push_back({ b, to - from, e.startNs, e.durationNs(), e.name, e.name,
            b == first ? 1u : 0u, e.depth, e.role });
    }
}

/// Longer wins; among equals the earlier start, so the result is order independent.
bool longer(TimeNs durationNs, TimeNs startNs, const IntervalCell& than)
{
    return durationNs > than.longestDurationNs
           || (durationNs == than.longestDurationNs && startNs < than.longestStartNs);
}

/// Groups contributions by cell through 16-byte keys: sorting them is several times
/// faster than sorting the 48-byte contributions with a 4-key comparator (this is the
/// hot loop of tiling).
struct CellKey
{
    std::int64_t bucket;
    std::uint32_t index;
    model::Depth depth;
    bool operator<(const CellKey& o) const
    {
        return bucket != o.bucket ? bucket < o.bucket : depth < o.depth;
    }
    bool sameCell(const CellKey& o) const { return bucket == o.bucket && depth == o.depth; }
};

/// Puts `order` (one key per contribution) in (bucket, depth) order. A window's
/// contributions span a few buckets and depths, so a counting sort over (bucket, depth)
/// does it in two passes, where a comparison sort of the keys took ~50 M instructions
/// of a 300 k-record Paraver ingest. A wide span falls back to that sort. Stable: a tie
/// of longest events (same duration and start) keeps the first in `parts` order.
void groupByCell(
    std::vector<CellKey>& order, std::vector<std::uint32_t>& starts, std::vector<CellKey>& scratch)
{
    if (order.size() < 2)
        return;
    std::int64_t lo = order.front().bucket;
    std::int64_t hi = lo;
    model::Depth deepest = 0;
    for (const CellKey& k : order) {
        lo = std::min(lo, k.bucket);
        hi = std::max(hi, k.bucket);
        deepest = std::max(deepest, k.depth);
    }
    const std::uint64_t depths = std::uint64_t(deepest) + 1;
    const std::uint64_t buckets =
        static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
    if (buckets > (std::uint64_t(1) << 32) / depths || buckets * depths > 4 * order.size() + 4096) {
        std::sort(order.begin(), order.end());
        return;
    }
    const auto slot = [&](const CellKey& k) {
        return static_cast<std::size_t>(
            static_cast<std::uint64_t>(k.bucket - lo) * depths + k.depth);
    };
    starts.assign(buckets * depths + 1, 0);
    for (const CellKey& k : order)
        ++starts[slot(k) + 1];
    for (std::size_t i = 1; i < starts.size(); ++i)
        starts[i] += starts[i - 1];
    scratch.resize(order.size());
    for (const CellKey& k : order)
        scratch[starts[slot(k)]++] = k;
    order.swap(scratch);
}

/// The cells of `parts`, grouped by (bucket, depth), each group's entries merged by
/// (name, role). The result does not depend on the order of `parts`.
void reduce(const std::vector<Contribution>& parts, std::vector<CellKey>& order,
    std::vector<std::uint32_t>& starts, std::vector<CellKey>& scratch, IntervalSummaryTile& level)
{
    order.resize(parts.size());
    for (std::size_t i = 0; i < parts.size(); ++i)
        order[i] = {parts[i].bucket, static_cast<std::uint32_t>(i), parts[i].depth};
    groupByCell(order, starts, scratch);
    level.cells.clear();
    level.entries.clear();
    for (std::size_t i = 0; i < order.size();) {
        const Contribution& head = parts[order[i].index];
        IntervalCell cell;
        cell.bucket = head.bucket;
        cell.depth = head.depth;
        cell.longestDurationNs = -1;
        cell.firstEntry = static_cast<std::uint32_t>(level.entries.size());
        for (const CellKey key = order[i]; i < order.size() && order[i].sameCell(key); ++i) {
            const Contribution& p = parts[order[i].index];
            cell.count += p.count;
            if (p.longestDurationNs >= 0 && longer(p.longestDurationNs, p.longestStartNs, cell)) {
                cell.longestStartNs = p.longestStartNs;
                cell.longestDurationNs = p.longestDurationNs;
                cell.longestName = p.longestName;
            }
            const auto entries = level.entries.begin() + cell.firstEntry;
            const auto same = std::find_if(entries, level.entries.end(), [&](const Coverage& c) {
                return c.name == p.name && c.role == p.role;
            });
            if (same != level.entries.end())
                same->coverageNs += p.coverageNs;
            else
                level.entries.push_back({p.name, p.role, p.coverageNs});
        }
        cell.entryCount = static_cast<std::uint32_t>(level.entries.size() - cell.firstEntry);
        std::sort(level.entries.begin() + cell.firstEntry, level.entries.end(), [](const Coverage& a, const Coverage& b) {
            if (a.coverageNs != b.coverageNs)
                return a.coverageNs > b.coverageNs;
            return a.name != b.name ? a.name < b.name : a.role < b.role;
        });
        level.cells.push_back(cell);
    }
}

/// Builds levels fromLevel..grid.levels of one window from the window's intervals.
class WindowSummarizer
{
public:
    WindowSummarizer(const model::LodGrid& grid, int fromLevel, const IntervalCellSink& sink)
        : m_grid(grid)
        , m_from(fromLevel)
        , m_sink(sink)
    {}

    void summarize(const IntervalWindows& window)
    {
        for (int level = m_from; level <= m_grid.levels; ++level) {
            const TimeNs w = m_grid.bucketNs(level);
            m_parts.clear();
            if (level > m_from) {
                for (const IntervalCell& child : m_finer.cells) {
                    const std::int64_t bucket = child.bucket >> m_grid.factorLog2;
                    for (std::uint32_t k = 0; k < child.entryCount; ++k) {
                        const Coverage& e = m_finer.entries[child.firstEntry + k];
                        // The cell's count and longest event ride on its first entry.
                        m_parts.push_back({ bucket, e.coverageNs, child.longestStartNs,
                            k == 0 ? child.longestDurationNs : -1, e.name, child.longestName,
                            k == 0 ? child.count : 0u, child.depth, e.role });
                    }
                }
            }
            // The first level takes every band shorter than its bucket, a level above it
            // the band that has just become shorter than its bucket.
            const int lowestBand = level == m_from ? 0 : level - 1;
            for (const IntervalWindows::Member& m : window.members()) {
                if (m.band >= lowestBand && m.band < level)
                    addInterval(m_parts, window.at(m.index), w, window.firstBucket(level),
                        window.endBucket(level));
            }
            m_level.bucketNs = w;
            reduce(m_parts, m_order, m_starts, m_scratch, m_level);
            if (!m_level.cells.empty())
                m_sink(level, m_level);
            std::swap(m_finer, m_level);
        }
    }

private:
    const model::LodGrid& m_grid;
    const int m_from;
    const IntervalCellSink& m_sink;
    std::vector<Contribution> m_parts;
    std::vector<CellKey> m_order;
    std::vector<std::uint32_t> m_starts;  ///< groupByCell's counts, kept between calls
    std::vector<CellKey> m_scratch;
    IntervalSummaryTile m_finer;
    IntervalSummaryTile m_level;
};

} // namespace

IntervalCellCounter::IntervalCellCounter(const model::LodGrid& grid)
    : m_grid(grid)
    , m_cells(static_cast<std::size_t>(grid.levels), 0)
    , m_lastCounted(static_cast<std::size_t>(grid.levels))
{}

void IntervalCellCounter::add(std::span<const model::Interval> sortedIntervals)
{
    // Per level and depth, the last bucket counted. Intervals of one depth come in start
    // order, so the buckets counted at or after a new interval's first bucket run without
    // a gap up to that last one: only the buckets past it are new.
    //
    // An interval whose last bucket was counted already at one level is counted at every
    // coarser one too, so the levels above are skipped (most intervals, at most levels):
    // a level's last bucket is at least the finer level's divided by the factor, since
    // the coarser level counts every interval the finer one does (and the longer ones)
    // and floor(floor(t / w) / F) = floor(t / (w F)).
    for (const model::Interval& e : sortedIntervals) {
        for (int level = m_grid.bandOf(e.durationNs()) + 1; level <= m_grid.levels; ++level) {
            std::vector<std::int64_t>& last = m_lastCounted[level - 1];
            if (last.size() <= e.depth)
                last.resize(e.depth + std::size_t(1), std::numeric_limits<std::int64_t>::min());
            const TimeNs w = m_grid.bucketNs(level);
            const std::int64_t first = model::floorDiv(e.startNs, w);
            const std::int64_t end = e.endNs > e.startNs ? model::floorDiv(e.endNs - 1, w) : first;
            if (end <= last[e.depth])
                break;
            const std::int64_t from = last[e.depth] == std::numeric_limits<std::int64_t>::min()
                ? first
                : std::max(first, last[e.depth] + 1);
            m_cells[level - 1] += end - from + 1;
            last[e.depth] = end;
        }
    }
}

std::vector<std::int64_t> countIntervalCells(
    const model::LodGrid& grid, std::span<const model::Interval> sortedIntervals)
{
    IntervalCellCounter counter(grid);
    counter.add(sortedIntervals);
    return counter.cells();
}

void summarizeIntervals(const model::LodGrid& grid, std::span<const model::Interval> carried,
    std::span<const model::Interval> sortedIntervals, WindowRange range, int fromLevel,
    const IntervalCellSink& sink)
{
    if (fromLevel < 1 || fromLevel > grid.levels)
        return;
    WindowSummarizer summarizer(grid, fromLevel, sink);
    for (IntervalWindows windows(grid, carried, sortedIntervals, range); windows.next();)
        summarizer.summarize(windows);
}

void summarizeIntervals(const model::LodGrid& grid,
    std::span<const model::Interval> sortedIntervals, int fromLevel, const IntervalCellSink& sink)
{
    summarizeIntervals(grid, {}, sortedIntervals, WindowRange::all(), fromLevel, sink);
}

void appendCells(IntervalSummaryTile& to, const IntervalSummaryTile& from)
{
    // Copied at once, then renumbered: a push_back a cell cost ~34 instructions.
    const auto base = static_cast<std::uint32_t>(to.entries.size());
    const std::size_t first = to.cells.size();
    to.cells.insert(to.cells.end(), from.cells.begin(), from.cells.end());
    for (std::size_t c = first; c < to.cells.size(); ++c)
        to.cells[c].firstEntry += base;
    to.entries.insert(to.entries.end(), from.entries.begin(), from.entries.end());
}

std::vector<IntervalSummaryTile> summarizeIntervals(
    const model::LodGrid& grid, std::span<const model::Interval> sortedIntervals)
{
    std::vector<IntervalSummaryTile> levels(grid.levels);
    for (int level = 1; level <= grid.levels; ++level)
        levels[level - 1].bucketNs = grid.bucketNs(level);
    summarizeIntervals(grid, sortedIntervals, 1, [&](int level, const IntervalSummaryTile& cells) {
        appendCells(levels[level - 1], cells);
    });
    return levels;
}

IntervalSummaryTile truncatedTile(const IntervalSummaryTile& full, std::size_t firstCell, std::size_t lastCell)
{
    IntervalSummaryTile tile;
    tile.bucketNs = full.bucketNs;
    tile.cells.reserve(lastCell - firstCell);
    for (std::size_t c = firstCell; c < lastCell; ++c) {
        IntervalCell cell = full.cells[c];
        const auto entries = std::span(full.entries).subspan(cell.firstEntry, cell.entryCount);
        cell.firstEntry = static_cast<std::uint32_t>(tile.entries.size());
        const std::size_t kept = std::min<std::size_t>(entries.size(), kTopNamesPerCell);
        tile.entries.insert(tile.entries.end(), entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(kept));
        if (kept == entries.size()) {  // nothing merged (most cells): no role to walk
            cell.entryCount = static_cast<std::uint32_t>(kept);
            tile.cells.push_back(cell);
            continue;
        }
        std::array<TimeNs, model::kRoleCount> other{};
        for (std::size_t i = kept; i < entries.size(); ++i)
            other[static_cast<std::size_t>(entries[i].role)] += entries[i].coverageNs;
        for (model::Role role : model::kAllRoles) {
            if (other[static_cast<std::size_t>(role)] > 0)
                tile.entries.push_back({kOtherNames, role, other[static_cast<std::size_t>(role)]});
        }
        cell.entryCount = static_cast<std::uint32_t>(tile.entries.size() - cell.firstEntry);
        tile.cells.push_back(cell);
    }
    return tile;
}

namespace {

void addConstant(CounterPiece& piece, double value, TimeNs fromNs, TimeNs toNs)
{
    if (toNs <= fromNs)
        return;
    piece.integral += value * static_cast<double>(toNs - fromNs);
    piece.cell.weightNs += toNs - fromNs;
    piece.cell.min = std::min(piece.cell.min, value);
    piece.cell.max = std::max(piece.cell.max, value);
}

void finishPiece(CounterPiece& piece)
{
    piece.cell.mean = piece.cell.weightNs > 0
                          ? piece.integral / static_cast<double>(piece.cell.weightNs)
                          : piece.cell.last;
}

/// A sample as the piece of the bucket it lies in.
CounterPiece pieceOf(const model::CounterSample& s)
{
    CounterPiece p;
    p.cell.count = 1;
    p.cell.min = p.cell.max = p.cell.mean = p.cell.last = s.value;
    p.startNs = p.endNs = s.timeNs;
    return p;
}

/// One level of pieces in a vector.
template<typename Piece>
std::vector<CounterPiece> counterLevel(std::size_t count, Piece piece, TimeNs bucketNs)
{
    std::vector<CounterPiece> out;
    CounterLevelReducer level(bucketNs);
    for (std::size_t i = 0; i < count; ++i)
        level.add(piece(i), out);
    level.finish(out);
    return out;
}

} // namespace

CounterPiece counterPieceOf(const model::CounterSample& s)
{
    return pieceOf(s);
}

void CounterLevelReducer::add(const CounterPiece& q, std::vector<CounterPiece>& done)
{
    const std::int64_t bucket = model::floorDiv(q.startNs, m_bucketNs);
    if (!m_open || m_current.cell.bucket != bucket) {
        if (m_open) {
            // The value of the last piece holds to the end of its bucket.
            CounterPiece& last = m_current;
            addConstant(last, m_previousLast, m_previousEndNs, (last.cell.bucket + 1) * m_bucketNs);
            last.endNs = (last.cell.bucket + 1) * m_bucketNs;
            finishPiece(last);
            done.push_back(last);
        }
        CounterPiece fresh;
        fresh.cell.bucket = bucket;
        fresh.cell.min = q.cell.min;
        fresh.cell.max = q.cell.max;
        fresh.startNs = m_any ? bucket * m_bucketNs : q.startNs;
        fresh.endNs = fresh.startNs;
        if (m_any)
            addConstant(fresh, m_previousLast, bucket * m_bucketNs, q.startNs);
        m_current = fresh;
        m_open = true;
    } else {
        addConstant(m_current, m_previousLast, m_previousEndNs, q.startNs);
    }
    CounterPiece& cur = m_current;
    cur.cell.count += q.cell.count;
    cur.cell.min = std::min(cur.cell.min, q.cell.min);
    cur.cell.max = std::max(cur.cell.max, q.cell.max);
    cur.integral += q.integral;
    cur.cell.weightNs += q.cell.weightNs;
    cur.cell.last = q.cell.last;
    cur.endNs = q.endNs;
    m_any = true;
    m_previousLast = q.cell.last;
    m_previousEndNs = q.endNs;
}

void CounterLevelReducer::finish(std::vector<CounterPiece>& done)
{
    if (!m_open)
        return;
    finishPiece(m_current);  // the track's last value holds for no time
    done.push_back(m_current);
    m_open = false;
}

std::vector<CounterPiece> counterLevelOne(
    const model::LodGrid& grid, std::span<const model::CounterSample> sortedSamples)
{
    CounterPiece piece;
    return counterLevel(
        sortedSamples.size(),
        [&](std::size_t i) -> const CounterPiece& { return piece = pieceOf(sortedSamples[i]); },
        grid.bucketNs(1));
}

std::vector<CounterPiece> coarserCounterLevel(
    const model::LodGrid& grid, int level, std::span<const CounterPiece> finer)
{
    return counterLevel(
        finer.size(), [&](std::size_t i) -> const CounterPiece& { return finer[i]; },
        grid.bucketNs(level));
}

std::vector<std::vector<CounterPiece>> summarizeCounters(
    const model::LodGrid& grid, std::span<const model::CounterSample> sortedSamples)
{
    std::vector<std::vector<CounterPiece>> levels(grid.levels);
    for (int level = 1; level <= grid.levels; ++level) {
        levels[level - 1] = level == 1 ? counterLevelOne(grid, sortedSamples)
                                       : coarserCounterLevel(grid, level, levels[level - 2]);
    }
    return levels;
}

void InstantLevelReducer::add(std::int64_t bucket, std::uint32_t count, TimeNs firstNs,
    model::StringId name, std::vector<InstantCell>& done)
{
    if (!m_open || m_current.bucket != bucket) {
        if (m_open)
            done.push_back(m_current);
        m_current = { bucket, 0, firstNs, name };
        m_open = true;
    }
    m_current.count += count;
}

void InstantLevelReducer::finish(std::vector<InstantCell>& done)
{
    if (m_open)
        done.push_back(m_current);
    m_open = false;
}

std::vector<InstantCell> instantLevelOne(
    const model::LodGrid& grid, std::span<const model::Instant> sortedInstants)
{
    std::vector<InstantCell> out;
    InstantLevelReducer level;
    for (const model::Instant& i : sortedInstants)
        level.add(grid.bucketOf(i.timeNs, 1), 1, i.timeNs, i.name, out);
    level.finish(out);
    return out;
}

std::vector<InstantCell> coarserInstantLevel(
    const model::LodGrid& grid, std::span<const InstantCell> finer)
{
    std::vector<InstantCell> out;
    InstantLevelReducer level;
    for (const InstantCell& c : finer)
        level.add(c.bucket >> grid.factorLog2, c.count, c.firstNs, c.firstName, out);
    level.finish(out);
    return out;
}

std::vector<std::vector<InstantCell>> summarizeInstants(
    const model::LodGrid& grid, std::span<const model::Instant> sortedInstants)
{
    std::vector<std::vector<InstantCell>> levels(grid.levels);
    for (int level = 1; level <= grid.levels; ++level) {
        levels[level - 1] = level == 1 ? instantLevelOne(grid, sortedInstants)
                                       : coarserInstantLevel(grid, levels[level - 2]);
    }
    return levels;
}

} // namespace strata::storage
