#include "storage/export/trace_cut.h"

#include "model/json_text.h"
#include "storage/store/input_error.h"
#include "storage/store/store_reader.h"
#include "storage/store/trace_sink.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <regex>
#include <set>
#include <stdexcept>
#include <variant>
#include <vector>

namespace strata::storage {

using model::TimeNs;
using model::TimeRange;
using model::TrackId;
using TileRef = StoreReader::TileRef;

namespace {

/// Keys the sink computes itself; copying them would describe the source, not the cut.
const std::set<std::string, std::less<>> kStoreOwnedMeta = { "format", "format_version",
    "tool_version", "lod_base_bucket_ns", "lod_factor_log2", "lod_levels", "span_start_ns",
    "span_end_ns", "events" };

/// Exact tiles (sorted by t0) that may hold an event at or after lowNs and starting
/// before highNs: from the last tile starting at or before lowNs on, skipping tiles that
/// end before lowNs.
template<typename Fn>
void forTilesFrom(const std::vector<TileRef>& tiles, TimeNs lowNs, TimeNs highNs, Fn fn)
{
    auto it = std::upper_bound(
        tiles.begin(), tiles.end(), lowNs, [](TimeNs t, const TileRef& r) { return t < r.t0; });
    if (it != tiles.begin())
        --it;
    for (; it != tiles.end() && it->t0 < highNs; ++it) {
        if (it->t1 >= lowNs)
            fn(*it);
    }
}

/// Adds "clipped":WHERE to an interval's args (JSON object text, or anything else, which
/// is kept as "value").
std::string withClipMark(std::string_view args, std::string_view where)
{
    std::string mark = "\"clipped\":";
    model::appendJsonString(mark, where);
    std::size_t end = args.find_last_not_of(" \t\r\n");
    const std::size_t begin = args.find_first_not_of(" \t\r\n");
    if (begin == std::string_view::npos)
        return "{" + mark + "}";
    if (args[begin] != '{' || args[end] != '}')
        return "{\"value\":" + model::jsonString(args) + "," + mark + "}";
    const bool emptyObject = args.find_first_not_of(" \t\r\n", begin + 1) == end;
    return std::string(args.substr(0, end)) + (emptyObject ? "" : ",") + mark + "}";
}

/// The time covered by a set of intervals added in start order, as disjoint closed
/// ranges: with nesting, far fewer ranges than intervals.
class TimeCover
{
public:
    void add(TimeNs startNs, TimeNs endNs)
    {
        if (!m_ranges.empty() && startNs <= m_ranges.back().second)
            m_ranges.back().second = std::max(m_ranges.back().second, endNs);
        else
            m_ranges.emplace_back(startNs, endNs);
    }
    bool covers(TimeNs t) const
    {
        auto it = std::upper_bound(m_ranges.begin(), m_ranges.end(), t,
            [](TimeNs v, const std::pair<TimeNs, TimeNs>& r) { return v < r.first; });
        return it != m_ranges.begin() && t <= std::prev(it)->second;
    }

private:
    std::vector<std::pair<TimeNs, TimeNs>> m_ranges;
};

/// The intervals of one band of one track, a tile at a time, in (start, seq) order.
class BandCursor
{
public:
    BandCursor(StoreReader& store, TrackId track, std::vector<TileRef> tiles, std::size_t first,
        TimeRange window, std::uint64_t& eventsRead)
        : m_store(store)
        , m_track(track)
        , m_tiles(std::move(tiles))
        , m_next(first)
        , m_window(window)
        , m_eventsRead(eventsRead)
    {
        advanceTile();
    }
    bool done() const { return m_tile == nullptr; }
    const model::Interval& head() const { return m_tile->events[m_row]; }
    std::string_view headArgs() const { return m_tile->args.at(m_row); }
    void pop()
    {
        if (++m_row >= m_tile->events.size())
            advanceTile();
    }

private:
    void advanceTile()
    {
        m_tile = nullptr;
        while (m_next < m_tiles.size() && m_tiles[m_next].t0 < m_window.endNs) {
            const TileRef& ref = m_tiles[m_next++];
            if (ref.t1 < m_window.startNs)
                continue;
            m_decoded = m_store.readTile(m_track, ref, TileKind::Intervals);
            m_tile = &std::get<IntervalTile>(m_decoded);
            m_eventsRead += m_tile->events.size();
            m_row = 0;
            if (!m_tile->events.empty())
                return;
            m_tile = nullptr;
        }
    }

    StoreReader& m_store;
    TrackId m_track;
    std::vector<TileRef> m_tiles;
    std::size_t m_next;
    TimeRange m_window;
    std::uint64_t& m_eventsRead;
    DecodedTile m_decoded;
    const IntervalTile* m_tile = nullptr;
    std::size_t m_row = 0;
};

class TraceCutter
{
public:
    TraceCutter(StoreReader& store, TraceSink& sink, const CutOptions& options)
        : m_store(store)
        , m_sink(sink)
        , m_options(options)
        , m_filter(options.filter)
    {
        const TimeRange span = store.span();
        // Without a window, one that holds everything: nothing is clipped.
        m_window = options.window.value_or(TimeRange { span.startNs, span.endNs + 1 });
        if (m_window.empty())
            throw std::invalid_argument("cut: the window is empty");
        if (options.rebase)
            m_stats.shiftNs = options.window ? m_window.startNs : span.startNs;
        m_stringMap.assign(store.strings().size(), kUnmapped);
        if (m_filter) {
            m_allCover.resize(store.resources().size());
            m_keptCover.resize(store.resources().size());
        }
    }

    CutStats run()
    {
        selectTracks();
        copyMeta();
        for (const TrackId id : m_order) {
            if (!m_matched[id])
                continue;
            m_trackPath = m_store.resources().path(id);
            cutIntervals(id);
            cutInstants(id);
            cutCounters(id);
            cutStackSamples(id);
        }
        // Flows last: whether their target end survives needs the target's intervals.
        for (const TrackId id : m_order) {
            if (m_matched[id])
                cutFlows(id);
        }
        report();
        return m_stats;
    }

private:
    static constexpr model::StringId kUnmapped = std::numeric_limits<model::StringId>::max();

    model::StringId str(model::StringId id)
    {
        model::StringId& mapped = m_stringMap.at(id);
        if (mapped == kUnmapped)
            mapped = m_sink.intern(m_store.strings().text(id));
        return mapped;
    }
    TimeNs out(TimeNs t) const { return t - m_stats.shiftNs; }
    bool inWindow(TimeNs t) const { return t >= m_window.startNs && t < m_window.endNs; }

    void selectTracks()
    {
        const model::ResourceTree& tree = m_store.resources();
        std::optional<std::regex> pattern;
        if (!m_options.tracks.empty()) {
            try {
                pattern.emplace(m_options.tracks, std::regex::ECMAScript);
            } catch (const std::regex_error& e) {
                throw std::invalid_argument(
                    "bad track regular expression '" + m_options.tracks + "': " + e.what());
            }
        }
        m_matched.assign(tree.size(), false);
        std::vector<bool> keep(tree.size(), false);
        for (TrackId id = 0; id < tree.size(); ++id) {
            m_matched[id] = !pattern || std::regex_search(tree.path(id), *pattern);
            if (m_matched[id]) {
                m_eventsTotal += eventCount(id);
                for (TrackId t = id; t != model::kNoTrack && !keep[t]; t = tree.track(t).parent)
                    keep[t] = true;
            }
        }
        // Root by root (a resource subtree at a time), in id order within one: the order of
        // a run of shards (run_manifest.h), whose shards hold whole subtrees, and of a
        // single store of the same trace alike, however its importer interleaved the
        // subtrees' tracks (Paraver counter tracks come as their first sample does).
        std::vector<TrackId> rootOf(tree.size());
        m_order.resize(tree.size());
        for (TrackId id = 0; id < tree.size(); ++id) {  // parents have smaller ids
            const TrackId parent = tree.track(id).parent;
            rootOf[id] = parent == model::kNoTrack ? id : rootOf[parent];
            m_order[id] = id;
        }
        std::stable_sort(m_order.begin(), m_order.end(),
            [&](TrackId a, TrackId b) { return rootOf[a] < rootOf[b]; });
        m_newId.assign(tree.size(), model::kNoTrack);
        for (const TrackId id : m_order) {  // parents before their children
            if (!keep[id])
                continue;
            const model::TrackInfo& t = tree.track(id);
            const TrackId parent =
                t.parent == model::kNoTrack ? model::kNoTrack : m_newId[t.parent];
            m_newId[id] = m_sink.addTrack(parent, t.kind, t.name, t.sortKey, t.unit);
            ++m_stats.tracks;
        }
    }

    std::uint64_t eventCount(TrackId id) const
    {
        const TrackSummary& s = m_store.summary(id);
        return static_cast<std::uint64_t>(
            s.intervals + s.instants + s.counters + s.flows + s.samples);
    }

    void copyMeta()
    {
        for (const auto& [key, value] : m_store.allMeta()) {
            if (kStoreOwnedMeta.count(key))
                continue;
            if (key == "origin_ns" && m_stats.shiftNs != 0)
                m_sink.setMeta(key, std::to_string(std::stoll(value) + m_stats.shiftNs));
            else
                m_sink.setMeta(key, value);
        }
        // A source without an origin counts its time 0 as absolute 0.
        if (!m_store.meta("origin_ns") && m_stats.shiftNs != 0)
            m_sink.setMeta("origin_ns", std::to_string(m_stats.shiftNs));
        m_sink.setMeta("cut_source", m_store.path().string());
        m_sink.setMeta(
            "cut_window", std::to_string(m_window.startNs) + ":" + std::to_string(m_window.endNs));
        m_sink.setMeta("cut_tracks", m_options.tracks);
        m_sink.setMeta("cut_filter", m_filter ? m_filter->text() : std::string());
        m_sink.setMeta("cut_rebased", m_options.rebase ? "1" : "0");
    }

    bool passes(const model::FilterEvent& e) const { return !m_filter || m_filter->matches(e); }

    model::FilterEvent filterEvent(
        TrackId track, model::StringId name, model::StringId category) const
    {
        model::FilterEvent e;
        e.name = m_store.strings().text(name);
        e.category = m_store.strings().text(category);
        e.track = m_trackPath;
        e.nameKey = name;
        e.categoryKey = category;
        e.trackKey = track;
        return e;
    }

    void cutIntervals(TrackId track)
    {
        // One cursor per duration band, merged on (start, seq).
        std::vector<std::unique_ptr<BandCursor>> bands;  // pointers: a cursor points into itself
        const int levels = m_store.grid().levels;
        for (int band = 0; band <= levels; ++band) {
            const TimeNs maxDurationNs = m_store.bandMaxDurationNs(track, band);
            if (maxDurationNs < 0)
                continue;
            std::vector<TileRef> tiles = m_store.exactTiles(track, TileKind::Intervals, band);
            const TimeNs lowNs = m_window.startNs - maxDurationNs;
            auto it = std::upper_bound(tiles.begin(), tiles.end(), lowNs,
                [](TimeNs t, const TileRef& r) { return t < r.t0; });
            const auto first =
                static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, it - tiles.begin() - 1));
            bands.push_back(std::make_unique<BandCursor>(
                m_store, track, std::move(tiles), first, m_window, m_eventsRead));
            reportProgress();
        }
        const TrackId outTrack = m_newId[track];
        for (;;) {
            BandCursor* next = nullptr;
            for (const auto& b : bands) {
                if (b->done())
                    continue;
                if (!next || b->head().startNs < next->head().startNs
                    || (b->head().startNs == next->head().startNs
                        && b->head().seq < next->head().seq))
                    next = b.get();
            }
            if (!next || next->head().startNs >= m_window.endNs)
                break;
            model::Interval e = next->head();
            const std::string_view args = next->headArgs();
            // Overlap as the reader defines it: a zero-length interval must lie inside.
            const bool overlaps = e.startNs < m_window.endNs
                && (e.endNs > m_window.startNs
                    || (e.endNs == e.startNs && e.startNs >= m_window.startNs));
            if (overlaps) {
                model::FilterEvent fe = filterEvent(track, e.name, e.category);
                fe.role = e.role;
                fe.durationNs = e.durationNs();
                const bool kept = passes(fe);
                if (m_filter) {
                    m_allCover[track].add(e.startNs, e.endNs);
                    if (kept)
                        m_keptCover[track].add(e.startNs, e.endNs);
                }
                if (kept)
                    emitInterval(outTrack, e, args);
                else
                    ++m_stats.filteredOut;
            }
            next->pop();
            if (next->done())
                reportProgress();
        }
    }

    void emitInterval(TrackId outTrack, model::Interval e, std::string_view args)
    {
        const bool clipStart = e.startNs < m_window.startNs;
        const bool clipEnd = e.endNs > m_window.endNs;
        e.startNs = out(std::max(e.startNs, m_window.startNs));
        e.endNs = out(std::min(e.endNs, m_window.endNs));
        e.name = str(e.name);
        e.category = str(e.category);
        m_stats.clippedAtStart += clipStart ? 1 : 0;
        m_stats.clippedAtEnd += clipEnd ? 1 : 0;
        ++m_stats.intervals;
        if (clipStart || clipEnd)
            m_sink.addInterval(outTrack, e,
                withClipMark(args,
                    clipStart && clipEnd ? "both"
                        : clipStart      ? "start"
                                         : "end"));
        else
            m_sink.addInterval(outTrack, e, args);
    }

    /// Every exact tile of `kind` that may hold an event of the window, decoded in turn.
    template<typename Fn>
    void forWindowTiles(TrackId track, TileKind kind, TimeNs lowNs, Fn fn)
    {
        const std::vector<TileRef> tiles = m_store.exactTiles(track, kind);
        forTilesFrom(tiles, lowNs, m_window.endNs, [&](const TileRef& ref) {
            DecodedTile decoded = m_store.readTile(track, ref, kind);
            m_eventsRead += static_cast<std::uint64_t>(ref.n);
            fn(decoded);
            reportProgress();
        });
    }

    void cutInstants(TrackId track)
    {
        forWindowTiles(
            track, TileKind::Instants, m_window.startNs, [&](const DecodedTile& decoded) {
                const auto& tile = std::get<InstantTile>(decoded);
                for (std::size_t i = 0; i < tile.events.size(); ++i) {
                    model::Instant e = tile.events[i];
                    if (!inWindow(e.timeNs))
                        continue;
                    model::FilterEvent fe = filterEvent(track, e.name, e.category);
                    fe.durationNs = 0;
                    if (!passes(fe)) {
                        ++m_stats.filteredOut;
                        continue;
                    }
                    e.timeNs = out(e.timeNs);
                    e.name = str(e.name);
                    e.category = str(e.category);
                    m_sink.addInstant(m_newId[track], e, tile.args.at(i));
                    ++m_stats.instants;
                }
            });
    }

    void cutCounters(TrackId track)
    {
        std::optional<model::CounterSample> carried;  // the value in effect at the window start
        bool started = false;
        auto emit = [&](model::CounterSample s) {
            s.timeNs = out(s.timeNs);
            m_sink.addCounterSample(m_newId[track], s);
            ++m_stats.counterSamples;
        };
        auto start = [&](TimeNs firstNs) {
            if (!started && carried && firstNs > m_window.startNs)
                emit({ m_window.startNs, carried->value });
            started = true;
        };
        // Counter tiles: t0 = first sample, t1 = last; begin with the tile holding the
        // last sample before the window.
        const std::vector<TileRef> tiles = m_store.exactTiles(track, TileKind::Counters);
        auto first = std::lower_bound(tiles.begin(), tiles.end(), m_window.startNs,
            [](const TileRef& r, TimeNs t) { return r.t1 < t; });
        if (first != tiles.begin())
            --first;
        for (auto it = first; it != tiles.end() && it->t0 < m_window.endNs; ++it) {
            const DecodedTile decoded = m_store.readTile(track, *it, TileKind::Counters);
            m_eventsRead += static_cast<std::uint64_t>(it->n);
            for (const model::CounterSample& s : std::get<CounterTile>(decoded).samples) {
                if (s.timeNs >= m_window.endNs)
                    break;
                if (s.timeNs < m_window.startNs) {
                    carried = s;
                    continue;
                }
                start(s.timeNs);
                emit(s);
            }
            reportProgress();
        }
        start(m_window.endNs);  // no sample in the window: the carried value alone
    }

    /// With a filter, a flow's end survives unless the filter dropped every interval of
    /// its track that covers it (an end no interval covers survives).
    bool endSurvives(TrackId track, TimeNs t) const
    {
        return !m_filter || m_keptCover[track].covers(t) || !m_allCover[track].covers(t);
    }

    void cutFlows(TrackId track)
    {
        forWindowTiles(track, TileKind::Flows, m_window.startNs, [&](const DecodedTile& decoded) {
            for (model::Flow f : std::get<FlowTile>(decoded).flows) {
                if (!inWindow(f.fromNs))
                    continue;
                const bool targetKept = f.toTrack == model::kNoTrack
                    || (f.toTrack < m_matched.size() && m_matched[f.toTrack]);
                if (!targetKept || (f.toTrack != model::kNoTrack && !inWindow(f.toNs))
                    || !endSurvives(track, f.fromNs)
                    || (f.toTrack != model::kNoTrack && !endSurvives(f.toTrack, f.toNs))) {
                    ++m_stats.flowsDropped;
                    continue;
                }
                f.fromNs = out(f.fromNs);
                f.toNs = out(f.toNs);
                if (f.toTrack != model::kNoTrack)
                    f.toTrack = m_newId[f.toTrack];
                f.name = str(f.name);
                m_sink.addFlow(m_newId[track], f);
                ++m_stats.flows;
            }
        });
    }

    model::StackId stack(model::StackId id)
    {
        if (m_frames.empty()) {
            m_frames = m_store.stackFrames();
            m_stackMap.assign(m_frames.size(), 0);
            m_stackMapped.assign(m_frames.size(), false);
            m_stackMapped[0] = true;
        }
        if (id >= m_frames.size())
            throw StoreError(m_store.path().string() + ": corrupted store: sample of unknown stack "
                + std::to_string(id));
        if (!m_stackMapped[id]) {
            const model::StackId parent = stack(m_frames[id].first);  // parents have smaller ids
            m_stackMap[id] = m_sink.internStack(parent, str(m_frames[id].second));
            m_stackMapped[id] = true;
        }
        return m_stackMap[id];
    }

    void cutStackSamples(TrackId track)
    {
        forWindowTiles(track, TileKind::Samples, m_window.startNs, [&](const DecodedTile& decoded) {
            for (model::StackSample s : std::get<SampleTile>(decoded).samples) {
                if (!inWindow(s.timeNs))
                    continue;
                s.timeNs = out(s.timeNs);
                s.stack = stack(s.stack);
                m_sink.addStackSample(m_newId[track], s);
                ++m_stats.stackSamples;
            }
        });
    }

    void reportProgress()
    {
        if (m_options.progress
            && !m_options.progress(std::min(m_eventsRead, m_eventsTotal), m_eventsTotal))
            throw Cancelled();
    }
    void report()
    {
        if (m_options.progress && !m_options.progress(m_eventsTotal, m_eventsTotal))
            throw Cancelled();
    }

    StoreReader& m_store;
    TraceSink& m_sink;
    const CutOptions& m_options;
    std::optional<model::FilterExpression> m_filter;  // own copy: its memo is per string table
    TimeRange m_window;
    CutStats m_stats;
    std::vector<bool> m_matched;  ///< source track -> its events are kept
    std::vector<TrackId> m_order;  ///< the source tracks in the order they are cut
    std::vector<TrackId> m_newId;  ///< source track -> sink track (kNoTrack: dropped)
    std::vector<model::StringId> m_stringMap;
    std::vector<std::pair<model::StackId, model::StringId>> m_frames;
    std::vector<model::StackId> m_stackMap;
    std::vector<bool> m_stackMapped;
    std::string m_trackPath;
    std::vector<TimeCover> m_allCover;  ///< with a filter: per track, what its intervals cover
    std::vector<TimeCover> m_keptCover;  ///< ... and what the kept ones cover
    std::uint64_t m_eventsRead = 0;
    std::uint64_t m_eventsTotal = 0;
};

}  // namespace

CutStats cutTrace(StoreReader& store, TraceSink& sink, const CutOptions& options)
{
    TraceCutter cutter(store, sink, options);
    return cutter.run();
}

}  // namespace strata::storage
