#include "storage/flame_query.h"

#include <unordered_map>

namespace strata::storage {

namespace {

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

model::FlameTree buildFlameTree(StoreReader& reader, const FlameRequest& request)
{
    model::TimeNs startNs = request.startNs;
    model::TimeNs endNs = request.endNs;
    if (startNs == endNs) {
        startNs = reader.span().startNs;
        endNs = reader.span().endNs + 1;  // the span's end is the last sample's time: include it
    }
    model::FlameTreeBuilder builder(reader.strings(), reader.stacks());
    const std::vector<model::TrackId> tracks = flameSourceTracks(reader, request);
    const bool samples = !tracks.empty() && reader.summary(tracks.front()).samples > 0;
    for (model::TrackId t : tracks) {
        if (samples) {
            for (const model::StackSample& s : reader.stackSamples(t, startNs, endNs))
                builder.addSample(s);
        } else {
            builder.addTrackIntervals(reader.intervals(t, startNs, endNs), startNs, endNs);
        }
    }
    builder.tree().unit = samples ? sampleUnit(reader, tracks.front()) : "ns";
    return builder.take(request.order);
}

} // namespace strata::storage
