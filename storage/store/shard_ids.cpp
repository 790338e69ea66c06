#include "storage/store/shard_ids.h"

#include "storage/store/flame_summarizer.h"
#include "storage/store/byte_io.h"
#include "storage/store/tile_codec.h"

#include <algorithm>
#include <string>

namespace strata::storage {

model::StringId ShardIds::string(model::StringId local) const
{
    if (local == kOtherNames)
        return local;
    if (local >= strings.size())
        throw CorruptTile("string " + std::to_string(local) + " is not in the shard's table");
    return strings[local];
}

model::StackId ShardIds::stack(model::StackId local) const
{
    if (local >= stacks.size())
        throw CorruptTile("stack " + std::to_string(local) + " is not in the shard's table");
    return stacks[local];
}

model::TrackId ShardIds::flowTarget(model::TrackId local) const
{
    if (local == model::kNoTrack)
        return local;
    if (local < tracks)
        return local + firstTrack;
    if (local - tracks >= foreignTracks.size())
        throw CorruptTile(
            "flow to track " + std::to_string(local) + ", which the shard does not have");
    return foreignTracks[local - tracks];
}

void ShardIds::apply(DecodedTile& tile) const
{
    // string() for a tile's millions of names (a summary tile of the 1 B run holds ~3 k
    // entries): inline, its error out of line.
    const model::StringId* const table = strings.data();
    const std::size_t size = strings.size();
    auto run = [table, size, this](model::StringId local) {
        if (local < size) [[likely]]
            return table[local];
        return string(local);
    };
    std::visit(
        [this, &run](auto& t) {
            using T = std::decay_t<decltype(t)>;
            if constexpr (std::is_same_v<T, IntervalTile> || std::is_same_v<T, InstantTile>) {
                for (auto& e : t.events) {
                    e.name = run(e.name);
                    e.category = run(e.category);
                }
            } else if constexpr (std::is_same_v<T, FlowTile>) {
                for (model::Flow& f : t.flows) {
                    f.name = string(f.name);
                    f.toTrack = flowTarget(f.toTrack);
                }
            } else if constexpr (std::is_same_v<T, SampleTile>) {
                for (model::StackSample& s : t.samples)
                    s.stack = stack(s.stack);
            } else if constexpr (std::is_same_v<T, IntervalSummaryTile>) {
                for (IntervalCell& c : t.cells)
                    c.longestName = run(c.longestName);
                for (Coverage& c : t.entries)
                    c.name = run(c.name);
            } else if constexpr (std::is_same_v<T, InstantSummaryTile>) {
                for (InstantCell& c : t.cells)
                    c.firstName = string(c.firstName);
            }
        },
        tile);
}

void ShardIds::applyToSampleBucket(FlameBucket& bucket) const
{
    for (FlameEntry& e : bucket.entries)
        e.path = stack(e.path);
    std::sort(bucket.entries.begin(), bucket.entries.end(),
              [](const FlameEntry& a, const FlameEntry& b) { return a.path < b.path; });
}

} // namespace strata::storage
