#pragma once
// LevelSummarizer computes the summary levels of one track from its exact events: the
// pure LOD maths of the store, with no I/O, shared by the builder and by tests.
//
// Intervals: level 1 aggregates the intervals shorter than bucketNs(1) (band 0); level
// k+1 merges F cells of level k and adds the band-k intervals, which are shorter than
// bucketNs(k+1). Each step is exact (coverage adds up), so every level equals what a
// direct computation from the raw events gives. Each level is built from a flat list
// of contributions (one per cell entry below, one per interval and bucket it touches),
// sorted and reduced: O(m log m) time, about 48 bytes a contribution, no hash maps.
//
// Counters: each level is computed from "pieces" (samples at level 1, the cells of the
// level below above it), filling the gaps between pieces with the value in effect, so
// mean/min/max are exact for the step function the samples describe.
//
// Instants: counts and the first instant per bucket, merged upward.

#include "model/lod_grid.h"
#include "storage/store/tiles.h"

#include <span>
#include <vector>

namespace strata::storage {

struct CounterPiece
{
    CounterCell cell;
    model::TimeNs startNs = 0;  ///< the part of the bucket the cell describes
    model::TimeNs endNs = 0;
    double integral = 0;  ///< value x ns over [startNs, endNs)
};

/// Levels 1..grid.levels of intervals sorted by (start, seq). Element k-1 is level k,
/// with every name of every cell (entries sorted by decreasing coverage, then name and
/// role); the store keeps the top few (truncatedTile).
std::vector<IntervalSummaryTile> summarizeIntervals(const model::LodGrid& grid,
                                                    std::span<const model::Interval> sortedIntervals);
/// The same from intervals already grouped by duration band: band b is
/// byBand[bandStarts[b], bandStarts[b + 1]), each in (start, seq) order. No copy made.
std::vector<IntervalSummaryTile> summarizeIntervals(const model::LodGrid& grid,
                                                    std::span<const model::Interval> byBand,
                                                    std::span<const std::size_t> bandStarts);

/// Groups intervals sorted by (start, seq) by duration band, keeping that order within
/// each band; returns the band starts (grid.levels + 2 offsets).
std::vector<std::size_t> groupByBand(const model::LodGrid& grid, std::vector<model::Interval>& intervals);

/// Levels 1..grid.levels of counter samples sorted by time.
std::vector<std::vector<CounterPiece>> summarizeCounters(
    const model::LodGrid& grid, std::span<const model::CounterSample> sortedSamples);

/// Levels 1..grid.levels of instants sorted by time.
std::vector<std::vector<InstantCell>> summarizeInstants(
    const model::LodGrid& grid, std::span<const model::Instant> sortedInstants);

/// The stored form of cells [firstCell, lastCell) of a full level: the top
/// kTopNamesPerCell names of each, the rest merged per role into kOtherNames entries.
IntervalSummaryTile truncatedTile(const IntervalSummaryTile& full, std::size_t firstCell,
                                  std::size_t lastCell);

} // namespace strata::storage
