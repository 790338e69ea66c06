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
//
// Cost: tracks with a flame pyramid (flame_summarizer.h) merge pre-aggregated bucket
// trees; the window is cut like a segment tree (planFlameWindow):
//
//     start                                                               end
//     |exact| finer whole buckets |  whole buckets of the coarsest level  | finer |exact|
//
// the coarsest stored level that has a whole bucket inside the window gives the middle,
// then each finer level adds its whole buckets on either side (at most F - 1 each), and
// what is left at both ends (less than one bucket of the finest stored level) is read
// exactly. Interval tracks also walk, per run of buckets, the intervals too long for
// that level's buckets (at least a bucket long each, so few), clipped to the run. A
// whole-run flame graph of 10^8 samples thus reads a few hundred stored trees and the
// events of two fine buckets. Tracks without a pyramid (older stores, small tracks,
// improper nesting) read every sample or interval of the window, and so does a track
// whose window holds few events (FlameRequest::exactBelowEvents).
//
// What the pyramid gives equals the exact walk: sample buckets partition samples by
// time, and interval buckets hold each interval's time clipped to the bucket exactly as
// the walk clips it to the window, attributed to the same call path (nesting is proper
// on tracks with a pyramid, so an interval's path does not depend on the window). Self
// and total of every node with nonzero weight are equal, integer for integer, and so is
// sampleCount. Only nodes of zero weight can differ: a zero-length interval (or one that
// only touches the window) makes a node of weight 0, which the pyramid may lack or place
// elsewhere.

#include "model/flame_tree.h"
#include "storage/store/store_reader.h"

#include <vector>

namespace strata::storage {

struct FlameRequest
{
    std::vector<model::TrackId> tracks;  ///< empty: every track of the store
    model::TimeNs startNs = 0;  ///< startNs == endNs: the store's whole span
    model::TimeNs endNs = 0;
    model::FlameOrder order = model::FlameOrder::ByName;
    bool usePyramid = true;  ///< false: walk every event (benchmarks, tests)
    /// A track whose window holds fewer events than this (estimated from its event count
    /// and span) is walked exactly: merging buckets would cost more.
    std::int64_t exactBelowEvents = 16384;
};

/// A run of whole buckets of one flame pyramid level: buckets [firstBucket, endBucket).
struct FlameRun
{
    int level = 0;
    std::int64_t firstBucket = 0;
    std::int64_t endBucket = 0;
};

/// How a window splits over a track's flame pyramid: runs of whole buckets (coarsest
/// first) and the ranges read exactly; together they tile the window.
struct FlameWindowPlan
{
    std::vector<FlameRun> runs;
    std::vector<model::TimeRange> exact;
};

FlameWindowPlan planFlameWindow(const model::LodGrid& grid, FlameLevelRange levels,
                                model::TimeRange window);

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
