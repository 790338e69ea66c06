#pragma once
// ShardIds translates one shard's ids into its run's: a shard is an ordinary store with
// its own string, stack and track ids (shards are built independently, by threads,
// processes or MPI ranks), and the run's manifest keeps, per shard, where each of its
// strings and stacks went in the run's tables and where its tracks start (a shard's
// tracks are a contiguous range of the run's), and which run tracks its flows to tracks
// of other shards reach.

#include "model/events.h"
#include "storage/store/tile_cache.h"

#include <vector>

namespace strata::storage {

struct FlameBucket;

struct ShardIds
{
    model::TrackId firstTrack = 0;
    model::TrackId tracks = 0;  ///< the shard's own; local ids from here on are foreign
    std::vector<model::StringId> strings;  ///< [local string id] -> run string id
    std::vector<model::StackId> stacks;  ///< [local stack id] -> run stack id
    /// [foreign track] -> run track id: the tracks of other shards its flows reach
    /// (store_schema.h), resolved by the run's publish (run_manifest.h).
    std::vector<model::TrackId> foreignTracks;

    /// The run's id of a local string (kOtherNames, the "other names" mark, stays).
    /// Throws CorruptTile for an id the shard does not have.
    model::StringId string(model::StringId local) const;
    model::StackId stack(model::StackId local) const;
    /// The run's id of a flow's local `toTrack`: the shard's own tracks, then its foreign
    /// ones (kNoTrack stays).
    model::TrackId flowTarget(model::TrackId local) const;
    /// Rewrites every string, stack and track id a decoded tile holds.
    void apply(DecodedTile& tile) const;
    /// Rewrites the stack ids a sample track's flame bucket names (and keeps them sorted).
    void applyToSampleBucket(FlameBucket& bucket) const;
};

} // namespace strata::storage
