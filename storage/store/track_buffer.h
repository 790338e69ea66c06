#pragma once
// What the store builder keeps of one track until finish(), and what a worker turns it
// into (TrackTiles). Args live in one ArgsColumn per kind, indexed by arrival.

#include "model/lod_grid.h"
#include "storage/store/flame_summarizer.h"
#include "storage/store/payload_spool.h"
#include "storage/store/store_builder.h"
#include "storage/store/tiles.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

struct StoreBuilder::TrackBuffer
{
    std::uint32_t intervalsSeen = 0;  ///< arrival counter: the next interval's seq
    Column<model::Interval> intervals;  ///< seq = arrival index
    ArgsColumn intervalArgs;
    Column<model::Instant> instants;
    ArgsColumn instantArgs;
    Column<model::CounterSample> counters;
    Column<model::Flow> flows;
    Column<model::StackSample> samples;
};

/// Moves the events of `buffer` from index `from` on (per column) by `deltaNs`.
struct BufferRows
{
    std::size_t intervals = 0, instants = 0, counters = 0, flows = 0, samples = 0;
};
inline void shiftEvents(
    StoreBuilder::TrackBuffer& buffer, model::TimeNs deltaNs, BufferRows from = {})
{
    for (std::size_t i = from.intervals; i < buffer.intervals.size(); ++i) {
        buffer.intervals[i].startNs += deltaNs;
        buffer.intervals[i].endNs += deltaNs;
    }
    for (std::size_t i = from.instants; i < buffer.instants.size(); ++i)
        buffer.instants[i].timeNs += deltaNs;
    for (std::size_t i = from.counters; i < buffer.counters.size(); ++i)
        buffer.counters[i].timeNs += deltaNs;
    for (std::size_t i = from.flows; i < buffer.flows.size(); ++i) {
        buffer.flows[i].fromNs += deltaNs;
        buffer.flows[i].toNs += deltaNs;
    }
    for (std::size_t i = from.samples; i < buffer.samples.size(); ++i)
        buffer.samples[i].timeNs += deltaNs;
}

/// Frees a buffer's column. (Assigning {} would not free a vector.)
template<typename T>
void release(Column<T>& column)
{
    Column<T>().swap(column);
}
template<typename T>
void release(std::vector<T>& column)
{
    std::vector<T>().swap(column);
}
inline void release(ArgsColumn& args)
{
    release(args.bytes);
    release(args.ends);
}

/// column.append(row, args), with its common case inline: an event without args while
/// no row has any (ArgsColumn stays empty). GCC keeps append out of line, and the call
/// cost ~24 instructions an event twice (buffered, then cut into a tile) for nothing.
inline void appendArgs(ArgsColumn& column, std::size_t row, std::string_view args)
{
    if (!args.empty() || !column.ends.empty())
        column.append(row, args);
}

/// A tile ready to write: its index entry (the id is given when written) and payload.
struct TileRow
{
    TileIndexEntry entry;
    SpooledPayload payload;  ///< in the track's TrackTiles::payloads
};

struct BandStats
{
    int band = 0;
    std::int64_t count = 0;
    model::TimeNs maxDurationNs = 0;
};

struct TrackStats
{
    std::int64_t intervals = 0;
    std::int64_t instants = 0;
    std::int64_t counters = 0;
    std::int64_t flows = 0;
    std::int64_t samples = 0;
    model::TimeNs firstNs = 0;
    model::TimeNs lastNs = 0;
    int maxDepth = 0;
    /// Finest summary level stored per kind; levels below it hold about one event per
    /// cell and are not worth storing (the reader reads exact events there).
    int intervalLevel = 1;
    int instantLevel = 1;
    int counterLevel = 1;
    /// Category -> (intervals, total ns).
    std::map<model::StringId, std::pair<std::int64_t, model::TimeNs>> categories;
};

/// One encoded bucket of the flame pyramid.
struct FlameRow
{
    int level = 0;
    std::int64_t bucket = 0;
    SpooledPayload payload;  ///< in the track's TrackTiles::payloads
};

/// A track's flame pyramid, encoded (no rows: the track has none).
struct TrackFlame
{
    int finestLevel = 0;
    int coarsestLevel = 0;
    std::string paths;  ///< interval tracks: the encoded call paths
    std::vector<FlameRow> rows;
};

struct TrackTiles
{
    PayloadSpool payloads;  ///< the encoded tiles and flame buckets
    std::vector<TileRow> tiles;
    std::vector<BandStats> bands;
    TrackStats stats;
    TrackFlame flame;
};

/// Exact tiles hold at most this many events.
inline constexpr std::size_t kEventsPerTile = 512;

/// Summary tiles hold at most this many cells, each tile spanning its first to its last
/// bucket. A count rather than a fixed time span: sparse levels (a sampled call stack
/// every few ms at a 256 ns grid) would otherwise give one tile per cell.
inline constexpr std::size_t kCellsPerSummaryTile = model::LodGrid::kBucketsPerTile;

/// Sorts, assigns automatic depths, and cuts one track into exact and summary tiles and
/// its flame pyramid (of its samples, or of its intervals when it has no samples).
/// Consumes the buffer (its memory is released). The encoded payloads go to `payloads`.
TrackTiles tileTrack(StoreBuilder::TrackBuffer& buffer, const model::LodGrid& grid, int zstdLevel,
    const FlameSummaryOptions& flame = {}, PayloadSpool payloads = PayloadSpool());

/// The parts of tileTrack(), for a track tiled in pieces (track_pieces.h): widens
/// `stats`' span (`any`: whether it holds one yet) to the events of `buffer`; tiles the
/// events of `buffer` other than intervals into `out`, after the intervals' tiles.
void widenTrackSpan(const StoreBuilder::TrackBuffer& buffer, TrackStats& stats, bool& any);
void tileBesideIntervals(StoreBuilder::TrackBuffer& buffer, const model::LodGrid& grid,
    int zstdLevel, const FlameSummaryOptions& flame, TrackTiles& out);
/// Its flows and stack samples, after the instants' and counters' tiles (the flows by a
/// FlowCutter, flow_cutter.h).
void tileFlowsAndSamples(StoreBuilder::TrackBuffer& buffer, const model::LodGrid& grid,
    int zstdLevel, const FlameSummaryOptions& flame, TrackTiles& out);
/// Its stack samples alone, after its flows' tiles.
void tileSamples(StoreBuilder::TrackBuffer& buffer, const model::LodGrid& grid, int zstdLevel,
    const FlameSummaryOptions& flame, TrackTiles& out);

} // namespace strata::storage
