#pragma once
// IntervalTiler turns one track's intervals into its exact interval tiles (one set per
// duration band), its interval summary levels and its flame pyramid, from the track held
// whole or from pieces of it, each the intervals that start in a run of whole windows
// (interval_windows.h), in time order. Pieces let a track longer than memory be tiled
// (track_pieces.h); the tiles are the same as from the track held whole.
//
// Two passes, a piece at a time (the whole track: one piece, not sorted twice):
//   cut(piece, args)       sorts it by (start, seq), gives automatic depths, cuts exact
//                          tiles (a tile runs on into the next piece), counts cells
//   decideLevels()         the finest summary level and flame level worth storing
//   summarize(piece, ...)  the piece again: its windows of every stored level
//   finish()               the tiles, bands, stats and pyramid, into the TrackTiles
// What a pass carries from one piece to the next: the intervals still open (depths), a
// tile per band not yet full, the few summarized intervals crossing the border.

#include "model/lod_grid.h"
#include "storage/store/flame_summarizer.h"
#include "storage/store/interval_windows.h"
#include "storage/store/track_buffer.h"

#include <memory>
#include <optional>
#include <vector>

namespace strata::storage {

class IntervalTiler
{
public:
    /// Tiles go to `out` (its payloads, then finish() its tiles and stats). `pyramid`:
    /// whether the intervals make the track's flame pyramid (not when it has stack
    /// samples); `events`: the track's intervals in all; `span`: their span (first start,
    /// last end), when known ahead.
    IntervalTiler(const model::LodGrid& grid, int zstdLevel, const FlameSummaryOptions& flame,
        bool pyramid, std::int64_t events, TrackTiles& out,
        std::optional<model::TimeRange> span = std::nullopt);
    ~IntervalTiler();
    IntervalTiler(const IntervalTiler&) = delete;
    IntervalTiler& operator=(const IntervalTiler&) = delete;

    /// Pass 1. `piece` in arrival order, seq set; `args` row i: the args of piece[i]
    /// (consumed). Leaves the piece sorted, with its depths.
    void cut(Column<model::Interval>& piece, ArgsColumn& args);
    void decideLevels();
    /// Pass 2: the piece of the windows `range` (interval_windows.h), as it came to cut();
    /// a track held whole (WindowRange::all()): as cut() left it, sorted with its depths.
    void summarize(Column<model::Interval>& piece, WindowRange range);
    void finish();

private:
    struct State;
    std::unique_ptr<State> m_state;
};

}  // namespace strata::storage
