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
// Levels are built one window (a bucket of the coarsest level) at a time, so memory
// holds what one window holds, not a whole track's levels.
//
// Counters: each level is computed from "pieces" (samples at level 1, the cells of the
// level below above it), filling the gaps between pieces with the value in effect, so
// mean/min/max are exact for the step function the samples describe.
//
// Instants: counts and the first instant per bucket, merged upward.

#include "model/lod_grid.h"
#include "storage/store/interval_windows.h"
#include "storage/store/tiles.h"

#include <functional>
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

/// The number of cells of each level of intervals sorted by (start, seq), counted without
/// building them: one pass, memory per level and depth only. A builder learns from it
/// which levels are worth storing before computing any. The intervals may come in pieces
/// (add() each, in order).
class IntervalCellCounter
{
public:
    explicit IntervalCellCounter(const model::LodGrid& grid);
    void add(std::span<const model::Interval> sortedIntervals);
    /// Element k-1: the cells of level k.
    const std::vector<std::int64_t>& cells() const { return m_cells; }

private:
    model::LodGrid m_grid;
    std::vector<std::int64_t> m_cells;
    std::vector<std::vector<std::int64_t>> m_lastCounted;  ///< per level and depth
};
/// IntervalCellCounter's cells of one run of intervals.
std::vector<std::int64_t> countIntervalCells(
    const model::LodGrid& grid, std::span<const model::Interval> sortedIntervals);

/// Takes the cells of one level in one window, sorted by (bucket, depth), with every name
/// of every cell (entries sorted by decreasing coverage, then name and role). A level's
/// windows come in time order; the cells are only valid during the call.
using IntervalCellSink = std::function<void(int level, const IntervalSummaryTile& cells)>;

/// Levels fromLevel..grid.levels of intervals sorted by (start, seq), one window (a bucket
/// of the coarsest level) at a time: memory holds the intervals and cells of one window,
/// whatever the track's length. Level fromLevel is computed from the intervals of bands
/// < fromLevel directly (equal to what the levels below would give, see above).
void summarizeIntervals(const model::LodGrid& grid,
    std::span<const model::Interval> sortedIntervals, int fromLevel, const IntervalCellSink& sink);
/// The same for one piece of a track: the windows of `range`, of the intervals `carried`
/// from the pieces before and the piece's own (interval_windows.h).
void summarizeIntervals(const model::LodGrid& grid, std::span<const model::Interval> carried,
    std::span<const model::Interval> sortedIntervals, WindowRange range, int fromLevel,
    const IntervalCellSink& sink);
/// All levels 1..grid.levels at once (element k-1: level k).
std::vector<IntervalSummaryTile> summarizeIntervals(const model::LodGrid& grid,
                                                    std::span<const model::Interval> sortedIntervals);
/// Appends the cells of `from` (and their entries) to `to`.
void appendCells(IntervalSummaryTile& to, const IntervalSummaryTile& from);

/// One counter level built as its pieces come, in time order (each inside one bucket of
/// the level: samples, or the level below's pieces): a bucket's piece is done when the
/// next bucket's first piece comes, the last one at finish(). Done pieces are appended to
/// `done`. What the level functions below give, a piece at a time.
class CounterLevelReducer
{
public:
    explicit CounterLevelReducer(model::TimeNs bucketNs)
        : m_bucketNs(bucketNs)
    {}
    void add(const CounterPiece& piece, std::vector<CounterPiece>& done);
    void finish(std::vector<CounterPiece>& done);

private:
    model::TimeNs m_bucketNs;
    bool m_open = false;
    bool m_any = false;
    double m_previousLast = 0;  ///< the value of the previous piece, from its end on
    model::TimeNs m_previousEndNs = 0;
    CounterPiece m_current;
};
/// A sample as the piece of the level-1 bucket it lies in.
CounterPiece counterPieceOf(const model::CounterSample& sample);

/// Level 1 of counter samples sorted by time, and level `level` from level - 1: a builder
/// goes up level by level, holding two at a time.
std::vector<CounterPiece> counterLevelOne(
    const model::LodGrid& grid, std::span<const model::CounterSample> sortedSamples);
std::vector<CounterPiece> coarserCounterLevel(
    const model::LodGrid& grid, int level, std::span<const CounterPiece> finer);
/// Levels 1..grid.levels of counter samples sorted by time.
std::vector<std::vector<CounterPiece>> summarizeCounters(
    const model::LodGrid& grid, std::span<const model::CounterSample> sortedSamples);

/// One instant level built as its instants (or the finer level's cells) come in time
/// order, bucket by bucket: counts and the first instant. Done cells go to `done`.
class InstantLevelReducer
{
public:
    void add(std::int64_t bucket, std::uint32_t count, model::TimeNs firstNs, model::StringId name,
        std::vector<InstantCell>& done);
    void finish(std::vector<InstantCell>& done);

private:
    bool m_open = false;
    InstantCell m_current;
};

/// Level 1 of instants sorted by time, and the level above `finer`.
std::vector<InstantCell> instantLevelOne(
    const model::LodGrid& grid, std::span<const model::Instant> sortedInstants);
std::vector<InstantCell> coarserInstantLevel(
    const model::LodGrid& grid, std::span<const InstantCell> finer);
/// Levels 1..grid.levels of instants sorted by time.
std::vector<std::vector<InstantCell>> summarizeInstants(
    const model::LodGrid& grid, std::span<const model::Instant> sortedInstants);

/// The stored form of cells [firstCell, lastCell) of a full level: the top
/// kTopNamesPerCell names of each, the rest merged per role into kOtherNames entries.
IntervalSummaryTile truncatedTile(const IntervalSummaryTile& full, std::size_t firstCell,
                                  std::size_t lastCell);

} // namespace strata::storage
