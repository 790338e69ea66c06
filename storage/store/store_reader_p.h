#pragma once
// What the two halves of StoreReader share: store_reader.cpp opens a store (its metadata,
// the tile index of each track, the decoded tiles through the cache) and
// store_reader_query.cpp answers from it (viewport queries, exact events, args, kernel
// metrics). Private to storage/store.

#include "storage/store/store_reader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace strata::storage {

/// The tile index of one track: per (kind, level) the tiles sorted by idx (for exact
/// tiles, idx order is start order).
struct StoreReader::TrackIndex
{
    std::map<std::pair<int, int>, std::vector<TileRef>> tiles;

    const std::vector<TileRef>* find(TileKind kind, int level) const
    {
        auto it = tiles.find({static_cast<int>(kind), level});
        return it == tiles.end() ? nullptr : &it->second;
    }
};

struct StoreReader::Connection
{
    std::unique_ptr<SqliteDb> db;
    std::optional<SqliteStatement> payload;

    explicit Connection(const std::filesystem::path& path)
        : db(std::make_unique<SqliteDb>(path, SqliteDb::Mode::ReadOnly))
    {
        payload.emplace(db->prepare("SELECT kind, payload FROM tiles WHERE id = ?"));
    }
};

namespace store_reader_detail {

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
void forExactTiles(const std::vector<StoreReader::TileRef>& tiles, TimeNs lowNs, TimeNs highNs, Fn fn)
{
    auto it = std::upper_bound(tiles.begin(), tiles.end(), lowNs,
                               [](TimeNs t, const StoreReader::TileRef& r) { return t < r.t0; });
    if (it != tiles.begin())
        --it;
    for (; it != tiles.end() && it->t0 < highNs; ++it)
        fn(*it);
}

/// Summary tiles whose span overlaps [startNs, endNs).
template<typename Fn>
void forSummaryTiles(const std::vector<StoreReader::TileRef>& tiles, TimeRange w, Fn fn)
{
    auto it = std::upper_bound(tiles.begin(), tiles.end(), w.startNs,
                               [](TimeNs t, const StoreReader::TileRef& r) { return t < r.t1; });
    for (; it != tiles.end() && it->t0 < w.endNs; ++it)
        fn(*it);
}

inline std::int64_t checkedId(std::int64_t v, std::int64_t limit, const std::string& what,
                       const std::filesystem::path& path)
{
    if (v < 0 || v >= limit)
        throw StoreError(path.string() + ": corrupted store: " + what + " " + std::to_string(v)
                         + " out of range");
    return v;
}


} // namespace store_reader_detail

} // namespace strata::storage
