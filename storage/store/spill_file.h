#pragma once
// SpillFile bounds the store builder's memory: when the buffered events pass the budget,
// every track's buffer is appended to this temporary file as a segment and emptied; at
// finish() a worker reloads one track's segments (in arrival order) just before tiling
// it. Peak memory is then the budget plus the few largest tracks being tiled, whatever
// the size of the trace.
//
//   file:  [segment][segment]...      segment = one track's buffer at one spill, as a
//          zstd frame (level 1) of:
//          counts (5 x u64) | intervals (raw structs) | interval args ends | bytes |
//          instants | instant args ends | bytes | counters | flows | samples
//
// The file lives next to the store being built and is removed with the builder.
// Reads use pread, so workers reload different tracks concurrently.

#include "storage/store/track_buffer.h"

#include <filesystem>
#include <functional>
#include <vector>

namespace strata::storage {

class SpillFile
{
public:
    explicit SpillFile(std::filesystem::path path);
    ~SpillFile();
    SpillFile(const SpillFile&) = delete;
    SpillFile& operator=(const SpillFile&) = delete;

    /// Appends the buffer as a segment of `track` and empties it (keeping nothing).
    void spill(model::TrackId track, StoreBuilder::TrackBuffer& buffer);
    /// Prepends the track's spilled segments, in order, to `buffer` (which holds what
    /// arrived after the last spill). Thread-safe for distinct tracks.
    void reload(model::TrackId track, StoreBuilder::TrackBuffer& buffer) const;
    /// Gives `take` the track's spilled segments one at a time, in order (what arrived
    /// after the last spill is not in them): a track too long to reload whole.
    void forEachSegment(model::TrackId track,
        const std::function<void(StoreBuilder::TrackBuffer& segment)>& take) const;
    /// What the track's spilled events take in memory (their structs and args): what
    /// tiling it in pieces bounds (track_pieces.h).
    std::uint64_t eventBytes(model::TrackId track) const;
    /// Moves the track's spilled events by `deltaNs` (as they are read back).
    void shiftTrack(model::TrackId track, model::TimeNs deltaNs);
    /// Forgets the segments of tracks from `first` on; the file keeps what lies before the
    /// last segment of another track.
    void forgetTracksFrom(model::TrackId first);
    const std::filesystem::path& path() const { return m_path; }
    bool empty() const { return m_segments.empty(); }
    std::uint64_t bytes() const { return m_size; }

private:
    struct Segment
    {
        std::uint64_t offset;
        std::uint64_t size;
        model::TimeNs shiftNs = 0;  ///< added to its events' times as they are read
    };
    /// What a track's segments hold in all, so that a reload allocates each column once
    /// at its final size (grown row by row, a column would be moved and extended log n
    /// times, column.h).
    struct Totals
    {
        std::size_t intervals = 0;
        std::size_t instants = 0;
        std::size_t counters = 0;
        std::size_t flows = 0;
        std::size_t samples = 0;
        std::size_t intervalArgEnds = 0;
        std::size_t intervalArgBytes = 0;
        std::size_t instantArgEnds = 0;
        std::size_t instantArgBytes = 0;
    };
    /// Appends a segment's events to `into`.
    void readSegment(const Segment& segment, StoreBuilder::TrackBuffer& into) const;

    std::filesystem::path m_path;
    int m_fd = -1;
    std::uint64_t m_size = 0;
    std::vector<std::vector<Segment>> m_segments;  // per track
    std::vector<Totals> m_totals;  // per track
};

/// Approximate heap bytes a buffer holds (what the builder's budget counts).
std::size_t bufferedBytes(const StoreBuilder::TrackBuffer& buffer);

} // namespace strata::storage
