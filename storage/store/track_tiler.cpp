#include "storage/store/exact_cutter.h"
#include "storage/store/flame_codec.h"
#include "storage/store/interval_tiler.h"
#include "storage/store/level_summarizer.h"
#include "storage/store/tile_codec.h"
#include "storage/store/track_buffer.h"

#include <algorithm>

namespace strata::storage {

namespace {

using model::TimeNs;

std::int64_t bucketOf(const CounterPiece& c) { return c.cell.bucket; }
std::int64_t bucketOf(const InstantCell& c) { return c.bucket; }

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
    if (buf.intervals.empty())
        return;
    // A track with samples gets the pyramid of its samples.
    IntervalTiler tiler(grid, zstdLevel, flame, buf.samples.empty(),
        static_cast<std::int64_t>(buf.intervals.size()), out);
    tiler.cut(buf.intervals, buf.intervalArgs);
    release(buf.intervalArgs);
    tiler.decideLevels();
    tiler.summarize(buf.intervals, WindowRange::all(), true);
    tiler.finish();
    release(buf.intervals);
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

void widenTrackSpan(const StoreBuilder::TrackBuffer& buf, TrackStats& stats, bool& any)
{
    auto note = [&](TimeNs s, TimeNs e) {
        stats.firstNs = any ? std::min(stats.firstNs, s) : s;
        stats.lastNs = any ? std::max(stats.lastNs, e) : e;
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
}

TrackTiles tileTrack(StoreBuilder::TrackBuffer& buf, const model::LodGrid& grid, int zstdLevel,
    const FlameSummaryOptions& flame, PayloadSpool payloads)
{
    TrackTiles out;
    out.payloads = std::move(payloads);
    bool any = false;
    widenTrackSpan(buf, out.stats, any);
    tileIntervals(buf, grid, zstdLevel, flame, out);
    tileBesideIntervals(buf, grid, zstdLevel, flame, out);
    return out;
}

void tileBesideIntervals(StoreBuilder::TrackBuffer& buf, const model::LodGrid& grid, int zstdLevel,
    const FlameSummaryOptions& flame, TrackTiles& out)
{
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
}

} // namespace strata::storage
