#include "storage/store/track_pieces.h"

#include "storage/store/exact_cutter.h"
#include "storage/store/flame_codec.h"
#include "storage/store/flow_cutter.h"
#include "storage/store/interval_tiler.h"
#include "storage/store/interval_windows.h"
#include "storage/store/point_tiler.h"
#include "storage/store/sample_flame_summarizer.h"
#include "storage/store/spill_file.h"

#include <algorithm>
#include <future>
#include <map>
#include <memory>
#include <optional>

namespace strata::storage {

namespace {

/// Gives `take` the track's events: its spilled segments, then what is held.
void forEachPart(const SpillFile& spill, model::TrackId track, StoreBuilder::TrackBuffer& held,
    const std::function<void(StoreBuilder::TrackBuffer&)>& take)
{
    spill.forEachSegment(track, take);
    take(held);
}

/// Calls `take(timeNs, bytes)` for each interval (its start), instant, counter sample, flow
/// (its start) and stack sample of `part`, with what it takes in memory.
template<typename Take>
void forEachTimedEvent(const StoreBuilder::TrackBuffer& part, Take take)
{
    for (std::size_t i = 0; i < part.intervals.size(); ++i)
        take(part.intervals[i].startNs, sizeof(model::Interval) + part.intervalArgs.at(i).size());
    for (std::size_t i = 0; i < part.instants.size(); ++i)
        take(part.instants[i].timeNs, sizeof(model::Instant) + part.instantArgs.at(i).size());
    for (const model::CounterSample& sample : part.counters)
        take(sample.timeNs, sizeof(model::CounterSample));
    for (const model::Flow& flow : part.flows)
        take(flow.fromNs, sizeof(model::Flow));
    for (const model::StackSample& sample : part.samples)
        take(sample.timeNs, sizeof(model::StackSample));
}

/// A piece's stack samples in time order (stably: the pieces in turn are the track's
/// samples sorted, as a track held whole sorts them).
void sortSamples(StoreBuilder::TrackBuffer& piece)
{
    std::stable_sort(piece.samples.begin(), piece.samples.end(),
        [](const model::StackSample& a, const model::StackSample& b) {
            return a.timeNs < b.timeNs;
        });
}

struct PiecePlan
{
    std::vector<std::int64_t> starts;  ///< the first window of each piece
    std::optional<model::TimeRange> intervalSpan;  ///< first start, last end
};

/// Windows taken in time order, a piece closed once it holds `pieceBytes`.
PiecePlan planPieces(const SpillFile& spill, model::TrackId track, StoreBuilder::TrackBuffer& held,
    const model::LodGrid& grid, std::size_t pieceBytes)
{
    std::map<std::int64_t, std::uint64_t> bytesByWindow;
    PiecePlan plan;
    forEachPart(spill, track, held, [&](StoreBuilder::TrackBuffer& part) {
        forEachTimedEvent(part, [&](model::TimeNs ns, std::size_t bytes) {
            bytesByWindow[windowOf(grid, ns)] += bytes;
        });
        for (const model::Interval& e : part.intervals) {
            if (!plan.intervalSpan)
                plan.intervalSpan = model::TimeRange { e.startNs, e.endNs };
            plan.intervalSpan->startNs = std::min(plan.intervalSpan->startNs, e.startNs);
            plan.intervalSpan->endNs = std::max(plan.intervalSpan->endNs, e.endNs);
        }
    });
    std::vector<std::int64_t>& starts = plan.starts;
    std::uint64_t filled = 0;
    for (const auto& [window, bytes] : bytesByWindow) {
        if (starts.empty() || filled >= pieceBytes) {
            starts.push_back(window);
            filled = 0;
        }
        filled += bytes;
    }
    return plan;
}

/// The flame pyramid of a track's stack samples, from its pieces read twice more
/// (sample_flame_summarizer.h), into `out` as encodeFlame() puts a pyramid: a level's
/// buckets after the finer level's.
template<typename EachPiece>
void tileSampleFlame(
    const EachPiece& eachPiece, SampleFlameSummarizer& summarizer, int zstdLevel, TrackTiles& out)
{
    eachPiece([&](StoreBuilder::TrackBuffer& piece, std::size_t) {
        sortSamples(piece);
        summarizer.measure(piece.samples);
    });
    const FlameStoredLevels stored = summarizer.levels();
    if (stored.empty())
        return;
    std::vector<std::vector<FlameRow>> rows(static_cast<std::size_t>(stored.coarsest + 1));
    const FlameBucketSink sink = [&](int level, const std::vector<FlameBucket>& buckets) {
        for (const FlameBucket& b : buckets)
            rows[static_cast<std::size_t>(level)].push_back(
                { level, b.bucket, out.payloads.add(encodeFlameBucket(b, zstdLevel)) });
    };
    eachPiece([&](StoreBuilder::TrackBuffer& piece, std::size_t) {
        sortSamples(piece);
        summarizer.build(piece.samples, sink);
    });
    summarizer.finish(sink);
    out.flame.finestLevel = stored.finest;
    out.flame.coarsestLevel = stored.coarsest;
    for (const std::vector<FlameRow>& level : rows)
        out.flame.rows.insert(out.flame.rows.end(), level.begin(), level.end());
}

}  // namespace

TrackTiles tileTrackInPieces(const SpillFile& spill, model::TrackId track,
    StoreBuilder::TrackBuffer& held, const std::function<void(StoreBuilder::TrackBuffer&)>& prepare,
    const model::LodGrid& grid, int zstdLevel, const FlameSummaryOptions& flame,
    PayloadSpool payloads, std::size_t pieceBytes)
{
    const PiecePlan plan = planPieces(spill, track, held, grid, pieceBytes);
    const std::vector<std::int64_t>& starts = plan.starts;

    // Cut the events into pieces, written to a spill file of their own (a piece a "track"
    // of it) whenever those held pass one piece.
    SpillFile pieces(spill.path().string() + ".pieces." + std::to_string(track));
    std::vector<StoreBuilder::TrackBuffer> cut(starts.size());
    std::size_t cutBytes = 0;
    std::int64_t intervals = 0;
    std::int64_t instants = 0;
    std::int64_t counters = 0;
    std::int64_t samples = 0;
    auto pieceOf = [&](model::TimeNs ns) -> StoreBuilder::TrackBuffer& {
        const auto after = std::upper_bound(starts.begin(), starts.end(), windowOf(grid, ns));
        return cut[static_cast<std::size_t>(after - starts.begin() - 1)];
    };
    auto spillPieces = [&] {
        for (std::size_t p = 0; p < cut.size(); ++p) {
            if (bufferedBytes(cut[p]) > 0)
                pieces.spill(static_cast<model::TrackId>(p), cut[p]);
        }
        cutBytes = 0;
    };
    forEachPart(spill, track, held, [&](StoreBuilder::TrackBuffer& part) {
        forEachTimedEvent(part, [&](model::TimeNs, std::size_t bytes) { cutBytes += bytes; });
        for (std::size_t i = 0; i < part.intervals.size(); ++i) {
            StoreBuilder::TrackBuffer& piece = pieceOf(part.intervals[i].startNs);
            piece.intervals.push_back(part.intervals[i]);
            appendArgs(piece.intervalArgs, piece.intervals.size() - 1, part.intervalArgs.at(i));
        }
        for (std::size_t i = 0; i < part.instants.size(); ++i) {
            StoreBuilder::TrackBuffer& piece = pieceOf(part.instants[i].timeNs);
            piece.instants.push_back(part.instants[i]);
            appendArgs(piece.instantArgs, piece.instants.size() - 1, part.instantArgs.at(i));
        }
        for (const model::CounterSample& sample : part.counters)
            pieceOf(sample.timeNs).counters.push_back(sample);
        for (const model::Flow& flow : part.flows)
            pieceOf(flow.fromNs).flows.push_back(flow);
        for (const model::StackSample& sample : part.samples)
            pieceOf(sample.timeNs).samples.push_back(sample);
        intervals += static_cast<std::int64_t>(part.intervals.size());
        instants += static_cast<std::int64_t>(part.instants.size());
        counters += static_cast<std::int64_t>(part.counters.size());
        samples += static_cast<std::int64_t>(part.samples.size());
        release(part.intervals);
        release(part.intervalArgs);
        release(part.instants);
        release(part.instantArgs);
        release(part.counters);
        release(part.flows);
        release(part.samples);
        if (cutBytes > pieceBytes)
            spillPieces();
    });
    spillPieces();

    TrackTiles out;
    out.payloads = std::move(payloads);
    bool any = false;
    // A track with samples gets the pyramid of its samples.
    IntervalTiler tiler(grid, zstdLevel, flame, samples == 0, intervals, out, plan.intervalSpan);
    InstantTiler instantTiler(grid, zstdLevel, instants, out);
    CounterTiler counterTiler(grid, zstdLevel, counters, out);
    FlowCutter flowCutter(zstdLevel, out.payloads);
    // Sample tiles after the flows', as tileFlowsAndSamples() orders them.
    std::vector<TileRow> sampleRows;
    ExactCutter<SampleTile> sampleCutter(TileKind::Samples, 0, zstdLevel, out.payloads, sampleRows);
    SampleFlameSummarizer sampleFlame(grid, flame, samples);
    // The next piece is read (and decompressed) on another thread while this one is
    // tiled: a piece more in memory, for the core a lone long track leaves idle.
    auto load = [&](std::size_t p) {
        auto piece = std::make_unique<StoreBuilder::TrackBuffer>();
        pieces.reload(static_cast<model::TrackId>(p), *piece);
        prepare(*piece);
        return piece;
    };
    auto eachPiece = [&](const std::function<void(StoreBuilder::TrackBuffer&, std::size_t)>& take) {
        std::future<std::unique_ptr<StoreBuilder::TrackBuffer>> next =
            std::async(std::launch::async, load, 0);
        for (std::size_t p = 0; p < starts.size(); ++p) {
            std::unique_ptr<StoreBuilder::TrackBuffer> piece = next.get();
            if (p + 1 < starts.size())
                next = std::async(std::launch::async, load, p + 1);
            take(*piece, p);
        }
    };
    eachPiece([&](StoreBuilder::TrackBuffer& piece, std::size_t) {
        widenTrackSpan(piece, out.stats, any);
        tiler.cut(piece.intervals, piece.intervalArgs);
        instantTiler.add(piece.instants, piece.instantArgs);
        counterTiler.add(piece.counters);
        flowCutter.add(piece.flows);
        sortSamples(piece);
        for (const model::StackSample& sample : piece.samples)
            sampleCutter.add(sample.timeNs, sample.timeNs,
                [&sample](SampleTile& tile) { tile.samples.push_back(sample); });
        if (sampleFlame.wanted())
            sampleFlame.count(piece.samples);
    });
    tiler.decideLevels();
    if (intervals > 0) {  // the pieces read again for their intervals alone
        eachPiece([&](StoreBuilder::TrackBuffer& piece, std::size_t p) {
            const std::int64_t end = p + 1 < starts.size() ? starts[p + 1] : WindowRange::all().end;
            tiler.summarize(piece.intervals, { starts[p], end });
        });
    }
    tiler.finish();
    if (instants > 0)
        instantTiler.finish();
    if (counters > 0)
        counterTiler.finish();
    flowCutter.finish(out);
    sampleCutter.finish();
    out.tiles.insert(out.tiles.end(), sampleRows.begin(), sampleRows.end());
    out.stats.samples = samples;
    if (sampleFlame.wanted())
        tileSampleFlame(eachPiece, sampleFlame, zstdLevel, out);
    return out;
}

}  // namespace strata::storage
