#pragma once
// cutTrace streams part of a store into any TraceSink: a new store (StoreBuilder), Chrome
// JSON (ChromeJsonWriter) or Paraver (ParaverWriter). This is `strata cut`: a time window,
// a set of tracks and a filter expression make a sub-trace small enough to send.
//
// What is kept:
//   - tracks: those whose path ("node0/rank 1/python main") contains a match of the
//     `tracks` regex (ECMAScript, searched: anchor with ^/$), with all their ancestors so
//     the resource tree stays whole; names, kinds, sort keys and units as they were.
//     Ancestors kept only for the tree's sake contribute no events of their own.
//   - intervals overlapping the window that pass the filter, with name, category, depth,
//     role and args. The filter sees the interval as stored (its full duration).
//     An interval crossing a border of the window is cut at it, as Paraver's cutter
//     does with "break states" on, and marked in its args: "clipped":"start" (it began
//     before the window), "end" (it ended after it) or "both". Paraver output has no
//     args, so there the mark is lost (the cut is still visible as an interval ending at
//     the window's edge).
//   - instants in the window that pass the filter (for the filter they have no role and
//     a duration of 0), with their args.
//   - counter samples in the window, preceded by a sample at the window start holding
//     the value in effect there (the last sample before it), when there is one and no
//     sample falls exactly on the start. The filter does not apply to counters.
//   - flows whose both ends survive: source and target times inside the window, both
//     tracks kept (a flow without a target track needs only its source), and, with a
//     filter, each end covered by a kept interval of its track unless no interval of
//     that track covers it at all (a kernel launch dropped by the filter takes its
//     "ac2g" flow with it; a message between two tracks without intervals stays).
//   - stack samples in the window (their stacks re-interned in the sink).
//   - meta: every key but those a store computes itself (format, lod_*, span_*, events,
//     tool_version), plus cut_source, cut_window ("T0:T1", ns of the source store),
//     cut_tracks, cut_filter and cut_rebased. With `rebase`, every time is shifted by
//     -T0 and "origin_ns" (absolute time of time 0) by +T0, so absolute times are
//     unchanged.
// Tracks reach the sink a root's subtree at a time (in id order within one), so that a
// run of shards and a single store of one trace cut alike. Events reach the sink track
// by track, each kind in time order ((start, seq) for intervals, so equal starts keep
// their order); flows come last, once every track's intervals are known.
//
// Streaming: exact tiles are read one at a time through StoreReader::readTile (not the
// cache); at most one decoded tile per interval duration band is held while the bands
// are merged. Memory besides the sink: O(tracks + strings + stacks + bands x tile), plus
// with a filter the time the intervals of each track cover, as disjoint ranges (nested
// intervals merge: about one range per outermost interval).

#include "model/filter_expression.h"
#include "model/time_units.h"
#include "storage/store/progress.h"

#include <cstdint>
#include <optional>
#include <string>

namespace strata::storage {

class StoreReader;
class TraceSink;

struct CutOptions
{
    /// [T0, T1) in the store's time; default: everything (no clipping).
    std::optional<model::TimeRange> window;
    /// ECMAScript regex searched in each track's path; empty: every track.
    std::string tracks;
    std::optional<model::FilterExpression> filter;
    /// Shift times so that the window starts at 0 (the first event without a window).
    bool rebase = false;
    /// (events read, events on the kept tracks); returning false throws Cancelled.
    ProgressFn progress;
};

struct CutStats
{
    std::uint64_t tracks = 0;  ///< tracks created in the sink, ancestors included
    std::uint64_t intervals = 0;
    std::uint64_t instants = 0;
    std::uint64_t counterSamples = 0;  ///< carried-in samples at the window start included
    std::uint64_t flows = 0;
    std::uint64_t stackSamples = 0;
    std::uint64_t clippedAtStart = 0;  ///< intervals cut at the window start
    std::uint64_t clippedAtEnd = 0;  ///< intervals cut at the window end
    std::uint64_t filteredOut = 0;  ///< intervals and instants in the window the filter dropped
    std::uint64_t flowsDropped = 0;  ///< flows leaving the window or going to a dropped track
    model::TimeNs shiftNs = 0;  ///< subtracted from every time (T0 with rebase, else 0)

    std::uint64_t events() const
    {
        return intervals + instants + counterSamples + flows + stackSamples;
    }
};

/// Streams the selected part of `store` into `sink` (see the file comment). Does not call
/// the sink's finish(). Throws std::invalid_argument for a bad `tracks` regex or an empty
/// window, StoreError for a corrupted store, Cancelled when `progress` says stop.
CutStats cutTrace(StoreReader& store, TraceSink& sink, const CutOptions& options);

}  // namespace strata::storage
