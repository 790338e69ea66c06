#pragma once
// FlameSummarizer computes the flame pyramid of one track: per summary level and bucket,
// the pre-aggregated call tree of what happened inside the bucket, so that a flame graph
// of a long window merges a few hundred stored trees instead of walking every event
// (flame_query.h). Pure LOD maths, no I/O, shared by the builder and by tests.
//
// A bucket's tree is a list of (path, weight) entries sorted by path, where a path is a
// node of a call tree stored parent-pointer style:
//   - stack samples: the path is the sample's stack id (the store's `stacks` table), the
//     weight the sum of the weights of the bucket's samples with that stack; the bucket
//     also counts its samples. Each sample lies in exactly one bucket.
//   - intervals: the path is the interval's call path (the names of its enclosing
//     intervals, then its own), interned per track in `paths`. What an interval I of path
//     p (parent path q) adds to bucket B is exactly what FlameTreeBuilder::addTrackIntervals
//     adds for the window B: +|I ∩ B| to p and, unless q is the root, -|I ∩ B| to q. A
//     zero-length interval adds 0 to p in the bucket holding its start. Entries add up:
//     a window made of whole buckets gets, node by node, the self weights the exact walk
//     gives (clipping is additive: |I ∩ [a, c)| = |I ∩ [a, b)| + |I ∩ [b, c)|).
//
// Levels follow model::LodGrid (bucketNs(k) = base * F^(k-1)), continued past
// grid.levels up to the first level where two buckets cover the track. Like the
// interval summaries, level k holds only the intervals shorter than bucketNs(min(k, L))
// (duration bands < min(k, L), L = grid.levels), which touch at most two buckets; longer
// ones are read exactly at query time (few: at least a bucket long each). Level k+1 is
// level k re-bucketed plus the band-k intervals, so building costs O(m log m) per level.
// Stored levels run from the finest one whose entries are at most a quarter of what went
// into them (samples, or interval pieces) and whose buckets stand for 32 of those on
// average (finer ones would cost about what the exact events cost) to the top.
//
// Interval paths are only window-independent when nesting is proper, so a track where
// an interval's enclosing interval does not contain it in time, or where an interval
// cuts short an enclosing interval that has not ended (overlapping siblings with
// explicit depths), gets no pyramid: its flame graphs keep the exact walk.

#include "model/events.h"
#include "model/lod_grid.h"
#include "model/stack_table.h"
#include "storage/store/interval_windows.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace strata::storage {

struct FlameEntry
{
    std::uint32_t path = 0;  ///< stack id (samples) or interval path id
    std::int64_t weight = 0;  ///< self weight (may be negative for interval paths)
    friend bool operator==(const FlameEntry&, const FlameEntry&) = default;
};

/// The pre-aggregated call tree of one bucket.
struct FlameBucket
{
    std::int64_t bucket = 0;
    std::int64_t samples = 0;  ///< stack samples in the bucket (0 for interval trees)
    std::vector<FlameEntry> entries;  ///< by path
    friend bool operator==(const FlameBucket&, const FlameBucket&) = default;
};

struct FlameLevel
{
    int level = 0;
    std::vector<FlameBucket> buckets;  ///< by bucket; empty buckets are left out
};

struct FlamePyramid
{
    bool fromIntervals = false;
    model::StackTable paths;  ///< interval call paths (parent, name); unused for samples
    std::vector<FlameLevel> levels;  ///< consecutive, finest first; empty: no pyramid
};

struct FlameSummaryOptions
{
    /// Tracks with fewer events get no pyramid (their exact walk is already fast).
    std::int64_t minEvents = 4096;
    /// Levels are stored from the first whose entries are at most 1 / minCompression of
    /// the samples or interval pieces that went into them, and whose buckets hold
    /// minEventsPerBucket of those on average (each stored bucket costs a row and a frame).
    std::int64_t minCompression = 4;
    std::int64_t minEventsPerBucket = 32;

    /// Whether a level of `buckets` buckets and `entries` entries, made of `raw` samples or
    /// interval pieces, is worth storing (the rule above).
    bool worthStoring(std::int64_t buckets, std::int64_t entries, std::int64_t raw) const
    {
        return buckets > 0 && entries * minCompression <= raw
            && buckets * minEventsPerBucket <= raw;
    }
    /// Whether `events` samples in `buckets` buckets could make a level worth storing: the
    /// first level a sample pyramid builds.
    bool fewEnoughBuckets(std::int64_t buckets, std::int64_t events) const
    {
        return buckets * std::max(minCompression, minEventsPerBucket) <= events;
    }
};

/// The pyramid of stack samples sorted by time.
FlamePyramid summarizeFlameSamples(const model::LodGrid& grid,
    std::span<const model::StackSample> sortedSamples, const FlameSummaryOptions& options = {});

/// Takes the buckets of one level of a pyramid in one window of time (interval_windows.h);
/// a level's buckets come in time order. Valid during the call only.
using FlameBucketSink = std::function<void(int level, const std::vector<FlameBucket>& buckets)>;

/// The levels a pyramid stores; finest > coarsest: none.
struct FlameStoredLevels
{
    int finest = 1;
    int coarsest = 0;
    bool empty() const { return finest > coarsest; }
};

/// The pyramid of a track's intervals, from pieces of it in time order (a track held
/// whole is one piece; track_pieces.h), in two passes: count() each piece (sorted by
/// (start, seq), with final depths), then levels(), then build() each piece again, then
/// finish(). The first pass walks the call paths (into `paths`) and counts what each level
/// would hold, to find the first level stored before building any; the second builds the
/// levels window by window (interval_windows.h) and hands them to the sink. Memory holds
/// one piece's walk, one window's buckets, and per level the last bucket of each path.
/// No levels when nesting is not proper (see the file comment), or for fewer than
/// options.minEvents intervals in all (`events`: the track's count). `span`: the track's
/// intervals' span (first start, last end), when known ahead of the last piece.
class IntervalFlameSummarizer
{
public:
    IntervalFlameSummarizer(const model::LodGrid& grid, const FlameSummaryOptions& options,
        model::StackTable& paths, std::int64_t events,
        std::optional<model::TimeRange> span = std::nullopt);
    ~IntervalFlameSummarizer();
    IntervalFlameSummarizer(const IntervalFlameSummarizer&) = delete;
    IntervalFlameSummarizer& operator=(const IntervalFlameSummarizer&) = delete;

    void count(std::span<const model::Interval> piece);
    /// The levels stored (none: build() and finish() do nothing).
    FlameStoredLevels levels();
    /// The windows of `range`: of the piece's intervals, and of those carried into them
    /// from the piece before.
    void build(
        std::span<const model::Interval> piece, WindowRange range, const FlameBucketSink& sink);
    /// The levels above the grid's coarsest, built from it.
    void finish(const FlameBucketSink& sink);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

/// IntervalFlameSummarizer of one piece: the whole track, sorted by (start, seq), with
/// its final depths.
FlameStoredLevels summarizeFlameIntervals(const model::LodGrid& grid,
    std::span<const model::Interval> sortedIntervals, const FlameSummaryOptions& options,
    model::StackTable& paths, const FlameBucketSink& sink);
/// The same, gathered into one pyramid.
FlamePyramid summarizeFlameIntervals(const model::LodGrid& grid,
    std::span<const model::Interval> sortedIntervals, const FlameSummaryOptions& options = {});

/// The coarsest level a flame pyramid may reach, whatever its span (before the bucket
/// width would overflow).
int flameLevelCap(const model::LodGrid& grid);
/// The coarsest level a flame pyramid goes to for a track spanning [firstNs, lastNs]:
/// the first where two buckets cover it (capped before the bucket width overflows).
int flameTopLevel(const model::LodGrid& grid, model::TimeNs firstNs, model::TimeNs lastNs);

}  // namespace strata::storage
