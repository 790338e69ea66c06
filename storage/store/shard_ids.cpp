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

void ShardIds::apply(DecodedTile& tile) const
{
    std::visit(
        [this](auto& t) {
            using T = std::decay_t<decltype(t)>;
            if constexpr (std::is_same_v<T, IntervalTile> || std::is_same_v<T, InstantTile>) {
                for (auto& e : t.events) {
                    e.name = string(e.name);
                    e.category = string(e.category);
                }
            } else if constexpr (std::is_same_v<T, FlowTile>) {
                for (model::Flow& f : t.flows) {
                    f.name = string(f.name);
                    f.toTrack += firstTrack;
                }
            } else if constexpr (std::is_same_v<T, SampleTile>) {
                for (model::StackSample& s : t.samples)
                    s.stack = stack(s.stack);
            } else if constexpr (std::is_same_v<T, IntervalSummaryTile>) {
                for (IntervalCell& c : t.cells)
                    c.longestName = string(c.longestName);
                for (Coverage& c : t.entries)
                    c.name = string(c.name);
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
