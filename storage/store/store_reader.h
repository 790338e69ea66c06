#pragma once
// StoreReader opens a tile store, or a run of shards (a manifest, run_manifest.h), and
// answers viewport queries. A run reads like one store: its tracks, strings and stacks
// are the run's (the manifest's), and each call goes to the shard that holds the track
// (shard_reader.h), so a query touches only the shards of the tracks it asks for. All
// shards share one decoded-tile cache and its budget.
//
// query(tracks, t0, t1, pixelWidth) picks per track and per kind the coarsest summary
// level whose bucket is no wider than one pixel (LodGrid::levelFor), or exact events
// (level 0) when the window holds at most about one event per pixel or the track stores
// no summary that fine. At level k it returns the cells of level k plus, exactly, the
// intervals at least one bucket long (duration bands >= k, lod_grid.h), so the cost of a
// query is bounded by pixels x tracks, not by the size of the trace:
//   - a track's tile index is read in one row and binary-searched; the indexes of the
//     tracks read lately stay in an LRU within Options::indexBytes (a query of more
//     tracks than that holds pins half of it at a time);
//   - decoded tiles are kept in an LRU TileCache with a byte budget;
//   - each SQLite connection keeps 256 KiB of pages (what it reads is cached above it).
//
// Opening a file that is not a store, a store of a newer format, or a truncated one
// throws StoreError, as does a run with a missing, truncated or replaced shard (naming
// the shard); a corrupted tile found later throws StoreError from query(). All public
// methods are thread-safe (one mutex: SQLite and the cache are not shared).

#include "model/kernel_metric.h"
#include "model/lod_grid.h"
#include "model/resource_tree.h"
#include "model/stack_table.h"
#include "model/string_table.h"
#include "storage/store/flame_summarizer.h"
#include "storage/store/progress.h"
#include "storage/store/sqlite_db.h"
#include "storage/store/tile_cache.h"
#include "storage/store/tiles.h"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace strata::storage {

/// How much of each summary cell a viewport query returns.
enum class CellDetail : std::uint8_t {
    /// Every field and coverage entry (the tooltip, the legend, search highlights and the
    /// analyses read them).
    Full,
    /// What the timeline draws of a cell: its bucket, depth and one entry holding its
    /// whole coverage under its most covered name and role; count and the longest event
    /// are 0 (decodeDrawnIntervalSummaryTile). A cold jump inflates and reads the first
    /// of a format 4 tile's two frames only (bench/RESULTS.md, session 9).
    Drawn,
};

struct ViewportQuery
{
    std::vector<model::TrackId> tracks;
    model::TimeNs startNs = 0;
    model::TimeNs endNs = 0;
    int pixelWidth = 1920;
    /// > 0: only the intervals and cells of depth < depthLimit (a view that draws that
    /// many lanes, as the overview strip's one); 0: every depth.
    int depthLimit = 0;
    CellDetail cells = CellDetail::Full;
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

/// One summary cell of a track with its coverage entries (firstEntry is 0), as a query
/// with CellDetail::Full returns it.
struct CellContents
{
    IntervalCell cell;
    std::vector<Coverage> entries;
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

/// Where one tile of a track lies in its store file.
struct TileRef
{
    std::int64_t id;
    std::int64_t idx;
    model::TimeNs t0, t1;
    std::int64_t n;
};

/// One file of a run, as `strata info` lists it: a single store is a run of one shard.
struct ShardInfo
{
    std::filesystem::path path;
    model::TrackId firstTrack = 0;  ///< its tracks are the run's [firstTrack, +tracks)
    std::size_t tracks = 0;
    std::int64_t events = 0;
    std::uint64_t bytes = 0;
};

class ShardReader;
struct ShardIds;
struct SharedTileCache;

class HelperThread;

class StoreReader
{
public:
    struct Options
    {
        std::size_t cacheBytes = 128u << 20;
        /// The tile indexes of the tracks read lately (one query pins what it reads
        /// beyond that, half this budget at a time).
        std::size_t indexBytes = 32u << 20;
    };

    explicit StoreReader(const std::filesystem::path& path);
    StoreReader(const std::filesystem::path& path, Options options);
    ~StoreReader();

    const std::filesystem::path& path() const { return m_path; }
    const model::StringTable& strings() const { return *m_strings; }
    const model::ResourceTree& resources() const { return *m_resources; }
    const model::LodGrid& grid() const { return m_grid; }
    model::TimeRange span() const { return m_span; }
    /// The span of what the traced program did: the union of the tracks holding intervals,
    /// instants or stack samples. A counter log recorded around the trace (an NVML or
    /// DCGM sampler started before the profiler) widens span() but not this, so run-wide
    /// metrics divide by the run, not by the sampler's lifetime. span() when no track
    /// has any activity.
    model::TimeRange activitySpan() const { return m_activitySpan; }
    std::optional<std::string> meta(const std::string& key) const;
    const std::map<std::string, std::string>& allMeta() const { return *m_meta; }
    const TrackSummary& summary(model::TrackId track) const { return m_summaries->at(track); }
    const std::map<model::StringId, CategoryTotals>& categories() const { return *m_categories; }
    /// The interned call stacks: frame and parent of each stack id (model/stack_table.h).
    const model::StackTable& stacks() const { return *m_stacks; }

    /// The files this store reads: itself, or the shards of a run, in track order.
    const std::vector<ShardInfo>& shards() const { return m_shardInfo; }
    /// Whether `path()` is a run's manifest (even of one shard) rather than a store.
    bool isRun() const { return m_isRun; }
    /// Reads every shard of a run in full and compares it with the content checksum the
    /// manifest holds; throws StoreError naming the first shard that differs. Opening
    /// checks only sizes and the first and last 64 KiB (a full read of a large run would
    /// cost seconds), and a tile altered elsewhere fails its own checksum when read; this
    /// finds an alteration before anything reads it. Returns the shards verified: 0 for
    /// a single store, which has no manifest to compare with.
    std::size_t verifyShards(const ProgressFn& progress = {}) const;

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
    /// The cell of `track` at summary `level`, `bucket` and `depth` in full (a tooltip over
    /// a cell of a CellDetail::Drawn query), or nullopt when the track has none there.
    std::optional<CellContents> intervalCell(
        model::TrackId track, int level, std::int64_t bucket, model::Depth depth);
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
    /// Bytes of tile indexes kept (within Options::indexBytes), and how many tracks' indexes
    /// were read from the store so far (a track read again after it left counts again).
    std::size_t indexBytes() const;
    std::uint64_t indexReads() const;
    /// How many tiles were read and decoded so far (what the tile cache missed).
    std::uint64_t tileReads() const;
    /// Bytes SQLite holds in its page caches, over every connection to every file.
    std::size_t sqliteCacheBytes() const;

    using TileRef = storage::TileRef;

    /// Streaming access for exports that read a whole window without holding it (trace_cut.h):
    /// the exact tiles of one kind and band of a track, in start order (t0 = first start,
    /// t1 = largest end), and one tile of that track decoded without entering the cache.
    std::vector<TileRef> exactTiles(model::TrackId track, TileKind kind, int band = 0);
    DecodedTile readTile(model::TrackId track, const TileRef& ref, TileKind kind);
    /// The longest interval of one duration band of a track, or -1 when the band is empty.
    model::TimeNs bandMaxDurationNs(model::TrackId track, int band) const;
    /// The interned call stacks: entry i >= 1 is (parent, frame); entry 0 is the root.
    std::vector<std::pair<model::StackId, model::StringId>> stackFrames();

private:
    struct RunTables;
    std::size_t shardOf(model::TrackId track) const;
    model::TrackId local(model::TrackId track, std::size_t shard) const;
    void openStore();
    void openRun(SqliteDb& manifest);
    /// Reads the indexes of `tracks` that the cache lacks on two cores, up to ~`budget`.
    void readColdIndexes(const std::vector<model::TrackId>& tracks, std::size_t budget);
    /// Calls body(item, worker) for every item in [0, count), each taken by this thread
    /// (worker 0) or the reader's helper thread (worker 1) when it is free: a worker runs
    /// one item at a time. Rethrows the first exception raised (HelperThread::run).
    void onTwoCores(
        std::size_t count, const std::function<void(std::size_t item, int worker)>& body);

    std::filesystem::path m_path;
    bool m_isRun = false;
    mutable std::mutex m_mutex;  ///< one public call at a time
    std::shared_ptr<SharedTileCache> m_cache;
    std::vector<std::unique_ptr<ShardReader>> m_shards;
    std::vector<ShardInfo> m_shardInfo;
    std::unique_ptr<RunTables> m_run;  ///< a run's own tables; null for a single store
    std::unique_ptr<HelperThread> m_secondCore;  ///< made on first use
    const model::StringTable* m_strings = nullptr;
    const model::ResourceTree* m_resources = nullptr;
    const model::StackTable* m_stacks = nullptr;
    const std::map<std::string, std::string>* m_meta = nullptr;
    const std::vector<TrackSummary>* m_summaries = nullptr;
    const std::map<model::StringId, CategoryTotals>* m_categories = nullptr;
    model::LodGrid m_grid;
    model::TimeRange m_span;
    model::TimeRange m_activitySpan;
};

} // namespace strata::storage
