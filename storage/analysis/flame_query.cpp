#include "storage/analysis/flame_query.h"

#include <algorithm>
#include <unordered_map>

namespace strata::storage {

using model::TimeNs;
using model::TimeRange;

namespace {

/// Sums pyramid entries per path before they enter the tree (one addPathWeight per path).
class PathWeights
{
public:
    void add(const model::StackTable& paths, const FlameBucket& bucket)
    {
        if (m_weight.size() < paths.size()) {
            m_weight.resize(paths.size(), 0);
            m_seen.resize(paths.size(), 0);
        }
        m_samples += bucket.samples;
        for (const FlameEntry& e : bucket.entries) {
            const std::size_t path = e.path < paths.size() ? e.path : 0;  // unknown: the root
            if (!m_seen[path]) {
                m_seen[path] = 1;
                m_touched.push_back(path);
            }
            m_weight[path] += e.weight;
        }
    }

    void flush(const model::StackTable& paths, std::vector<model::FlameNodeId>& memo,
               model::FlameTreeBuilder& builder)
    {
        for (std::size_t path : m_touched) {
            builder.addPathWeight(paths, memo, static_cast<model::StackId>(path), m_weight[path]);
            m_weight[path] = 0;
            m_seen[path] = 0;
        }
        m_touched.clear();
        builder.addSampleCount(m_samples);
        m_samples = 0;
    }

private:
    std::vector<std::int64_t> m_weight;
    std::vector<char> m_seen;
    std::vector<std::size_t> m_touched;
    std::int64_t m_samples = 0;
};

std::string sampleUnit(const StoreReader& reader, model::TrackId track)
{
    const std::string& unit = reader.resources().track(track).unit;
    return unit.empty() ? "samples" : unit;
}

std::vector<model::TrackId> requestedTracks(const StoreReader& reader, const FlameRequest& request)
{
    if (!request.tracks.empty())
        return request.tracks;
    std::vector<model::TrackId> all(reader.resources().size());
    for (std::size_t i = 0; i < all.size(); ++i)
        all[i] = static_cast<model::TrackId>(i);
    return all;
}

/// Events of `track` in `window` if they were spread evenly over the track's span.
double eventsInWindow(const StoreReader& reader, model::TrackId track, TimeRange window)
{
    const TrackSummary& s = reader.summary(track);
    const auto events = static_cast<double>(s.samples > 0 ? s.samples : s.intervals);
    const TimeNs overlap = std::min(window.endNs, s.lastNs + 1) - std::max(window.startNs, s.firstNs);
    return overlap <= 0 ? 0 : events * static_cast<double>(overlap) / static_cast<double>(s.lastNs + 1 - s.firstNs);
}

} // namespace

std::vector<model::TrackId> flameSourceTracks(const StoreReader& reader, const FlameRequest& request)
{
    const std::vector<model::TrackId> tracks = requestedTracks(reader, request);
    std::vector<model::TrackId> out;
    std::string unit;
    for (model::TrackId t : tracks) {
        if (reader.summary(t).samples == 0)
            continue;
        if (out.empty())
            unit = sampleUnit(reader, t);
        if (sampleUnit(reader, t) == unit)
            out.push_back(t);
    }
    if (!out.empty())
        return out;
    for (model::TrackId t : tracks) {
        if (reader.summary(t).intervals > 0)
            out.push_back(t);
    }
    return out;
}

std::vector<model::TrackId> sameTracksIn(
    const StoreReader& from, const std::vector<model::TrackId>& tracks, const StoreReader& to)
{
    if (tracks.empty())
        return {};
    std::unordered_map<std::string, model::TrackId> byPath;
    for (model::TrackId t = 0; t < to.resources().size(); ++t)
        byPath.emplace(to.resources().path(t), t);
    std::vector<model::TrackId> out;
    for (model::TrackId t : tracks) {
        if (const auto it = byPath.find(from.resources().path(t)); it != byPath.end())
            out.push_back(it->second);
    }
    return out;
}

FlameWindowPlan planFlameWindow(const model::LodGrid& grid, FlameLevelRange levels, TimeRange window)
{
    FlameWindowPlan plan;
    bool split = false;
    TimeNs a = 0, b = 0;  // the whole buckets taken so far: [a, b)
    for (int level = levels.coarsest; level >= levels.finest; --level) {
        const TimeNs w = grid.bucketNs(level);
        const TimeNs lo = -model::floorDiv(-window.startNs, w) * w;  // first border at or after start
        const TimeNs hi = model::floorDiv(window.endNs, w) * w;  // last border at or before end
        if (!split) {
            if (lo < hi) {
                plan.runs.push_back({level, lo / w, hi / w});
                a = lo;
                b = hi;
                split = true;
            }
            continue;
        }
        if (lo < a) {
            plan.runs.push_back({level, lo / w, a / w});
            a = lo;
        }
        if (hi > b) {
            plan.runs.push_back({level, b / w, hi / w});
            b = hi;
        }
    }
    if (!split) {
        plan.exact.push_back(window);
        return plan;
    }
    if (window.startNs < a)
        plan.exact.push_back({window.startNs, a});
    if (b < window.endNs)
        plan.exact.push_back({b, window.endNs});
    return plan;
}

model::FlameTree buildFlameTree(StoreReader& reader, const FlameRequest& request)
{
    TimeRange window{request.startNs, request.endNs};
    if (window.startNs == window.endNs)
        window = {reader.span().startNs, reader.span().endNs + 1};  // include the last sample
    model::FlameTreeBuilder builder(reader.strings(), reader.stacks());
    const std::vector<model::TrackId> tracks = flameSourceTracks(reader, request);
    const bool samples = !tracks.empty() && reader.summary(tracks.front()).samples > 0;
    PathWeights weights;
    std::vector<model::FlameNodeId> stackMemo;
    for (model::TrackId t : tracks) {
        const bool worthIt = request.usePyramid
            && eventsInWindow(reader, t, window) >= static_cast<double>(request.exactBelowEvents);
        const std::optional<FlameLevelRange> levels = worthIt ? reader.flameLevels(t) : std::nullopt;
        const FlameWindowPlan plan = levels ? planFlameWindow(reader.grid(), *levels, window)
                                            : FlameWindowPlan{{}, {window}};
        // Exact parts and, for intervals, the events too long for each run's buckets
        // (bands >= min(level, L), flame_summarizer.h), clipped to the run.
        for (const TimeRange& range : plan.exact) {
            if (samples) {
                for (const model::StackSample& s : reader.stackSamples(t, range.startNs, range.endNs))
                    builder.addSample(s);
            } else {
                builder.addTrackIntervals(reader.intervals(t, range.startNs, range.endNs),
                                          range.startNs, range.endNs);
            }
        }
        if (plan.runs.empty())
            continue;
        const model::StackTable paths = samples ? model::StackTable() : reader.flamePaths(t);
        for (const FlameRun& run : plan.runs) {
            for (const FlameBucket& bucket : reader.flameBuckets(t, run.level, run.firstBucket, run.endBucket))
                weights.add(samples ? reader.stacks() : paths, bucket);
            if (!samples) {
                const TimeNs w = reader.grid().bucketNs(run.level);
                const int fromBand = std::min(run.level, reader.grid().levels);
                builder.addTrackIntervals(
                    reader.intervals(t, run.firstBucket * w, run.endBucket * w, fromBand),
                    run.firstBucket * w, run.endBucket * w);
            }
        }
        if (!samples) {
            std::vector<model::FlameNodeId> memo;  // interval paths are per track
            weights.flush(paths, memo, builder);
        }
    }
    weights.flush(reader.stacks(), stackMemo, builder);
    builder.tree().unit = samples ? sampleUnit(reader, tracks.front()) : "ns";
    return builder.take(request.order);
}

} // namespace strata::storage
