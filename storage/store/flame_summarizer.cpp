#include "storage/store/flame_summarizer.h"

#include "storage/store/interval_windows.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace strata::storage {

namespace {

using model::TimeNs;

/// What one sample, interval piece or finer entry adds to a bucket.
struct Part
{
    std::int64_t bucket;
    std::uint32_t path;
    std::uint32_t samples;  ///< stack samples it stands for
    std::int64_t weight;
};

/// Parts added up by (bucket, path) in a table of slots, one per (bucket, path), read out
/// in order: what sorting the parts by (bucket, path) and merging them gives, without a
/// sort, where buckets and paths are few (a window of a Paraver thread: 4 buckets, tens
/// of paths). Reading it out clears the slots it used: the next start() clears nothing.
class PartTable
{
public:
    /// Whether a table of `range` buckets and `paths` paths is worth it for about `parts`
    /// parts.
    static bool fits(std::uint64_t range, std::uint64_t paths, std::size_t parts)
    {
        return range <= (std::uint64_t(1) << 32) / paths && range * paths <= 4 * parts + 4096;
    }

    /// An empty table of buckets [first, first + range) and paths [0, paths).
    void start(std::int64_t first, std::uint64_t range, std::uint64_t paths)
    {
        m_first = first;
        m_paths = paths;
        m_words = (paths + 63) / 64;
        if (m_weights.size() < range * paths)
            m_weights.resize(range * paths, 0);
        if (m_used.size() < range * m_words)
            m_used.resize(range * m_words, 0);
        if (m_rows.size() < range)
            m_rows.resize(range, Row { 0, 0 });
        m_range = range;
        m_usedRows = 0;
    }

    void add(const Part& p)
    {
        const auto b = static_cast<std::size_t>(p.bucket - m_first);
        std::uint64_t& word = m_used[b * m_words + p.path / 64];
        const std::uint64_t bit = std::uint64_t(1) << (p.path % 64);
        Row& row = m_rows[b];
        m_usedRows += row.entries == 0;
        row.entries += (word & bit) == 0;
        row.samples += p.samples;
        word |= bit;
        m_weights[b * m_paths + p.path] += p.weight;
    }

    std::vector<FlameBucket> take()
    {
        std::vector<FlameBucket> out;
        out.reserve(m_usedRows);
        for (std::size_t b = 0; b < m_range; ++b) {
            Row& r = m_rows[b];
            if (r.entries == 0)
                continue;
            FlameBucket& bucket =
                out.emplace_back(FlameBucket { m_first + std::int64_t(b), r.samples, {} });
            bucket.entries.reserve(r.entries);
            std::int64_t* weights = m_weights.data() + b * m_paths;
            std::uint64_t* used = m_used.data() + b * m_words;
            // The used paths, in order, a bit at a time.
            for (std::size_t k = 0; k < m_words; ++k) {
                for (std::uint64_t word = used[k]; word != 0; word &= word - 1) {
                    const auto path =
                        static_cast<std::uint32_t>(64 * k + std::size_t(std::countr_zero(word)));
                    bucket.entries.push_back({ path, weights[path] });
                    weights[path] = 0;
                }
                used[k] = 0;
            }
            r = Row { 0, 0 };
        }
        return out;
    }

    /// Gives back the memory of a table of more than `slots` slots.
    void shrink(std::size_t slots)
    {
        if (m_weights.size() > slots) {
            std::vector<std::int64_t>().swap(m_weights);
            std::vector<std::uint64_t>().swap(m_used);
            std::vector<Row>().swap(m_rows);
        }
    }

private:
    struct Row
    {
        std::int64_t samples;
        std::uint32_t entries;  ///< paths used
    };
    // By bucket, then path; all clear between uses.
    std::vector<std::int64_t> m_weights;
    std::vector<std::uint64_t> m_used;  ///< a bit a path, m_words words a bucket
    std::vector<Row> m_rows;
    std::int64_t m_first = 0;
    std::uint64_t m_range = 0;
    std::uint64_t m_paths = 0;
    std::uint64_t m_words = 0;
    std::size_t m_usedRows = 0;
};

/// Adds up `parts` by (bucket, path), in that order. Buckets span a range not much wider
/// than the parts are many (they come from time order). With few paths too, in a
/// PartTable (a counting sort of the parts by slot, then a pass merging them, was the
/// most of this); otherwise a counting sort by bucket and a sort of each bucket's few
/// parts by path, or one comparison sort of them all for a wide range.
std::vector<FlameBucket> reduce(std::vector<Part>& parts)
{
    std::vector<FlameBucket> out;
    if (parts.empty())
        return out;
    const auto [lo, hi] = std::minmax_element(parts.begin(), parts.end(),
        [](const Part& a, const Part& b) { return a.bucket < b.bucket; });
    const std::int64_t first = lo->bucket;
    const std::uint64_t range =
        static_cast<std::uint64_t>(hi->bucket) - static_cast<std::uint64_t>(first) + 1;
    std::uint32_t maxPath = 0;
    for (const Part& p : parts)
        maxPath = std::max(maxPath, p.path);
    const std::uint64_t paths = std::uint64_t(maxPath) + 1;
    if (PartTable::fits(range, paths, parts.size())) {
        // Kept per thread, up to 64 Ki slots: a reduce per window and level would
        // otherwise allocate it; a pyramid of samples may need millions once.
        thread_local PartTable table;
        table.start(first, range, paths);
        for (const Part& p : parts)
            table.add(p);
        out = table.take();
        table.shrink(std::size_t(1) << 16);
        return out;
    }
    auto byPath = [](const Part& a, const Part& b) {
        return a.path < b.path;
    };
    if (range > 2 * parts.size() + 1024) {
        std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
            return a.bucket != b.bucket ? a.bucket < b.bucket : a.path < b.path;
        });
    } else {
        std::vector<std::uint32_t> starts(range + 1, 0);
        for (const Part& p : parts)
            ++starts[static_cast<std::size_t>(p.bucket - first) + 1];
        for (std::size_t b = 1; b < starts.size(); ++b)
            starts[b] += starts[b - 1];
        std::vector<Part> sorted(parts.size());
        std::vector<std::uint32_t> next(starts.begin(), starts.end() - 1);
        for (const Part& p : parts)
            sorted[next[static_cast<std::size_t>(p.bucket - first)]++] = p;
        for (std::size_t b = 0; b + 1 < starts.size(); ++b) {
            if (starts[b + 1] - starts[b] > 1)
                std::sort(sorted.begin() + starts[b], sorted.begin() + starts[b + 1], byPath);
        }
        parts.swap(sorted);
    }
    for (const Part& p : parts) {
        if (out.empty() || out.back().bucket != p.bucket)
            out.push_back({ p.bucket, 0, {} });
        FlameBucket& b = out.back();
        b.samples += p.samples;
        if (!b.entries.empty() && b.entries.back().path == p.path)
            b.entries.back().weight += p.weight;
        else
            b.entries.push_back({ p.path, p.weight });
    }
    return out;
}

/// The entries of one level as parts of the next (F = 2^factorLog2 buckets per bucket),
/// each given to `add`.
template<typename Add>
void forEachCoarsePart(const std::vector<FlameBucket>& buckets, int factorLog2, Add add)
{
    const std::int64_t factor = std::int64_t(1) << factorLog2;
    for (const FlameBucket& b : buckets) {
        const std::int64_t up = model::floorDiv(b.bucket, factor);
        // The bucket's sample count rides on its first entry (in 32-bit pieces).
        std::int64_t samples = b.samples;
        constexpr std::int64_t kMaxPiece = std::numeric_limits<std::uint32_t>::max();
        for (; samples > kMaxPiece; samples -= kMaxPiece)
            add(Part { up, b.entries.front().path, static_cast<std::uint32_t>(kMaxPiece), 0 });
        for (const FlameEntry& e : b.entries) {
            add(Part { up, e.path, static_cast<std::uint32_t>(samples), e.weight });
            samples = 0;
        }
    }
}

std::vector<Part> coarsen(const std::vector<FlameBucket>& buckets, int factorLog2)
{
    std::vector<Part> parts;
    forEachCoarsePart(buckets, factorLog2, [&](const Part& p) { parts.push_back(p); });
    return parts;
}

std::size_t entryCount(const std::vector<FlameBucket>& buckets)
{
    std::size_t n = 0;
    for (const FlameBucket& b : buckets)
        n += b.entries.size();
    return n;
}

/// Builds levels `first`..top from `parts` (level `first`), adding `extra(level, parts)`
/// before reducing each level above the first. Levels are kept from the first that
/// compresses what went into it (samples, or interval pieces) enough.
template<typename Extra>
std::vector<FlameLevel> buildLevels(const model::LodGrid& grid, int first, int top,
    std::vector<Part> parts, const FlameSummaryOptions& options, Extra extra)
{
    std::vector<FlameLevel> levels;
    std::vector<FlameBucket> previous;
    auto raw = static_cast<std::int64_t>(parts.size());  // contributions so far
    for (int level = first; level <= top; ++level) {
        if (level > first) {
            parts = coarsen(levels.empty() ? previous : levels.back().buckets, grid.factorLog2);
            const std::size_t coarsened = parts.size();
            extra(level, parts);
            raw += static_cast<std::int64_t>(parts.size() - coarsened);
        }
        std::vector<FlameBucket> buckets = reduce(parts);
        std::vector<Part>().swap(parts);
        if (!levels.empty()
            || options.worthStoring(static_cast<std::int64_t>(buckets.size()),
                static_cast<std::int64_t>(entryCount(buckets)), raw))
            levels.push_back({ level, std::move(buckets) });
        else
            previous = std::move(buckets);
    }
    return levels;
}

/// The call path of each interval (and its parent's path), from the walk
/// FlameTreeBuilder::addTrackIntervals does; false when nesting is not proper.
struct Walked
{
    std::uint32_t path;
    std::uint32_t parent;  ///< 0: the root
};

/// The ids of a track's call paths, (parent, name) -> path, shared by the walks of its
/// two passes so that both number the paths alike.
struct PathIds
{
    explicit PathIds(model::StackTable& table)
        : paths(table)
    {}
    model::StackTable& paths;
    std::unordered_map<std::uint64_t, std::uint32_t> ids;
};

/// Walks intervals (sorted, with their final depths) piece after piece, keeping the
/// intervals still open between pieces.
class PathWalker
{
public:
    explicit PathWalker(PathIds& ids)
        : m_ids(ids)
        , m_cache(kCached)
    {}

    /// Appends the walk of `sorted` to `out`; false when nesting is not proper.
    bool walk(std::span<const model::Interval> sorted, std::vector<Walked>& out)
    {
        out.reserve(out.size() + sorted.size());
        for (const model::Interval& iv : sorted) {
            std::size_t depth = std::min<std::size_t>(iv.depth, m_open.size());
            while (depth > 0 && m_open[depth - 1].endNs <= iv.startNs
                && m_open[depth - 1].endNs < iv.endNs)
                --depth;
            if (depth > 0 && m_open[depth - 1].endNs < iv.endNs)
                return false;  // the enclosing interval ends first
            for (std::size_t k = depth; k < m_open.size(); ++k) {
                if (m_open[k].endNs > iv.startNs)
                    return false;  // cuts short an interval still running
            }
            const std::uint32_t parent = depth == 0 ? 0 : m_open[depth - 1].path;
            const std::uint64_t key = (std::uint64_t(parent) << 32) | iv.name;
            // A track has few paths, met again and again: a direct-mapped cache in front
            // of the map (the walk, a map lookup an interval, was 33 M of the 345 M
            // instructions the pyramids of p300k.prv took).
            Cached& cached = m_cache[((key * 0x9E3779B97F4A7C15ULL) >> 32) & (kCached - 1)];
            if (cached.key != key) {
                const auto [it, added] =
                    m_ids.ids.try_emplace(key, static_cast<std::uint32_t>(m_ids.paths.size()));
                if (added)
                    m_ids.paths.add(parent, iv.name);
                cached = { key, it->second };
            }
            m_open.resize(depth);
            m_open.push_back({ cached.path, iv.endNs });
            out.push_back({ cached.path, parent });
        }
        return true;
    }

private:
    struct Open
    {
        std::uint32_t path;
        TimeNs endNs;
    };
    struct Cached
    {
        std::uint64_t key = ~std::uint64_t(0);  ///< (parent, name); no path has this one
        std::uint32_t path = 0;
    };
    static constexpr std::size_t kCached = 256;
    PathIds& m_ids;
    std::vector<Open> m_open;
    std::vector<Cached> m_cache;
};

/// The parts of interval `iv` in buckets [lo, hi) of width bucketNs, each given to `add`.
template<typename Add>
void forEachIntervalPart(const model::Interval& iv, const Walked& w, TimeNs bucketNs,
    std::int64_t lo, std::int64_t hi, Add add)
{
    const std::int64_t first = model::floorDiv(iv.startNs, bucketNs);
    if (iv.endNs == iv.startNs) {
        if (first >= lo && first < hi)
            add(Part { first, w.path, 0, 0 });
        return;
    }
    const std::int64_t last = model::floorDiv(iv.endNs - 1, bucketNs);
    for (std::int64_t b = std::max(first, lo); b <= std::min(last, hi - 1); ++b) {
        const TimeNs ns =
            std::min(iv.endNs, (b + 1) * bucketNs) - std::max(iv.startNs, b * bucketNs);
        add(Part { b, w.path, 0, ns });
        if (w.parent != 0)
            add(Part { b, w.parent, 0, -ns });
    }
}

/// Counts what each level of an interval pyramid would hold (buckets, entries, and the
/// parts that go into them), piece after piece of a track, to find the first level worth
/// storing (buildLevels' rule) before building any. Per level, one pass over a piece
/// that tracks the last bucket counted overall and per path: intervals come in start
/// order and an interval's parts (its path's and its parent's) share its buckets, so the
/// buckets counted at or after an interval's first one run without a gap up to the last
/// counted, and only those past it are new. A level is given up once over the rule
/// whatever comes; with the last piece counted, the first level worth storing ends the
/// count (a track held whole is counted up to there only).
class FlameLevelCounter
{
public:
    /// `events`: the track's intervals in all.
    FlameLevelCounter(
        const model::LodGrid& grid, const FlameSummaryOptions& options, std::int64_t events)
        : m_grid(grid)
        , m_options(options)
        , m_unseen(events)
        , m_joining(static_cast<std::size_t>(grid.levels) + 1, 0)
        , m_levels(static_cast<std::size_t>(flameLevelCap(grid)))
    {}

    /// Counts levels up to `top` (the pyramid's coarsest, or more).
    void add(std::span<const model::Interval> sorted, std::span<const Walked> walked, int top)
    {
        // The parts each band adds, at the level it joins (band b at level b + 1).
        std::vector<std::uint8_t> bands(sorted.size());  // asked at every level below
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            const model::Interval& iv = sorted[i];
            const int band = m_grid.bandOf(iv.durationNs());
            bands[i] = static_cast<std::uint8_t>(band);
            if (band >= m_grid.levels)
                continue;
            const bool parent = walked[i].parent != 0 && iv.endNs > iv.startNs;
            const auto [from, to] = buckets(iv, band + 1);
            m_joining[static_cast<std::size_t>(band)] += (parent ? 2 : 1) * (to - from + 1);
        }
        m_unseen -= static_cast<std::int64_t>(sorted.size());
        const bool last = m_unseen <= 0;  // the raw parts are final
        std::int64_t raw = 0;
        for (int level = 1; level <= std::min(top, static_cast<int>(m_levels.size())); ++level) {
            if (level <= m_grid.levels)
                raw += m_joining[static_cast<std::size_t>(level - 1)];
            // What the level's parts come to at most, with the intervals still to come: an
            // interval adds at most 4 (2 buckets, its path and its parent's). A level over
            // the rule for that many never gets under it, and is no longer counted: the
            // finest levels, after a fraction of the intervals (as many parts as entries).
            const std::int64_t most = raw + 4 * std::max<std::int64_t>(m_unseen, 0);
            Level& l = m_levels[static_cast<std::size_t>(level - 1)];
            // The counts only grow: checked every kStride intervals.
            constexpr std::size_t kStride = 512;
            for (std::size_t from = 0; from < sorted.size() && !l.hopeless; from += kStride) {
                const std::size_t to = std::min(sorted.size(), from + kStride);
                for (std::size_t i = from; i < to; ++i) {
                    const model::Interval& iv = sorted[i];
                    if (bands[i] >= std::min(level, m_grid.levels))
                        continue;
                    const auto [first, end] = buckets(iv, level);
                    l.buckets += count(l.lastBucket, first, end);
                    l.entries += count(lastOf(l, walked[i].path), first, end);
                    if (walked[i].parent != 0 && iv.endNs > iv.startNs)
                        l.entries += count(lastOf(l, walked[i].parent), first, end);
                }
                l.hopeless = l.buckets * m_options.minEventsPerBucket > most
                    || l.entries * m_options.minCompression > most;
            }
            // With every interval counted, the first level worth storing ends the count:
            // the levels above it are not asked for.
            if (last && worthStoring(l, raw))
                break;
        }
    }

    /// The first level worth storing up to `top`, or 0 for none.
    int firstStored(int top) const
    {
        std::int64_t raw = 0;
        for (int level = 1; level <= top && level <= static_cast<int>(m_levels.size()); ++level) {
            if (level <= m_grid.levels)
                raw += m_joining[static_cast<std::size_t>(level - 1)];
            if (worthStoring(m_levels[static_cast<std::size_t>(level - 1)], raw))
                return level;
        }
        return 0;
    }

private:
    static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
    struct Level
    {
        std::int64_t lastBucket = kNone;
        std::int64_t buckets = 0;
        std::int64_t entries = 0;
        std::vector<std::int64_t> lastOfPath;
        bool hopeless = false;  ///< over the rule whatever comes: no longer counted
    };

    /// buildLevels' rule, for a level of `raw` parts.
    bool worthStoring(const Level& l, std::int64_t raw) const
    {
        // A level stored has a bucket, so an entry: with fewer parts than the rule asks
        // of one, it cannot be stored (the finest levels, of the shortest intervals).
        if (raw < m_options.minEventsPerBucket || raw < m_options.minCompression)
            return false;
        return !l.hopeless && m_options.worthStoring(l.buckets, l.entries, raw);
    }

    /// The first and last buckets of `level` that `iv` touches (a zero-length interval:
    /// the one holding its start).
    std::pair<std::int64_t, std::int64_t> buckets(const model::Interval& iv, int level) const
    {
        const TimeNs w = m_grid.bucketNs(level);
        const std::int64_t first = model::floorDiv(iv.startNs, w);
        return { first, iv.endNs > iv.startNs ? model::floorDiv(iv.endNs - 1, w) : first };
    }
    static std::int64_t& lastOf(Level& l, std::uint32_t path)
    {
        if (l.lastOfPath.size() <= path)
            l.lastOfPath.resize(std::size_t(path) + 1, kNone);
        return l.lastOfPath[path];
    }
    static std::int64_t count(std::int64_t& last, std::int64_t first, std::int64_t end)
    {
        const std::int64_t from = last == kNone ? first : std::max(first, last + 1);
        if (end < from)
            return 0;
        last = end;
        return end - from + 1;
    }

    const model::LodGrid& m_grid;
    const FlameSummaryOptions m_options;
    std::int64_t m_unseen;  ///< intervals not yet counted
    std::vector<std::int64_t> m_joining;  ///< parts each band adds, at the level it joins
    std::vector<Level> m_levels;
};

/// Builds the levels of an interval pyramid from `first` up, one window of intervals at a
/// time (interval_windows.h) up to the grid's coarsest level, and above it from that
/// level's buckets, which are few (a window each at most).
class FlameWindowBuilder
{
public:
    FlameWindowBuilder(const model::LodGrid& grid, std::size_t pathCount, int first, int top)
        : m_grid(grid)
        , m_pathCount(pathCount)
        , m_first(first)
        , m_top(top)
        , m_windowed(std::min(top, grid.levels))
    {}

    /// The windows of one piece; `walked` covers what `windows` walks (carried, then own).
    void add(IntervalWindows& windows, std::span<const Walked> walked, const FlameBucketSink& sink)
    {
        while (windows.next())
            summarize(windows, walked, sink);
    }

    void finish(const FlameBucketSink& sink)
    {
        for (int level = m_windowed + 1; level <= m_top; ++level) {
            std::vector<Part> parts = coarsen(m_coarsest, m_grid.factorLog2);
            m_coarsest = reduce(parts);
            if (level >= m_first)
                sink(level, m_coarsest);
        }
    }

private:
    void summarize(
        const IntervalWindows& window, std::span<const Walked> walked, const FlameBucketSink& sink)
    {
        // Level `from` is built from the intervals directly, each above from the one below.
        const int from = std::min(m_first, m_windowed);
        std::vector<FlameBucket> buckets;
        for (int level = from; level <= m_windowed; ++level) {
            const std::int64_t lo = window.firstBucket(level);
            const std::int64_t hi = window.endBucket(level);
            const int lowestBand = level == from ? 0 : level - 1;
            // The parts of the level in this window: the level below's entries, coarsened,
            // and the intervals of the band that joins.
            auto addParts = [&](auto add) {
                if (level > from)
                    forEachCoarsePart(buckets, m_grid.factorLog2, add);
                for (const IntervalWindows::Member& m : window.members()) {
                    if (m.band >= lowestBand && m.band < level)
                        forEachIntervalPart(window.at(m.index), walked[m.index],
                            m_grid.bucketNs(level), lo, hi, add);
                }
            };
            // Its buckets and the paths are known: added up in a table as they come when
            // that is small (most windows), else gathered and reduced.
            const std::size_t expected = 2 * window.members().size() + entryCount(buckets);
            if (PartTable::fits(std::uint64_t(hi - lo), m_pathCount, expected)) {
                m_table.start(lo, std::uint64_t(hi - lo), m_pathCount);
                addParts([this](const Part& p) { m_table.add(p); });
                buckets = m_table.take();
            } else {
                std::vector<Part> parts;
                addParts([&parts](const Part& p) { parts.push_back(p); });
                buckets = reduce(parts);
            }
            if (level >= m_first && !buckets.empty())
                sink(level, buckets);
        }
        if (m_top > m_windowed)
            m_coarsest.insert(m_coarsest.end(), buckets.begin(), buckets.end());
    }

    const model::LodGrid& m_grid;
    const std::uint64_t m_pathCount;  ///< paths are 0 (the root) .. m_pathCount - 1
    const int m_first;
    const int m_top;
    const int m_windowed;  ///< the coarsest level built window by window
    std::vector<FlameBucket> m_coarsest;  ///< level m_windowed, whole, when levels go above it
    PartTable m_table;
};

}  // namespace

int flameLevelCap(const model::LodGrid& grid)
{
    int level = 1;
    while (grid.bucketNs(level) < (std::numeric_limits<TimeNs>::max() >> (grid.factorLog2 + 2)))
        ++level;
    return level;
}

int flameTopLevel(const model::LodGrid& grid, TimeNs firstNs, TimeNs lastNs)
{
    int level = 1;
    while (grid.bucketOf(lastNs, level) - grid.bucketOf(firstNs, level) > 1
        && grid.bucketNs(level) < (std::numeric_limits<TimeNs>::max() >> (grid.factorLog2 + 2)))
        ++level;
    return level;
}

FlamePyramid summarizeFlameSamples(const model::LodGrid& grid,
    std::span<const model::StackSample> sorted, const FlameSummaryOptions& options)
{
    FlamePyramid out;
    const auto events = static_cast<std::int64_t>(sorted.size());
    if (events == 0 || events < options.minEvents)
        return out;
    const int top = flameTopLevel(grid, sorted.front().timeNs, sorted.back().timeNs);
    // Start where buckets alone are few enough: finer levels cannot compress.
    int first = 1;
    for (; first < top; ++first) {
        std::int64_t buckets = 0;
        std::int64_t last = std::numeric_limits<std::int64_t>::min();
        for (const model::StackSample& s : sorted) {
            const std::int64_t b = grid.bucketOf(s.timeNs, first);
            buckets += b != last;
            last = b;
        }
        if (options.fewEnoughBuckets(buckets, events))
            break;
    }
    std::vector<Part> parts;
    parts.reserve(sorted.size());
    for (const model::StackSample& s : sorted)
        parts.push_back({ grid.bucketOf(s.timeNs, first), s.stack, 1, s.weight });
    out.levels =
        buildLevels(grid, first, top, std::move(parts), options, [](int, std::vector<Part>&) {});
    return out;
}

struct IntervalFlameSummarizer::State
{
    State(const model::LodGrid& g, const FlameSummaryOptions& o, model::StackTable& paths,
        std::int64_t expected, std::optional<model::TimeRange> trackSpan)
        : grid(g)
        , options(o)
        , total(expected)
        , span(trackSpan)
        , wanted(expected >= o.minEvents)
        , ids(paths)
        , counting(ids)
        , building(ids)
        , counter(g, o, total)
    {}

    const model::LodGrid grid;
    const FlameSummaryOptions options;
    const std::int64_t total;
    const std::optional<model::TimeRange> span;
    bool wanted;  ///< enough events for a pyramid
    PathIds ids;
    PathWalker counting;  ///< the first pass's walk
    PathWalker building;  ///< the second's
    FlameLevelCounter counter;
    bool proper = true;
    std::int64_t events = 0;
    TimeNs firstNs = 0;
    TimeNs lastNs = 0;
    std::vector<Walked> walked;  ///< of the last piece counted: a lone piece is not walked again
    FlameStoredLevels stored;
    std::optional<FlameWindowBuilder> builder;
    std::vector<model::Interval> carried;  ///< into the next piece built
    std::vector<Walked> carriedWalk;
};

IntervalFlameSummarizer::IntervalFlameSummarizer(const model::LodGrid& grid,
    const FlameSummaryOptions& options, model::StackTable& paths, std::int64_t events,
    std::optional<model::TimeRange> span)
    : m_state(std::make_unique<State>(grid, options, paths, events, span))
{}

IntervalFlameSummarizer::~IntervalFlameSummarizer() = default;

void IntervalFlameSummarizer::count(std::span<const model::Interval> piece)
{
    State& s = *m_state;
    if (piece.empty() || !s.proper || !s.wanted)
        return;
    if (s.events == 0)
        s.firstNs = s.lastNs = piece.front().startNs;
    for (const model::Interval& iv : piece)
        s.lastNs = std::max(s.lastNs, iv.endNs);
    s.events += static_cast<std::int64_t>(piece.size());
    s.walked.clear();
    if (!s.counting.walk(piece, s.walked)) {
        s.proper = false;
        std::vector<Walked>().swap(s.walked);
        return;
    }
    // Levels above the pyramid's coarsest are not counted: the track's span gives it
    // once every interval is in, or ahead when known.
    const int top = s.events >= s.total ? flameTopLevel(s.grid, s.firstNs, s.lastNs)
        : s.span                        ? flameTopLevel(s.grid, s.span->startNs, s.span->endNs)
                                        : flameLevelCap(s.grid);
    s.counter.add(piece, s.walked, top);
}

FlameStoredLevels IntervalFlameSummarizer::levels()
{
    State& s = *m_state;
    if (s.events == 0 || s.events < s.options.minEvents || !s.proper)
        return {};
    const int top = flameTopLevel(s.grid, s.firstNs, s.lastNs);
    const int first = s.counter.firstStored(top);
    if (first == 0)
        return {};
    s.stored = { first, top };
    s.builder.emplace(s.grid, s.ids.paths.size(), first, top);
    return s.stored;
}

void IntervalFlameSummarizer::build(
    std::span<const model::Interval> piece, WindowRange range, const FlameBucketSink& sink)
{
    State& s = *m_state;
    if (!s.builder)
        return;
    const bool whole = range.wholeTrack();
    std::vector<Walked> walked;
    if (whole) {
        walked.swap(s.walked);  // the walk of the count, of this same piece
    } else {
        std::vector<Walked>().swap(s.walked);
        walked = s.carriedWalk;
        if (!s.building.walk(piece, walked))
            throw std::logic_error("IntervalFlameSummarizer: the pieces changed between passes");
    }
    IntervalWindows windows(s.grid, s.carried, piece, range);
    s.builder->add(windows, walked, sink);
    if (whole)
        return;
    std::vector<model::Interval> carried;
    std::vector<Walked> carriedWalk;
    for (std::uint32_t i : carriedIntervals(s.grid, s.carried, piece)) {
        carried.push_back(windows.at(i));
        carriedWalk.push_back(walked[i]);
    }
    s.carried.swap(carried);
    s.carriedWalk.swap(carriedWalk);
}

void IntervalFlameSummarizer::finish(const FlameBucketSink& sink)
{
    if (m_state->builder)
        m_state->builder->finish(sink);
}

FlameStoredLevels summarizeFlameIntervals(const model::LodGrid& grid,
    std::span<const model::Interval> sorted, const FlameSummaryOptions& options,
    model::StackTable& paths, const FlameBucketSink& sink)
{
    IntervalFlameSummarizer summarizer(
        grid, options, paths, static_cast<std::int64_t>(sorted.size()));
    summarizer.count(sorted);
    const FlameStoredLevels stored = summarizer.levels();
    summarizer.build(sorted, WindowRange::all(), sink);
    summarizer.finish(sink);
    return stored;
}

FlamePyramid summarizeFlameIntervals(const model::LodGrid& grid,
    std::span<const model::Interval> sorted, const FlameSummaryOptions& options)
{
    FlamePyramid out;
    out.fromIntervals = true;
    std::vector<std::vector<FlameBucket>> levels;
    const FlameStoredLevels range = summarizeFlameIntervals(
        grid, sorted, options, out.paths, [&](int level, const std::vector<FlameBucket>& buckets) {
            if (levels.size() <= static_cast<std::size_t>(level))
                levels.resize(static_cast<std::size_t>(level) + 1);
            levels[static_cast<std::size_t>(level)].insert(
                levels[static_cast<std::size_t>(level)].end(), buckets.begin(), buckets.end());
        });
    for (int level = range.finest; level <= range.coarsest; ++level)
        out.levels.push_back({ level, std::move(levels[static_cast<std::size_t>(level)]) });
    return out;
}

}  // namespace strata::storage
