#pragma once
// What the parts of ShardReader share: shard_reader.cpp opens a store file (its metadata,
// the tile index of each track, the decoded tiles through the cache) and
// shard_reader_query.cpp answers from it (viewport queries, exact events, args, kernel
// metrics). Private to storage/store.

#include "storage/store/shard_reader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace strata::storage {

/// One tile of a track's index as kept in memory: 24 bytes where a TileRef takes 40, its
/// idx being its place in its list. A busy track of the 1 B run lists ~19 k tiles; the 64
/// busiest, which the bench's queries and a full timeline read at every frame, take
/// 29 MB so, and stay within the index cache's 32 MB (at 40 bytes they would be read
/// again at every frame).
struct IndexedTile
{
    model::TimeNs t0, t1;
    std::uint32_t id, n;
};
static_assert(sizeof(IndexedTile) == 24);

/// The tile index of one track: per (kind, level) the tiles sorted by idx (for exact
/// tiles, idx order is start order).
struct TrackTileIndex
{
    std::map<std::pair<int, int>, std::vector<IndexedTile>> tiles;
    std::size_t bytes = 0;  ///< what it takes in memory, about (what the cache counts)

    const std::vector<IndexedTile>* find(TileKind kind, int level) const
    {
        auto it = tiles.find({static_cast<int>(kind), level});
        return it == tiles.end() ? nullptr : &it->second;
    }
};

struct ShardReader::Connection
{
    std::unique_ptr<SqliteDb> db;
    std::optional<SqliteStatement> payload;
    std::optional<SqliteStatement> index;  ///< prepared on first use

    explicit Connection(const std::filesystem::path& path)
        : db(std::make_unique<SqliteDb>(path, SqliteDb::Mode::Published))
    {
        limitPageCache(*db);
        payload.emplace(db->prepare("SELECT kind, payload FROM tiles WHERE id = ?"));
    }

    /// SQLite's own page cache (2 MB by default) per connection: a run of 16 shards has 48
    /// connections, and what they read is a tile decoded once into the tile cache, or an
    /// index kept in the index cache; the b-tree's inner pages are what it is for.
    static void limitPageCache(SqliteDb& db) { db.exec("PRAGMA cache_size = -256"); }
};

namespace shard_reader_detail {

using model::TimeNs;
using model::TimeRange;

/// An interval overlaps [w.startNs, w.endNs) if it shares time with it; a zero-length
/// one if it lies inside.
inline bool overlaps(TimeNs s, TimeNs e, TimeRange w)
{
    return s < w.endNs && (e > w.startNs || (e == s && s >= w.startNs));
}

/// Exact tiles (sorted by t0 = first start) that may hold an event starting in
/// [lowNs, highNs): from the last tile starting at or before lowNs on.
template<typename Fn>
void forExactTiles(const std::vector<IndexedTile>& tiles, TimeNs lowNs, TimeNs highNs, Fn fn)
{
    auto it = std::upper_bound(
        tiles.begin(), tiles.end(), lowNs, [](TimeNs t, const IndexedTile& r) { return t < r.t0; });
    if (it != tiles.begin())
        --it;
    for (; it != tiles.end() && it->t0 < highNs; ++it)
        fn(*it);
}

/// Summary tiles whose span overlaps [startNs, endNs).
template<typename Fn>
void forSummaryTiles(const std::vector<IndexedTile>& tiles, TimeRange w, Fn fn)
{
    auto it = std::upper_bound(tiles.begin(), tiles.end(), w.startNs,
        [](TimeNs t, const IndexedTile& r) { return t < r.t1; });
    for (; it != tiles.end() && it->t0 < w.endNs; ++it)
        fn(*it);
}

/// The union of the tracks holding intervals, instants or stack samples (what
/// activitySpan() reports), or nullopt when none does.
inline std::optional<TimeRange> activityOf(const std::vector<TrackSummary>& summaries)
{
    std::optional<TimeRange> span;
    for (const TrackSummary& s : summaries) {
        if (s.intervals + s.instants + s.samples == 0)
            continue;
        span = span ? TimeRange {std::min(span->startNs, s.firstNs), std::max(span->endNs, s.lastNs)}
                    : TimeRange {s.firstNs, s.lastNs};
    }
    return span;
}

inline std::int64_t checkedId(std::int64_t v, std::int64_t limit, const std::string& what,
                       const std::filesystem::path& path)
{
    if (v < 0 || v >= limit)
        throw StoreError(path.string() + ": corrupted store: " + what + " " + std::to_string(v)
                         + " out of range");
    return v;
}


} // namespace shard_reader_detail

} // namespace strata::storage
