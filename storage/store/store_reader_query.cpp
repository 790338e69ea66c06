// StoreReader, second half: answers from an open store (viewport queries, exact events,
// stack samples, args, kernel metrics); opening and tile access are in store_reader.cpp.

#include "storage/store/store_reader.h"

#include "storage/store/store_reader_p.h"
#include "storage/store/tile_codec.h"

#include <algorithm>
#include <array>
#include <thread>

namespace strata::storage {

using model::TimeNs;
using model::TimeRange;
using namespace store_reader_detail;

std::vector<std::pair<model::StackId, model::StringId>> StoreReader::stackFrames()
{
    std::lock_guard lock(m_mutex);
    std::vector<std::pair<model::StackId, model::StringId>> frames(1);
    auto stmt = m_db->prepare("SELECT id, parent, frame FROM stacks ORDER BY id");
    while (stmt.step()) {
        const auto id = stmt.int64(0);
        const auto parent = stmt.int64(1);
        const auto frame = stmt.int64(2);
        if (id != static_cast<std::int64_t>(frames.size()) || parent < 0 || parent >= id || frame < 0
            || frame >= static_cast<std::int64_t>(m_strings.size()))
            throw StoreError(m_path.string() + ": corrupted store: bad stack " + std::to_string(id));
        frames.emplace_back(static_cast<model::StackId>(parent), static_cast<model::StringId>(frame));
    }
    return frames;
}

void StoreReader::readExactIntervals(model::TrackId track, int fromBand, TimeRange window,
                                     std::vector<model::Interval>& out, Connection& conn)
{
    const TrackIndex& idx = index(track);
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
        forExactTiles(*tiles, window.startNs - maxDuration, window.endNs, [&](const TileRef& ref) {
            if (ref.t1 < window.startNs)
                return;
            auto decoded = tile(ref, static_cast<int>(TileKind::Intervals), conn);
            for (const model::Interval& e : std::get<IntervalTile>(*decoded).events) {
                if (overlaps(e.startNs, e.endNs, window))
                    out.push_back(e);
            }
        });
        // Each band comes out sorted: merge it with the bands before.
        std::inplace_merge(out.begin() + before, out.begin() + bandStart, out.end(), byStart);
    }
}

std::vector<model::Interval> StoreReader::intervals(model::TrackId track, TimeNs startNs, TimeNs endNs)
{
    return intervals(track, startNs, endNs, 0);
}

std::vector<model::Interval> StoreReader::intervals(model::TrackId track, TimeNs startNs, TimeNs endNs,
                                                    int fromBand)
{
    std::lock_guard lock(m_mutex);
    std::vector<model::Interval> out;
    readExactIntervals(track, std::max(0, fromBand), {startNs, endNs}, out, *m_connections[0]);
    return out;
}

std::vector<model::StackSample> StoreReader::stackSamples(model::TrackId track, TimeNs startNs, TimeNs endNs)
{
    std::lock_guard lock(m_mutex);
    std::vector<model::StackSample> out;
    Connection& conn = *m_connections[0];
    const auto* tiles = summary(track).samples > 0 ? index(track).find(TileKind::Samples, 0) : nullptr;
    if (!tiles)
        return out;
    forExactTiles(*tiles, startNs, endNs, [&](const TileRef& ref) {
        auto decoded = tile(ref, static_cast<int>(TileKind::Samples), conn);
        for (const model::StackSample& s : std::get<SampleTile>(*decoded).samples) {
            if (s.timeNs >= startNs && s.timeNs < endNs)
                out.push_back(s);
        }
    });
    return out;
}

std::string StoreReader::intervalArgs(model::TrackId track, const model::Interval& interval)
{
    Connection& conn = *m_connections[0];
    std::lock_guard lock(m_mutex);
    const auto* tiles = index(track).find(TileKind::Intervals, m_grid.bandOf(interval.durationNs()));
    if (!tiles)
        return {};
    std::string found;
    forExactTiles(*tiles, interval.startNs, interval.startNs + 1, [&](const TileRef& ref) {
        auto decoded = tile(ref, static_cast<int>(TileKind::Intervals), conn);
        const auto& t = std::get<IntervalTile>(*decoded);
        for (std::size_t i = 0; i < t.events.size(); ++i) {
            if (t.events[i].seq == interval.seq && t.events[i].startNs == interval.startNs)
                found = t.args.at(i);
        }
    });
    return found;
}

std::vector<KernelMetricInfo> StoreReader::kernelMetricNames()
{
    std::lock_guard lock(m_mutex);
    std::vector<KernelMetricInfo> out;
    if (!m_hasKernelMetrics)
        return out;
    const auto strings = static_cast<std::int64_t>(m_strings.size());
    auto stmt = m_db->prepare("SELECT metric, unit, count(*), min(value), max(value) FROM kernel_metrics"
                              " GROUP BY metric, unit ORDER BY metric");
    while (stmt.step()) {
        KernelMetricInfo& info = out.emplace_back();
        info.metric = static_cast<model::StringId>(checkedId(stmt.int64(0), strings, "string", m_path));
        info.unit = static_cast<model::StringId>(checkedId(stmt.int64(1), strings, "string", m_path));
        info.kernels = stmt.int64(2);
        info.minValue = stmt.real(3);
        info.maxValue = stmt.real(4);
    }
    std::sort(out.begin(), out.end(), [this](const KernelMetricInfo& a, const KernelMetricInfo& b) {
        return m_strings.text(a.metric) < m_strings.text(b.metric);
    });
    return out;
}

std::vector<model::KernelMetric> StoreReader::kernelMetrics(model::TrackId track,
                                                            std::optional<model::StringId> metric)
{
    std::lock_guard lock(m_mutex);
    std::vector<model::KernelMetric> out;
    if (!m_hasKernelMetrics)
        return out;
    const auto strings = static_cast<std::int64_t>(m_strings.size());
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
        m.metric = static_cast<model::StringId>(checkedId(stmt.int64(1), strings, "string", m_path));
        m.value = stmt.real(2);
        m.unit = static_cast<model::StringId>(checkedId(stmt.int64(3), strings, "string", m_path));
    }
    return out;
}

void StoreReader::fillSlice(TrackSlice& slice, TimeRange window, double nsPerPx, int pixelWidth,
                            Connection& conn)
{
    const model::TrackId track = slice.track;
    const TrackIndex& idx = index(track);
    const TrackSummary& summary = m_summaries[track];
    const int pixelLevel = m_grid.levelFor(nsPerPx);

    // Exact events when the window holds about one per pixel: estimated from tile counts.
    auto fewExact = [&](TileKind kind, int band, TimeNs lookbackNs, std::int64_t& budget) {
        const auto* tiles = idx.find(kind, band);
        if (!tiles)
            return;
        forExactTiles(*tiles, window.startNs - lookbackNs, window.endNs, [&](const TileRef& ref) {
            if (ref.t1 >= window.startNs)
                budget -= ref.n;
        });
    };
    auto chooseLevel = [&](int finest, TileKind kind, bool intervals) {
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
        return budget >= 0 ? 0 : pixelLevel;
    };

    if (summary.intervals > 0) {
        slice.intervalLevel = chooseLevel(summary.intervalLevel, TileKind::Intervals, true);
        readExactIntervals(track, slice.intervalLevel, window, slice.intervals, conn);
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
                const std::int64_t firstBucket = model::floorDiv(window.startNs, w);
                const std::int64_t lastBucket = model::floorDiv(window.endNs - 1, w);
                forSummaryTiles(*tiles, window, [&](const TileRef& ref) {
                    auto decoded = tile(ref, static_cast<int>(TileKind::IntervalSummary), conn);
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
                    cellCount += static_cast<std::size_t>(end - begin);
                    entryCount += to - from;
                    runs.push_back({std::move(decoded), static_cast<std::size_t>(begin - t.cells.begin()),
                                    static_cast<std::size_t>(end - t.cells.begin())});
                });
                slice.cells.reserve(cellCount);
                slice.entries.reserve(entryCount);
                for (const Run& run : runs) {
                    const auto& t = std::get<IntervalSummaryTile>(*run.tile);
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
        slice.instantLevel = chooseLevel(summary.instantLevel, TileKind::Instants, false);
        if (slice.instantLevel == 0) {
            if (const auto* tiles = idx.find(TileKind::Instants, 0)) {
                forExactTiles(*tiles, window.startNs, window.endNs, [&](const TileRef& ref) {
                    auto decoded = tile(ref, static_cast<int>(TileKind::Instants), conn);
                    for (const model::Instant& i : std::get<InstantTile>(*decoded).events) {
                        if (i.timeNs >= window.startNs && i.timeNs < window.endNs)
                            slice.instants.push_back(i);
                    }
                });
            }
        } else if (const auto* tiles = idx.find(TileKind::InstantSummary, slice.instantLevel)) {
            const TimeNs w = m_grid.bucketNs(slice.instantLevel);
            forSummaryTiles(*tiles, window, [&](const TileRef& ref) {
                auto decoded = tile(ref, static_cast<int>(TileKind::InstantSummary), conn);
                for (const InstantCell& c : std::get<InstantSummaryTile>(*decoded).cells) {
                    if (c.bucket * w < window.endNs && (c.bucket + 1) * w > window.startNs)
                        slice.instantCells.push_back(c);
                }
            });
        }
    }
    if (summary.counters > 0) {
        slice.counterLevel = chooseLevel(summary.counterLevel, TileKind::Counters, false);
        const TileKind kind = slice.counterLevel == 0 ? TileKind::Counters : TileKind::CounterSummary;
        if (const auto* tiles = idx.find(kind, slice.counterLevel)) {
            // Start one tile early for the value carried into the window.
            auto first = std::lower_bound(tiles->begin(), tiles->end(), window.startNs,
                                          [](const TileRef& r, TimeNs t) { return r.t1 < t; });
            if (first != tiles->begin())
                --first;
            for (auto it = first; it != tiles->end() && it->t0 < window.endNs; ++it) {
                auto decoded = tile(*it, static_cast<int>(kind), conn);
                if (kind == TileKind::Counters) {
                    for (const model::CounterSample& s : std::get<CounterTile>(*decoded).samples) {
                        if (s.timeNs >= window.endNs)
                            break;
                        if (s.timeNs < window.startNs)
                            slice.samples.assign(1, s);  // carried-in value so far
                        else
                            slice.samples.push_back(s);
                    }
                } else {
                    const TimeNs w = m_grid.bucketNs(slice.counterLevel);
                    for (const CounterCell& c : std::get<CounterSummaryTile>(*decoded).cells) {
                        if (c.bucket * w >= window.endNs)
                            break;
                        if ((c.bucket + 1) * w <= window.startNs)
                            slice.counterCells.assign(1, c);
                        else
                            slice.counterCells.push_back(c);
                    }
                }
            }
        }
    }
    if (summary.flows > 0 && slice.intervalLevel == 0) {
        if (const auto* tiles = idx.find(TileKind::Flows, 0)) {
            forExactTiles(*tiles, window.startNs, window.endNs, [&](const TileRef& ref) {
                auto decoded = tile(ref, static_cast<int>(TileKind::Flows), conn);
                for (const model::Flow& f : std::get<FlowTile>(*decoded).flows) {
                    if (f.fromNs >= window.startNs && f.fromNs < window.endNs)
                        slice.flows.push_back(f);
                }
            });
        }
    }
    if (summary.samples > 0) {
        if (const auto* tiles = idx.find(TileKind::Samples, 0)) {
            forExactTiles(*tiles, window.startNs, window.endNs, [&](const TileRef& ref) {
                auto decoded = tile(ref, static_cast<int>(TileKind::Samples), conn);
                for (const model::StackSample& s : std::get<SampleTile>(*decoded).samples) {
                    if (s.timeNs >= window.startNs && s.timeNs < window.endNs)
                        slice.stackSamples.push_back(s);
                }
            });
        }
    }
}

std::vector<TrackSlice> StoreReader::query(const ViewportQuery& q)
{
    if (q.endNs <= q.startNs || q.pixelWidth <= 0)
        throw std::invalid_argument("StoreReader::query: empty window or no pixels");
    std::lock_guard lock(m_mutex);
    const double nsPerPx = static_cast<double>(q.endNs - q.startNs) / q.pixelWidth;
    std::vector<TrackSlice> out(q.tracks.size());
    for (std::size_t i = 0; i < q.tracks.size(); ++i) {
        out[i].track = q.tracks[i];
        index(q.tracks[i]);  // indexes load here, on the main connection, before any split
    }
    auto fill = [&](std::size_t first, std::size_t last, Connection& conn) {
        for (std::size_t i = first; i < last; ++i)
            fillSlice(out[i], {q.startNs, q.endNs}, nsPerPx, q.pixelWidth, conn);
    };
    // Many tracks: the second half on a second connection and core (the machine has
    // two). Interleaved halves would balance better but cost cache locality per track.
    constexpr std::size_t kSplitFrom = 8;
    if (q.tracks.size() < kSplitFrom) {
        fill(0, out.size(), *m_connections[0]);
        return out;
    }
    if (!m_connections[1])
        m_connections[1] = std::make_unique<Connection>(m_path);
    const std::size_t half = out.size() / 2;
    std::exception_ptr secondError;
    std::thread second([&] {
        try {
            fill(half, out.size(), *m_connections[1]);
        } catch (...) {
            secondError = std::current_exception();
        }
    });
    std::exception_ptr firstError;
    try {
        fill(0, half, *m_connections[0]);
    } catch (...) {
        firstError = std::current_exception();
    }
    second.join();
    if (firstError)
        std::rethrow_exception(firstError);
    if (secondError)
        std::rethrow_exception(secondError);
    return out;
}

std::size_t StoreReader::cacheBytes() const
{
    std::lock_guard lock(m_cacheMutex);
    return m_cache.bytes();
}

std::size_t StoreReader::cacheBudget() const
{
    return m_cache.budget();
}

} // namespace strata::storage
