#include "storage/store/exact_cutter.h"
#include "storage/store/flame_codec.h"
#include "storage/store/flow_cutter.h"
#include "storage/store/interval_tiler.h"
#include "storage/store/level_summarizer.h"
#include "storage/store/point_tiler.h"
#include "storage/store/tile_codec.h"
#include "storage/store/track_buffer.h"

#include <algorithm>

namespace strata::storage {

namespace {

using model::TimeNs;

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

void tileIntervals(StoreBuilder::TrackBuffer& buf, const model::LodGrid& grid, int zstdLevel,
                   const FlameSummaryOptions& flame, TrackTiles& out)
{
    if (buf.intervals.empty())
        return;
    // A track with samples gets the pyramid of its samples.
    IntervalTiler tiler(grid, zstdLevel, flame, buf.samples.empty(),
        static_cast<std::int64_t>(buf.intervals.size()), out);
    tiler.cut(buf.intervals, buf.intervalArgs);
    tiler.decideLevels();
    tiler.summarize(buf.intervals, WindowRange::all());
    tiler.finish();
    release(buf.intervals);
}

void tileInstants(StoreBuilder::TrackBuffer& buf, const model::LodGrid& grid, int zstdLevel,
                  TrackTiles& out)
{
    if (buf.instants.empty())
        return;
    InstantTiler tiler(grid, zstdLevel, static_cast<std::int64_t>(buf.instants.size()), out);
    tiler.add(buf.instants, buf.instantArgs);
    tiler.finish();
}

void tileCounters(StoreBuilder::TrackBuffer& buf, const model::LodGrid& grid, int zstdLevel,
                  TrackTiles& out)
{
    if (buf.counters.empty())
        return;
    CounterTiler tiler(grid, zstdLevel, static_cast<std::int64_t>(buf.counters.size()), out);
    tiler.add(buf.counters);
    tiler.finish();
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
    tileFlowsAndSamples(buf, grid, zstdLevel, flame, out);
}

void tileFlowsAndSamples(StoreBuilder::TrackBuffer& buf, const model::LodGrid& grid, int zstdLevel,
    const FlameSummaryOptions& flame, TrackTiles& out)
{
    FlowCutter flows(zstdLevel, out.payloads);
    flows.add(buf.flows);
    release(buf.flows);
    flows.finish(out);
    tileSamples(buf, grid, zstdLevel, flame, out);
}

void tileSamples(StoreBuilder::TrackBuffer& buf, const model::LodGrid& grid, int zstdLevel,
    const FlameSummaryOptions& flame, TrackTiles& out)
{
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
