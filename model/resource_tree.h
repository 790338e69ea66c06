#pragma once
// The resource tree: node > process (rank) > thread, and node > GPU > stream. Every
// node of the tree is a "track" with an id; leaves hold events, inner nodes group them.
// Counter tracks hang off any resource. Ids are dense and assigned in creation order,
// so a child's id is always greater than its parent's.

#include "model/events.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::model {

enum class ResourceKind : std::uint8_t {
    Node = 0,
    Process = 1,  ///< a process or rank
    Thread = 2,  ///< a CPU thread: intervals, instants, flows, samples
    Gpu = 3,
    Stream = 4,  ///< a GPU stream or queue: kernels and memcpys
    Counter = 5,  ///< a counter series
    Group = 6,  ///< any other grouping (async tracks, virtual tracks)
};

std::string_view resourceKindName(ResourceKind kind);
std::optional<ResourceKind> parseResourceKind(std::string_view name);

struct TrackInfo
{
    TrackId id = kNoTrack;
    TrackId parent = kNoTrack;
    ResourceKind kind = ResourceKind::Thread;
    std::string name;
    std::int64_t sortKey = 0;  ///< order among siblings (smaller first), then by id
    std::string unit;  ///< counters only: "%", "B/s", ...
    friend bool operator==(const TrackInfo&, const TrackInfo&) = default;
};

class ResourceTree
{
public:
    /// Adds a track under `parent` (kNoTrack for a root) and returns its id.
    TrackId add(TrackId parent, ResourceKind kind, std::string name, std::int64_t sortKey = 0,
                std::string unit = {});
    /// Adds a track with a given id (used when loading a store); ids must be dense.
    void restore(TrackInfo info);

    /// Forgets the tracks from id `size` on (an import undone, see storage::RevisableSink).
    void truncate(std::size_t size);

    const TrackInfo& track(TrackId id) const { return m_tracks[id]; }
    TrackInfo& track(TrackId id) { return m_tracks[id]; }
    std::size_t size() const { return m_tracks.size(); }
    const std::vector<TrackInfo>& tracks() const { return m_tracks; }

    /// Children of `parent` in display order (sortKey, then id).
    std::vector<TrackId> children(TrackId parent) const;
    /// "node0/rank 1/thread 12": the names from the root down, joined by '/'.
    std::string path(TrackId id) const;
    /// Finds the child of `parent` with this kind and name.
    std::optional<TrackId> findChild(TrackId parent, ResourceKind kind, std::string_view name) const;

private:
    std::vector<TrackInfo> m_tracks;
};

} // namespace strata::model
