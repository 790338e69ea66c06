#pragma once
// tileTrackInPieces tiles a track whose events are too many to hold at once (a thread of
// tens of millions of intervals, a counter sampled as often), in bounded memory. The
// track is in the builder's spill file (spill_file.h), in arrival order. Its intervals,
// instants, counter samples, flows and stack samples are cut by time into pieces of about
// `pieceBytes` each, every piece a run of whole windows (a bucket of the grid's coarsest
// level, interval_windows.h), and written to a second spill file; then IntervalTiler,
// InstantTiler, CounterTiler, FlowCutter, an ExactCutter of sample tiles and
// SampleFlameSummarizer take the pieces in time order (interval_tiler.h, point_tiler.h,
// flow_cutter.h, sample_flame_summarizer.h; the intervals twice, the samples three times
// when they make a flame pyramid). The tiles are those the track held whole would give,
// byte for byte.
//
// Memory: one spilled segment of the track at a time while cutting, with at most a piece's
// worth of the pieces, then one piece (a window that alone holds more than `pieceBytes`
// makes a piece that big). Disk: the pieces take about what the track takes in the spill
// file, until the track is tiled.

#include "storage/store/track_buffer.h"

#include <functional>

namespace strata::storage {

class SpillFile;

/// Whether a track of `eventBytes` (SpillFile::eventBytes) is tiled in pieces: past 4
/// pieces. Below that, tiling it whole holds about as much as cutting it into pieces
/// does (a spilled segment, the pieces held, one being written) and takes less time.
inline bool tiledInPieces(std::uint64_t eventBytes, std::size_t pieceBytes)
{
    return pieceBytes > 0 && eventBytes > 4 * std::uint64_t(pieceBytes);
}

/// Tiles `track` of `spill` and what `held` holds of it (arrived after the last spill).
/// `prepare` is applied to each piece and to the other events before they are tiled (the
/// builder renames strings).
TrackTiles tileTrackInPieces(const SpillFile& spill, model::TrackId track,
    StoreBuilder::TrackBuffer& held, const std::function<void(StoreBuilder::TrackBuffer&)>& prepare,
    const model::LodGrid& grid, int zstdLevel, const FlameSummaryOptions& flame,
    PayloadSpool payloads, std::size_t pieceBytes);

}  // namespace strata::storage
