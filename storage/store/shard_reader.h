#pragma once
// ShardReader reads one store file: a single store, or one shard of a run (a manifest
// plus shards, run_manifest.h). It is what StoreReader was before runs had shards, and
// StoreReader now answers through one ShardReader per file (store_reader.h).
//
// Track ids in its API are local to the file. Everything it returns that names a string,
// a stack or another track is translated to the run's ids as tiles are decoded (ShardIds,
// before they enter the cache), so the run's reader copies slices out unchanged. For a
// single store there is nothing to translate.
//
// Not thread-safe by itself: StoreReader serializes calls, except that query() may fill
// two parts of one query at once on the two connections (`slot` 0 and 1).

#include "storage/store/shard_ids.h"
#include "storage/store/store_reader.h"
#include "storage/store/trace_sink.h"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace strata::storage {

struct TrackTileIndex;

/// What all shards of a run share, each under its own byte budget: the decoded tiles, and
/// the tile indexes of the tracks read lately (a busy track's index is ~1 MB at 1 B events,
/// so a run's 576 tracks would hold ~120 MB of them for good).
struct SharedTileCache
{
    SharedTileCache(std::size_t budgetBytes, std::size_t indexBudgetBytes)
        : cache(budgetBytes)
        , indexes(indexBudgetBytes)
    {
    }
    std::mutex mutex;  ///< guards `cache`
    std::mutex indexMutex;  ///< guards `indexes` (a query reads cold indexes on two threads)
    TileCache cache;
    LruCache<TrackTileIndex> indexes;
};

class ShardReader
{
public:
    struct Context
    {
        std::shared_ptr<SharedTileCache> cache;
        std::int64_t cacheKeyBase = 0;  ///< added to tile ids in the shared cache
        const ShardIds* ids = nullptr;  ///< null: ids are the run's already
    };

    /// Throws StoreError when the file is missing, not a store, newer, or truncated.
    ShardReader(const std::filesystem::path& path, Context context);
    ~ShardReader();

    const std::filesystem::path& path() const { return m_path; }
    /// The file's strings; empty for a run's shard (its names are the manifest's).
    const model::StringTable& strings() const { return m_strings; }
    std::size_t stringCount() const { return m_stringCount; }
    const model::ResourceTree& resources() const { return m_resources; }
    /// The tracks of other shards its flows reach (store_schema.h: foreign_tracks).
    const std::vector<TrackPath>& foreignTracks() const { return m_foreignTracks; }
    const model::LodGrid& grid() const { return m_grid; }
    model::TimeRange span() const { return m_span; }
    model::TimeRange activitySpan() const { return m_activitySpan; }
    std::optional<std::string> meta(const std::string& key) const;
    const std::map<std::string, std::string>& allMeta() const { return m_meta; }
    const std::vector<TrackSummary>& summaries() const { return m_summaries; }
    const std::map<model::StringId, CategoryTotals>& categories() const { return m_categories; }
    const model::StackTable& stacks() const { return m_stacks; }

    using IndexPtr = std::shared_ptr<const TrackTileIndex>;
    /// The tile index of a track (local id), from the shared cache or read on the main
    /// connection (slot -1), or on connection `slot` (0 or 1) by one of a query's two
    /// threads.
    IndexPtr index(model::TrackId track, int slot = -1);
    /// Whether the shared cache holds the track's index now.
    bool indexCached(model::TrackId track);
    /// Fills `out[i]` for the tracks `tracks[i]` (local ids), i in [first, last), from
    /// their pinned indexes `indexes[i]`, on connection `slot` (0 or 1).
    void fill(const ViewportQuery& q, const std::vector<model::TrackId>& tracks,
        const std::vector<IndexPtr>& indexes, std::vector<TrackSlice>& out, std::size_t first,
        std::size_t last, int slot);
    /// Bytes SQLite holds in its page caches for this file (all connections).
    std::size_t sqliteCacheBytes() const;

    std::vector<model::Interval> intervals(model::TrackId track, model::TimeNs startNs,
                                           model::TimeNs endNs, int fromBand);
    std::vector<model::StackSample> stackSamples(model::TrackId track, model::TimeNs startNs,
                                                 model::TimeNs endNs);
    std::string intervalArgs(model::TrackId track, const model::Interval& interval);
    std::optional<CellContents> intervalCell(
        model::TrackId track, int level, std::int64_t bucket, model::Depth depth);
    std::vector<KernelMetricInfo> kernelMetricNames();
    std::vector<model::KernelMetric> kernelMetrics(model::TrackId track,
                                                   std::optional<model::StringId> metric);
    std::optional<FlameLevelRange> flameLevels(model::TrackId track) const;
    std::vector<FlameBucket> flameBuckets(model::TrackId track, int level,
                                          std::int64_t firstBucket, std::int64_t endBucket);
    model::StackTable flamePaths(model::TrackId track);
    std::vector<TileRef> exactTiles(model::TrackId track, TileKind kind, int band);
    DecodedTile readTile(const TileRef& ref, TileKind kind);
    model::TimeNs bandMaxDurationNs(model::TrackId track, int band) const;

    struct Connection;

private:
    /// Tile `id` of `kind` decoded, from the shared cache or read on `conn`; `drawn`: the
    /// tile decoded as the timeline draws it, kept apart from its full decoding (an
    /// interval summary tile for CellDetail::Drawn; an exact tile without its args).
    std::shared_ptr<const DecodedTile> tile(
        std::int64_t id, int kind, Connection& conn, bool drawn = false);
    DecodedTile decodeTile(std::int64_t id, int kind, Connection& conn, bool drawn);
    Connection& connection(int slot);
    void loadMetadata();
    void loadFlameLevels();
    void readExactIntervals(model::TrackId track, const TrackTileIndex& idx, int fromBand,
        model::TimeRange window, int depthLimit, std::vector<model::Interval>& out,
        Connection& conn);
    void fillSlice(TrackSlice& slice, model::TrackId track, const TrackTileIndex& idx,
        model::TimeRange window, double nsPerPx, const ViewportQuery& q, Connection& conn);
    model::StringId runString(std::int64_t local) const;

    std::filesystem::path m_path;
    Context m_context;
    std::unique_ptr<SqliteDb> m_db;
    std::unique_ptr<Connection> m_connections[2];
    model::StringTable m_strings;
    std::size_t m_stringCount = 0;
    model::ResourceTree m_resources;
    std::vector<TrackPath> m_foreignTracks;
    model::StackTable m_stacks;
    model::LodGrid m_grid;
    model::TimeRange m_span;
    model::TimeRange m_activitySpan;
    std::map<std::string, std::string> m_meta;
    std::vector<TrackSummary> m_summaries;
    std::vector<std::vector<model::TimeNs>> m_bandMaxNs;  ///< [track][band], -1 when empty
    std::map<model::StringId, CategoryTotals> m_categories;
    std::optional<SqliteStatement> m_indexStmt;
    bool m_hasKernelMetrics = false;
    std::vector<std::optional<FlameLevelRange>> m_flameLevels;  ///< [track]
    bool m_flameGroups = false;  ///< buckets in flame_bucket_groups (format 7), not flame_buckets
    std::optional<SqliteStatement> m_flameBucketStmt;
};

} // namespace strata::storage
