// ShardReader, second half: answers from an open store file (viewport queries, exact events,
// stack samples, args, kernel metrics); opening and tile access are in shard_reader.cpp.

#include "storage/store/shard_reader.h"
#include "storage/store/shard_reader_p.h"
#include "storage/store/tile_codec.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <thread>
#include <type_traits>

namespace strata::storage {

using model::TimeNs;
using model::TimeRange;
using namespace shard_reader_detail;

void ShardReader::readExactIntervals(model::TrackId track, const TrackTileIndex& idx, int fromBand,
    TimeRange window, int depthLimit, std::vector<model::Interval>& out, Connection& conn)
{
    const int depths = depthLimit > 0 ? depthLimit : 256;
    const auto before = static_cast<std::ptrdiff_t>(out.size());
    auto byStart = [](const model::Interval& a, const model::Interval& b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.seq < b.seq;
    };
    for (int band = fromBand; band <= m_grid.levels; ++band) {
        const TimeNs maxDuration = m_bandMaxNs[track][band];
        const auto* tiles = idx.find(TileKind::Intervals, band);
        if (maxDuration < 0 || !tiles)
            continue;
        const auto bandStart = static_cast<std::ptrdiff_t>(out.size());
        forExactTiles(
            *tiles, window.startNs - maxDuration, window.endNs, [&](const IndexedTile& ref) {
                if (ref.t1 < window.startNs)
                    return;
                // Queries return no args: their tiles are decoded without.
                auto decoded = tile(ref.id, static_cast<int>(TileKind::Intervals), conn, true);
                // A tile's events are in start order: those starting before the window
                // are in it while they last; those starting inside it all are, and a
                // wide window's go in as one copy.
                const auto& events = std::get<IntervalTile>(*decoded).events;
                const auto inside = std::partition_point(events.begin(), events.end(),
                    [&](const model::Interval& e) { return e.startNs < window.startNs; });
                const auto after = std::partition_point(inside, events.end(),
                    [&](const model::Interval& e) { return e.startNs < window.endNs; });
                for (auto e = events.begin(); e != inside; ++e) {
                    if (overlaps(e->startNs, e->endNs, window) && e->depth < depths)
                        out.push_back(*e);
                }
                if (m_summaries[track].maxDepth >= depths) {
                    std::copy_if(inside, after, std::back_inserter(out),
                        [&](const model::Interval& e) { return e.depth < depths; });
                } else {
                    out.insert(out.end(), inside, after);
                }
            });
        // Each band comes out sorted: merge it with the bands before.
        std::inplace_merge(out.begin() + before, out.begin() + bandStart, out.end(), byStart);
    }
}

std::vector<model::Interval> ShardReader::intervals(model::TrackId track, TimeNs startNs, TimeNs endNs,
                                                    int fromBand)
{
    std::vector<model::Interval> out;
    readExactIntervals(
        track, *index(track), std::max(0, fromBand), { startNs, endNs }, 0, out, connection(0));
    return out;
}

std::vector<model::StackSample> ShardReader::stackSamples(model::TrackId track, TimeNs startNs, TimeNs endNs)
{
    std::vector<model::StackSample> out;
    Connection& conn = connection(0);
    const IndexPtr idx = m_summaries.at(track).samples > 0 ? index(track) : nullptr;
    const auto* tiles = idx ? idx->find(TileKind::Samples, 0) : nullptr;
    if (!tiles)
        return out;
    forExactTiles(*tiles, startNs, endNs, [&](const IndexedTile& ref) {
        auto decoded = tile(ref.id, static_cast<int>(TileKind::Samples), conn);
        for (const model::StackSample& s : std::get<SampleTile>(*decoded).samples) {
            if (s.timeNs >= startNs && s.timeNs < endNs)
                out.push_back(s);
        }
    });
    return out;
}

std::string ShardReader::intervalArgs(model::TrackId track, const model::Interval& interval)
{
    Connection& conn = connection(0);
    const IndexPtr idx = index(track);
    const auto* tiles = idx->find(TileKind::Intervals, m_grid.bandOf(interval.durationNs()));
    if (!tiles)
        return {};
    std::string found;
    forExactTiles(*tiles, interval.startNs, interval.startNs + 1, [&](const IndexedTile& ref) {
        auto decoded = tile(ref.id, static_cast<int>(TileKind::Intervals), conn);
        const auto& t = std::get<IntervalTile>(*decoded);
        for (std::size_t i = 0; i < t.events.size(); ++i) {
            if (t.events[i].seq == interval.seq && t.events[i].startNs == interval.startNs)
                found = t.args.at(i);
        }
    });
    return found;
}

std::optional<CellContents> ShardReader::intervalCell(
    model::TrackId track, int level, std::int64_t bucket, model::Depth depth)
{
    if (level < 1 || level > m_grid.levels)
        return std::nullopt;
    const IndexPtr idx = index(track);
    const auto* tiles = idx->find(TileKind::IntervalSummary, level);
    if (!tiles)
        return std::nullopt;
    const TimeNs w = m_grid.bucketNs(level);
    Connection& conn = connection(0);
    std::optional<CellContents> found;
    forSummaryTiles(*tiles, { bucket * w, (bucket + 1) * w }, [&](const IndexedTile& ref) {
        auto decoded = tile(ref.id, static_cast<int>(TileKind::IntervalSummary), conn);
        const auto& t = std::get<IntervalSummaryTile>(*decoded);
        auto c = std::lower_bound(t.cells.begin(), t.cells.end(), std::pair(bucket, depth),
            [](const IntervalCell& cell, std::pair<std::int64_t, model::Depth> key) {
                return std::pair(cell.bucket, cell.depth) < key;
            });
        if (found || c == t.cells.end() || c->bucket != bucket || c->depth != depth)
            return;
        if (std::size_t(c->firstEntry) + c->entryCount > t.entries.size())
            throw StoreError(
                m_path.string() + ": corrupted store: summary tile " + std::to_string(ref.id));
        found.emplace();
        found->cell = *c;
        found->cell.firstEntry = 0;
        found->entries.assign(
            t.entries.begin() + c->firstEntry, t.entries.begin() + c->firstEntry + c->entryCount);
    });
    return found;
}

std::vector<KernelMetricInfo> ShardReader::kernelMetricNames()
{
    std::vector<KernelMetricInfo> out;
    if (!m_hasKernelMetrics)
        return out;
    const auto strings = static_cast<std::int64_t>(m_stringCount);
    auto stmt = m_db->prepare("SELECT metric, unit, count(*), min(value), max(value) FROM kernel_metrics"
                              " GROUP BY metric, unit ORDER BY metric");
    while (stmt.step()) {
        KernelMetricInfo& info = out.emplace_back();
        info.metric = runString(checkedId(stmt.int64(0), strings, "string", m_path));
        info.unit = runString(checkedId(stmt.int64(1), strings, "string", m_path));
        info.kernels = stmt.int64(2);
        info.minValue = stmt.real(3);
        info.maxValue = stmt.real(4);
    }
    return out;
}

std::vector<model::KernelMetric> ShardReader::kernelMetrics(model::TrackId track,
                                                            std::optional<model::StringId> metric)
{
    std::vector<model::KernelMetric> out;
    if (!m_hasKernelMetrics)
        return out;
    const auto strings = static_cast<std::int64_t>(m_stringCount);
    auto stmt = m_db->prepare(metric ? "SELECT start_ns, metric, value, unit FROM kernel_metrics"
                                       " WHERE track = ? AND metric = ? ORDER BY start_ns"
                                     : "SELECT start_ns, metric, value, unit FROM kernel_metrics"
                                       " WHERE track = ? ORDER BY start_ns, metric");
    stmt.bind(1, std::int64_t(track));
    if (metric)
        stmt.bind(2, std::int64_t(*metric));
    while (stmt.step()) {
        model::KernelMetric& m = out.emplace_back();
        m.track = track;
        m.startNs = stmt.int64(0);
        m.metric = runString(checkedId(stmt.int64(1), strings, "string", m_path));
        m.value = stmt.real(2);
        m.unit = runString(checkedId(stmt.int64(3), strings, "string", m_path));
    }
    return out;
}

void ShardReader::fillSlice(TrackSlice& slice, model::TrackId track, const TrackTileIndex& idx,
    TimeRange window, double nsPerPx, const ViewportQuery& q, Connection& conn)
{
    const int pixelWidth = q.pixelWidth;
    const int depthLimit = q.depthLimit;
    const bool drawn = q.cells == CellDetail::Drawn;
    const TrackSummary& summary = m_summaries[track];
    const int pixelLevel = m_grid.levelFor(nsPerPx);

    // Exact events when the window holds about one per pixel: estimated from tile counts.
    auto fewExact = [&](TileKind kind, int band, TimeNs lookbackNs, std::int64_t& budget) {
        const auto* tiles = idx.find(kind, band);
        if (!tiles)
            return;
        forExactTiles(
            *tiles, window.startNs - lookbackNs, window.endNs, [&](const IndexedTile& ref) {
                if (ref.t1 >= window.startNs)
                    budget -= ref.n;
            });
    };
    // The builder leaves out a level that reduces little over the stored one below it:
    // its zooms read that one (a few cells per pixel, track_tiler.cpp). An interval level
    // without cells has no tiles either, and no finer level has cells then.
    auto storedLevel = [&](int finest, TileKind summaryKind) {
        for (int level = pixelLevel; level >= finest; --level) {
            if (idx.find(summaryKind, level))
                return level;
        }
        return pixelLevel;
    };
    auto chooseLevel = [&](int finest, TileKind kind, TileKind summaryKind, bool intervals) {
        if (pixelLevel < finest || pixelLevel == 0)
            return 0;
        std::int64_t budget = pixelWidth;
        if (intervals) {
            for (int band = 0; band <= m_grid.levels && budget >= 0; ++band) {
                if (m_bandMaxNs[track][band] >= 0)
                    fewExact(kind, band, m_bandMaxNs[track][band], budget);
            }
        } else {
            fewExact(kind, 0, 0, budget);
        }
        return budget >= 0 ? 0 : storedLevel(finest, summaryKind);
    };

    if (summary.intervals > 0) {
        slice.intervalLevel = chooseLevel(
            summary.intervalLevel, TileKind::Intervals, TileKind::IntervalSummary, true);
        readExactIntervals(
            track, idx, slice.intervalLevel, window, depthLimit, slice.intervals, conn);
        if (slice.intervalLevel > 0) {
            const TimeNs w = m_grid.bucketNs(slice.intervalLevel);
            if (const auto* tiles = idx.find(TileKind::IntervalSummary, slice.intervalLevel)) {
                // Cells are sorted by bucket: find each tile's run inside the window,
                // size the output once, then copy the runs and shift their entry offsets.
                struct Run
                {
                    std::shared_ptr<const DecodedTile> tile;
                    std::size_t begin, end;
                };
                std::vector<Run> runs;
                std::size_t cellCount = 0, entryCount = 0;
                // Cells deeper than the caller draws are left out one by one.
                const bool shallow = depthLimit > 0 && summary.maxDepth >= depthLimit;
                const std::int64_t firstBucket = model::floorDiv(window.startNs, w);
                const std::int64_t lastBucket = model::floorDiv(window.endNs - 1, w);
                forSummaryTiles(*tiles, window, [&](const IndexedTile& ref) {
                    auto decoded =
                        tile(ref.id, static_cast<int>(TileKind::IntervalSummary), conn, drawn);
                    const auto& t = std::get<IntervalSummaryTile>(*decoded);
                    const auto begin = std::lower_bound(t.cells.begin(), t.cells.end(), firstBucket,
                                                        [](const IntervalCell& c, std::int64_t b) { return c.bucket < b; });
                    const auto end = std::upper_bound(begin, t.cells.end(), lastBucket,
                                                      [](std::int64_t b, const IntervalCell& c) { return b < c.bucket; });
                    if (begin == end)
                        return;
                    const std::uint32_t from = begin->firstEntry;
                    const std::uint32_t to = std::prev(end)->firstEntry + std::prev(end)->entryCount;
                    if (to > t.entries.size() || from > to)
                        throw StoreError(m_path.string() + ": corrupted store: summary tile " + std::to_string(ref.id));
                    if (shallow) {
                        for (auto c = begin; c != end; ++c) {
                            if (c->depth < depthLimit) {
                                ++cellCount;
                                entryCount += c->entryCount;
                            }
                        }
                    } else {
                        cellCount += static_cast<std::size_t>(end - begin);
                        entryCount += to - from;
                    }
                    runs.push_back({std::move(decoded), static_cast<std::size_t>(begin - t.cells.begin()),
                                    static_cast<std::size_t>(end - t.cells.begin())});
                });
                slice.cells.reserve(cellCount);
                slice.entries.reserve(entryCount);
                for (const Run& run : runs) {
                    const auto& t = std::get<IntervalSummaryTile>(*run.tile);
                    if (shallow) {
                        for (std::size_t i = run.begin; i < run.end; ++i) {
                            IntervalCell c = t.cells[i];
                            if (c.depth >= depthLimit)
                                continue;
                            const auto entries = t.entries.begin() + c.firstEntry;
                            c.firstEntry = static_cast<std::uint32_t>(slice.entries.size());
                            slice.cells.push_back(c);
                            slice.entries.insert(
                                slice.entries.end(), entries, entries + c.entryCount);
                        }
                        continue;
                    }
                    const std::uint32_t from = t.cells[run.begin].firstEntry;
                    const std::uint32_t to = t.cells[run.end - 1].firstEntry + t.cells[run.end - 1].entryCount;
                    const auto shift = static_cast<std::int64_t>(slice.entries.size()) - from;
                    const std::size_t firstCell = slice.cells.size();
                    slice.cells.insert(slice.cells.end(), t.cells.begin() + run.begin, t.cells.begin() + run.end);
                    slice.entries.insert(slice.entries.end(), t.entries.begin() + from, t.entries.begin() + to);
                    for (std::size_t i = firstCell; i < slice.cells.size(); ++i)
                        slice.cells[i].firstEntry = static_cast<std::uint32_t>(slice.cells[i].firstEntry + shift);
                }
            }
        }
    }
    if (summary.instants > 0) {
        slice.instantLevel =
            chooseLevel(summary.instantLevel, TileKind::Instants, TileKind::InstantSummary, false);
        if (slice.instantLevel == 0) {
            if (const auto* tiles = idx.find(TileKind::Instants, 0)) {
                forExactTiles(*tiles, window.startNs, window.endNs, [&](const IndexedTile& ref) {
                    auto decoded = tile(ref.id, static_cast<int>(TileKind::Instants), conn, true);
                    for (const model::Instant& i : std::get<InstantTile>(*decoded).events) {
                        if (i.timeNs >= window.startNs && i.timeNs < window.endNs)
                            slice.instants.push_back(i);
                    }
                });
            }
        } else if (const auto* tiles = idx.find(TileKind::InstantSummary, slice.instantLevel)) {
            const TimeNs w = m_grid.bucketNs(slice.instantLevel);
            forSummaryTiles(*tiles, window, [&](const IndexedTile& ref) {
                auto decoded = tile(ref.id, static_cast<int>(TileKind::InstantSummary), conn);
                for (const InstantCell& c : std::get<InstantSummaryTile>(*decoded).cells) {
                    if (c.bucket * w < window.endNs && (c.bucket + 1) * w > window.startNs)
                        slice.instantCells.push_back(c);
                }
            });
        }
    }
    if (summary.counters > 0) {
        slice.counterLevel =
            chooseLevel(summary.counterLevel, TileKind::Counters, TileKind::CounterSummary, false);
        const TileKind kind = slice.counterLevel == 0 ? TileKind::Counters : TileKind::CounterSummary;
        if (const auto* tiles = idx.find(kind, slice.counterLevel)) {
            // Start one tile early for the value carried into the window.
            auto first = std::lower_bound(tiles->begin(), tiles->end(), window.startNs,
                [](const IndexedTile& r, TimeNs t) { return r.t1 < t; });
            if (first != tiles->begin())
                --first;
            std::vector<std::shared_ptr<const DecodedTile>> decoded;
            for (auto it = first; it != tiles->end() && it->t0 < window.endNs; ++it)
                decoded.push_back(tile(it->id, static_cast<int>(kind), conn));
            // Each tile's values are in time order: those before the window (the last of
            // them is carried in) and those inside it are found by binary search and copied
            // as runs; the output is sized once (a wide window holds ~10^5 samples a row,
            // and the overview strip asks this of every counter of the run).
            auto fill = [&](auto& out, auto valuesOf, auto endsBefore, auto startsAfter) {
                using Value = typename std::decay_t<decltype(out)>::value_type;
                const Value* carried = nullptr;
                std::vector<std::pair<const Value*, const Value*>> runs;
                std::size_t inside = 0;
                for (const auto& d : decoded) {
                    const std::vector<Value>& values = valuesOf(*d);
                    const auto begin =
                        std::partition_point(values.begin(), values.end(), endsBefore);
                    const auto end = std::partition_point(
                        begin, values.end(), [&](const Value& v) { return !startsAfter(v); });
                    if (begin != values.begin()) {  // later than what came before
                        carried = &*std::prev(begin);
                        runs.clear();
                        inside = 0;
                    }
                    if (end != begin) {
                        runs.emplace_back(&*begin, &*begin + (end - begin));
                        inside += static_cast<std::size_t>(end - begin);
                    }
                    if (end != values.end())
                        break;  // the rest lies after the window
                }
                out.reserve(inside + (carried ? 1 : 0));
                if (carried)
                    out.push_back(*carried);
                for (const auto& [from, to] : runs)
                    out.insert(out.end(), from, to);
            };
            const TimeNs w = m_grid.bucketNs(std::max(1, slice.counterLevel));
            if (kind == TileKind::Counters)
                fill(
                    slice.samples, [](const DecodedTile& d) -> const auto& {
                        return std::get<CounterTile>(d).samples;
                    },
                    [&](const model::CounterSample& v) { return v.timeNs < window.startNs; },
                    [&](const model::CounterSample& v) { return v.timeNs >= window.endNs; });
            else
                fill(
                    slice.counterCells, [](const DecodedTile& d) -> const auto& {
                        return std::get<CounterSummaryTile>(d).cells;
                    },
                    [&](const CounterCell& c) { return (c.bucket + 1) * w <= window.startNs; },
                    [&](const CounterCell& c) { return c.bucket * w >= window.endNs; });
        }
    }
    if (summary.flows > 0 && slice.intervalLevel == 0) {
        if (const auto* tiles = idx.find(TileKind::Flows, 0)) {
            forExactTiles(*tiles, window.startNs, window.endNs, [&](const IndexedTile& ref) {
                auto decoded = tile(ref.id, static_cast<int>(TileKind::Flows), conn);
                for (const model::Flow& f : std::get<FlowTile>(*decoded).flows) {
                    if (f.fromNs >= window.startNs && f.fromNs < window.endNs)
                        slice.flows.push_back(f);
                }
            });
        }
    }
    if (summary.samples > 0) {
        if (const auto* tiles = idx.find(TileKind::Samples, 0)) {
            forExactTiles(*tiles, window.startNs, window.endNs, [&](const IndexedTile& ref) {
                auto decoded = tile(ref.id, static_cast<int>(TileKind::Samples), conn);
                for (const model::StackSample& s : std::get<SampleTile>(*decoded).samples) {
                    if (s.timeNs >= window.startNs && s.timeNs < window.endNs)
                        slice.stackSamples.push_back(s);
                }
            });
        }
    }
}

void ShardReader::fill(const ViewportQuery& q, const std::vector<model::TrackId>& tracks,
    const std::vector<IndexPtr>& indexes, std::vector<TrackSlice>& out, std::size_t first,
    std::size_t last, int slot)
{
    const double nsPerPx = static_cast<double>(q.endNs - q.startNs) / q.pixelWidth;
    Connection& conn = connection(slot);
    for (std::size_t i = first; i < last; ++i)
        fillSlice(out[i], tracks[i], *indexes[i], { q.startNs, q.endNs }, nsPerPx, q, conn);
}

model::StringId ShardReader::runString(std::int64_t local) const
{
    const auto id = static_cast<model::StringId>(local);
    try {
        return m_context.ids ? m_context.ids->string(id) : id;
    } catch (const CorruptTile& e) {
        throw StoreError(m_path.string() + ": corrupted store: " + e.what());
    }
}

} // namespace strata::storage
