#pragma once
// Builds the flame graph's call tree (model/flame_tree.h) for a set of tracks and a time
// window of a store.
//
// Source, decided per request:
//   - stack samples when any requested track has some: the samples of those tracks with
//     startNs <= time < endNs, each counted with its weight. Only tracks whose unit equals
//     the first sample track's unit take part (cycles and instructions samples of one perf
//     file never add up); the tree's unit is that unit ("samples" when tracks have none);
//   - otherwise interval nesting: every interval overlapping the window, its time clipped
//     to the window, attributed to the path of enclosing intervals (unit "ns").
// Cost: reads every sample or interval of the window (exact tiles); for the windows a
// flame graph is asked for (a selection, a few million events) that is well under a
// second. TODO(#7): per-bucket pre-aggregated trees for windows of 10^8 samples.

#include "model/flame_tree.h"
#include "storage/store_reader.h"

#include <vector>

namespace strata::storage {

struct FlameRequest
{
    std::vector<model::TrackId> tracks;  ///< empty: every track of the store
    model::TimeNs startNs = 0;  ///< startNs == endNs: the store's whole span
    model::TimeNs endNs = 0;
    model::FlameOrder order = model::FlameOrder::ByName;
};

/// The finished call tree of `request` (see the file comment).
model::FlameTree buildFlameTree(StoreReader& reader, const FlameRequest& request);

/// The tracks `request` reads: those holding samples of the chosen unit, or those holding
/// intervals (empty when neither).
std::vector<model::TrackId> flameSourceTracks(const StoreReader& reader, const FlameRequest& request);

/// `tracks` of `from` as tracks of `to`, matched by resource path ("rank 0/thread 3"), so
/// that a second store (a baseline run) is asked for the same tracks. Empty (every track)
/// when `tracks` is empty or when none of their paths exists in `to`.
std::vector<model::TrackId> sameTracksIn(
    const StoreReader& from, const std::vector<model::TrackId>& tracks, const StoreReader& to);

} // namespace strata::storage
