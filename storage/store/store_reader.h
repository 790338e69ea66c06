#pragma once
// StoreReader opens a tile store and answers viewport queries.
//
// query(tracks, t0, t1, pixelWidth) picks per track and per kind the coarsest summary
// level whose bucket is no wider than one pixel (LodGrid::levelFor), or exact events
// (level 0) when the window holds at most about one event per pixel or the track stores
// no summary that fine. At level k it returns the cells of level k plus, exactly, the
// intervals at least one bucket long (duration bands >= k, lod_grid.h), so the cost of a
// query is bounded by pixels x tracks, not by the size of the trace:
//   - a track's tile index is loaded once (one covering index scan) and binary-searched;
//   - decoded tiles are kept in an LRU TileCache with a byte budget.
//
// Opening a file that is not a store, a store of a newer format, or a truncated one
// throws StoreError; a corrupted tile found later throws StoreError from query(). All
// public methods are thread-safe (one mutex: SQLite and the cache are not shared).

#include "model/kernel_metric.h"
#include "model/lod_grid.h"
#include "model/resource_tree.h"
#include "model/stack_table.h"
#include "model/string_table.h"
#include "storage/store/flame_summarizer.h"
#include "storage/store/sqlite_db.h"
#include "storage/store/tile_cache.h"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace strata::storage {

struct ViewportQuery
{
    std::vector<model::TrackId> tracks;
    model::TimeNs startNs = 0;
    model::TimeNs endNs = 0;
    int pixelWidth = 1920;
};

/// What one track shows in a window.
struct TrackSlice
{
    model::TrackId track = model::kNoTrack;
    int intervalLevel = 0;  ///< 0: `intervals` is every interval overlapping the window
    int instantLevel = 0;
    int counterLevel = 0;
    /// Exact intervals overlapping the window, by (start, seq): all of them at level 0,
    /// at level k those at least bucketNs(k) long (the shorter ones are in `cells`).
    std::vector<model::Interval> intervals;
    std::vector<IntervalCell> cells;  ///< by (bucket, depth); firstEntry indexes `entries`
    std::vector<Coverage> entries;
    std::vector<model::Instant> instants;  ///< level 0
    std::vector<InstantCell> instantCells;  ///< level k
    /// Level 0: samples in the window, preceded by the last one before it (its value
    /// holds at the window start). Level k: cells, preceded likewise by the last cell
    /// before the window.
    std::vector<model::CounterSample> samples;
    std::vector<CounterCell> counterCells;
    std::vector<model::Flow> flows;  ///< leaving this track in the window (level 0 only)
    std::vector<model::StackSample> stackSamples;  ///< in the window
};

struct TrackSummary
{
    std::int64_t intervals = 0, instants = 0, counters = 0, flows = 0, samples = 0;
    model::TimeNs firstNs = 0, lastNs = 0;
    int maxDepth = 0;
    int intervalLevel = 1, instantLevel = 1, counterLevel = 1;
};

/// A metric of the per-kernel table: what a "color kernels by" chooser lists.
struct KernelMetricInfo
{
    model::StringId metric = model::kEmptyString;
    model::StringId unit = model::kEmptyString;
    std::int64_t kernels = 0;  ///< kernels that have a value
    double minValue = 0, maxValue = 0;  ///< for a gradient legend
};

/// The summary levels a track's flame pyramid spans (flame_summarizer.h).
struct FlameLevelRange
{
    int finest = 0;
    int coarsest = 0;
};

struct CategoryTotals
{
    std::int64_t intervals = 0;
    model::TimeNs totalNs = 0;
};

class StoreReader
{
public:
    struct Options
    {
        std::size_t cacheBytes = 128u << 20;
    };

    explicit StoreReader(const std::filesystem::path& path);
    StoreReader(const std::filesystem::path& path, Options options);
    ~StoreReader();

    const std::filesystem::path& path() const { return m_path; }
    const model::StringTable& strings() const { return m_strings; }
    const model::ResourceTree& resources() const { return m_resources; }
    const model::LodGrid& grid() const { return m_grid; }
    model::TimeRange span() const { return m_span; }
    /// The span of what the traced program did: the union of the tracks holding intervals,
    /// instants or stack samples. A counter log recorded around the trace (an NVML or
    /// DCGM sampler started before the profiler) widens span() but not this, so run-wide
    /// metrics divide by the run, not by the sampler's lifetime. span() when no track
    /// has any activity.
    model::TimeRange activitySpan() const { return m_activitySpan; }
    std::optional<std::string> meta(const std::string& key) const;
    const std::map<std::string, std::string>& allMeta() const { return m_meta; }
    const TrackSummary& summary(model::TrackId track) const { return m_summaries.at(track); }
    const std::map<model::StringId, CategoryTotals>& categories() const { return m_categories; }
    /// The interned call stacks: frame and parent of each stack id (model/stack_table.h).
    const model::StackTable& stacks() const { return m_stacks; }

    /// The viewport query (see the class comment).
    std::vector<TrackSlice> query(const ViewportQuery& q);
    /// Every interval of `track` overlapping [startNs, endNs), exact, by (start, seq).
    std::vector<model::Interval> intervals(model::TrackId track, model::TimeNs startNs,
                                           model::TimeNs endNs);
    /// The same, only those of duration band `fromBand` and above (lod_grid.h).
    std::vector<model::Interval> intervals(model::TrackId track, model::TimeNs startNs,
                                           model::TimeNs endNs, int fromBand);
    /// Every stack sample of `track` with startNs <= time < endNs, by time.
    std::vector<model::StackSample> stackSamples(model::TrackId track, model::TimeNs startNs,
                                                 model::TimeNs endNs);
    /// The args (JSON object text) of an interval returned by a query, or "".
    std::string intervalArgs(model::TrackId track, const model::Interval& interval);

    /// The metrics of the per-kernel table (Nsight Compute), by name; empty when the store
    /// has none.
    std::vector<KernelMetricInfo> kernelMetricNames();
    /// Per-kernel values on `track` (every metric, or only `metric`), by (start, metric):
    /// color the kernel interval starting at startNs by its value.
    std::vector<model::KernelMetric> kernelMetrics(model::TrackId track,
                                                   std::optional<model::StringId> metric = {});

    /// The levels of `track`'s flame pyramid; nullopt when it has none (a store written
    /// before the pyramid, a small track, improper nesting): walk its events instead.
    std::optional<FlameLevelRange> flameLevels(model::TrackId track) const;
    /// Buckets [firstBucket, endBucket) of one level of `track`'s flame pyramid, by
    /// bucket (empty buckets have no entry).
    std::vector<FlameBucket> flameBuckets(model::TrackId track, int level,
                                          std::int64_t firstBucket, std::int64_t endBucket);
    /// The interval call paths `track`'s flame buckets name (empty for sample tracks).
    model::StackTable flamePaths(model::TrackId track);

    std::size_t cacheBytes() const;
    std::size_t cacheBudget() const;

    struct TileRef
    {
        std::int64_t id;
        std::int64_t idx;
        model::TimeNs t0, t1;
        std::int64_t n;
    };
    struct TrackIndex;
    /// A read connection: queries split their tracks over two of them, one per core.
    struct Connection;

    /// Streaming access for exports that read a whole window without holding it (trace_cut.h):
    /// the exact tiles of one kind and band of a track, in start order (t0 = first start,
    /// t1 = largest end), and one tile decoded without entering the cache.
    std::vector<TileRef> exactTiles(model::TrackId track, TileKind kind, int band = 0);
    DecodedTile readTile(const TileRef& ref, TileKind kind);
    /// The longest interval of one duration band of a track, or -1 when the band is empty.
    model::TimeNs bandMaxDurationNs(model::TrackId track, int band) const;
    /// The interned call stacks: entry i >= 1 is (parent, frame); entry 0 is the root.
    std::vector<std::pair<model::StackId, model::StringId>> stackFrames();

private:
    const TrackIndex& index(model::TrackId track);
    std::shared_ptr<const DecodedTile> tile(const TileRef& ref, int kind, Connection& conn);
    DecodedTile decodeTile(const TileRef& ref, int kind, Connection& conn);
    void loadMetadata();
    void loadFlameLevels();
    void readExactIntervals(model::TrackId track, int fromBand, model::TimeRange window,
                            std::vector<model::Interval>& out, Connection& conn);
    void fillSlice(TrackSlice& slice, model::TimeRange window, double nsPerPx, int pixelWidth,
                   Connection& conn);

    std::filesystem::path m_path;
    std::unique_ptr<SqliteDb> m_db;
    mutable std::mutex m_mutex;  ///< one public call at a time
    mutable std::mutex m_cacheMutex;  ///< the cache, shared by a query's two halves
    TileCache m_cache;
    std::unique_ptr<Connection> m_connections[2];
    model::StringTable m_strings;
    model::ResourceTree m_resources;
    model::StackTable m_stacks;
    model::LodGrid m_grid;
    model::TimeRange m_span;
    model::TimeRange m_activitySpan;
    std::map<std::string, std::string> m_meta;
    std::vector<TrackSummary> m_summaries;
    std::vector<std::vector<model::TimeNs>> m_bandMaxNs;  ///< [track][band], -1 when empty
    std::map<model::StringId, CategoryTotals> m_categories;
    std::vector<std::unique_ptr<TrackIndex>> m_indexes;
    std::optional<SqliteStatement> m_indexStmt;
    bool m_hasKernelMetrics = false;
    std::vector<std::optional<FlameLevelRange>> m_flameLevels;  ///< [track]
    std::optional<SqliteStatement> m_flameBucketStmt;
};

} // namespace strata::storage
