// StoreReader: a single store, or a run's manifest and its shards, read as one store
// (store_reader.h). Each call goes to the ShardReader holding the track, with the track's
// local id; what comes back already names the run's strings, stacks and tracks.

#include "storage/store/store_reader.h"

#include "storage/store/helper_thread.h"
#include "storage/store/input_error.h"
#include "storage/store/run_manifest.h"
#include "storage/store/shard_reader.h"
#include "storage/store/shard_reader_p.h"
#include "storage/store/store_schema.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace strata::storage {

/// What a run keeps beside its shards: the manifest's tables and the merged figures.
struct StoreReader::RunTables
{
    RunManifest manifest;
    std::vector<TrackSummary> summaries;
    std::map<model::StringId, CategoryTotals> categories;
};

namespace {

std::string formatOf(const std::filesystem::path& path)
{
    SqliteDb db(path, SqliteDb::Mode::Published);
    std::optional<SqliteStatement> stmt;
    try {
        stmt.emplace(db.prepare("SELECT value FROM meta WHERE key = 'format'"));
    } catch (const StoreError&) {
        throw StoreError(path.string() + ": not a Strata store (no 'meta' table)");
    }
    return stmt->step() ? std::string(stmt->text(0)) : std::string();
}

/// Tile ids of different shards must not meet in the shared cache.
constexpr int kCacheKeyShardShift = 40;

} // namespace

StoreReader::StoreReader(const std::filesystem::path& path)
    : StoreReader(path, Options {})
{
}

StoreReader::StoreReader(const std::filesystem::path& path, Options options)
    : m_path(path)
    , m_cache(std::make_shared<SharedTileCache>(options.cacheBytes, options.indexBytes))
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw StoreError(path.string() + ": no such store file");
    // A run's manifest says so in its meta; anything else is for ShardReader to judge.
    std::string format;
    try {
        format = formatOf(path);
    } catch (const StoreError&) {
    }
    if (format == kRunFormatName) {
        SqliteDb manifest(path, SqliteDb::Mode::Published);
        openRun(manifest);
    } else {
        openStore();
    }
}

StoreReader::~StoreReader() = default;

void StoreReader::openStore()
{
    auto shard = std::make_unique<ShardReader>(m_path, ShardReader::Context {m_cache, 0, nullptr});
    if (!shard->foreignTracks().empty())
        throw StoreError(m_path.string() + ": a shard of a run, not a whole store (its flows reach "
            + std::to_string(shard->foreignTracks().size())
            + " tracks of other shards): open the run's manifest");
    m_strings = &shard->strings();
    m_resources = &shard->resources();
    m_stacks = &shard->stacks();
    m_meta = &shard->allMeta();
    m_summaries = &shard->summaries();
    m_categories = &shard->categories();
    m_grid = shard->grid();
    m_span = shard->span();
    m_activitySpan = shard->activitySpan();
    ShardInfo info;
    info.path = m_path;
    info.tracks = shard->resources().size();
    for (const TrackSummary& s : shard->summaries())
        info.events += s.intervals + s.instants + s.counters + s.flows + s.samples;
    std::error_code ec;
    info.bytes = std::filesystem::file_size(m_path, ec);
    m_shardInfo.push_back(std::move(info));
    m_shards.push_back(std::move(shard));
}

std::size_t StoreReader::verifyShards(const ProgressFn& progress) const
{
    if (!m_run)
        return 0;
    const auto& shards = m_run->manifest.shards;
    std::uint64_t total = 0, done = 0;
    for (const RunShard& s : shards)
        total += s.bytes;
    for (const RunShard& s : shards) {
        if (progress && !progress(done, total))
            throw Cancelled();
        if (!fileHasChecksum(shardFile(m_path, s.path), s.checksum))
            throw StoreError(m_path.string() + ": shard " + s.path
                             + " is altered: its content differs from the checksum the manifest lists");
        done += s.bytes;
    }
    if (progress)
        progress(total, total);
    return shards.size();
}

void StoreReader::openRun(SqliteDb& manifestDb)
{
    m_isRun = true;
    m_run = std::make_unique<RunTables>();
    try {
        m_run->manifest = readRunManifest(manifestDb, m_path);
    } catch (const StoreError&) {
        throw;
    } catch (const std::exception& e) {
        throw StoreError(m_path.string() + ": corrupted manifest: " + e.what());
    }
    RunManifest& run = m_run->manifest;
    m_strings = &run.strings;
    m_resources = &run.tracks;
    m_stacks = &run.stacks;
    m_meta = &run.meta;
    m_summaries = &m_run->summaries;
    m_categories = &m_run->categories;
    // Opening a shard is mostly waiting for a few pages of its file (its head and last
    // 64 KiB, its metadata tables): the shards are opened side by side, a few at a time,
    // then checked and merged in order, so the first bad shard is the one named.
    const std::size_t count = run.shards.size();
    std::vector<std::unique_ptr<ShardReader>> opened(count);
    std::vector<std::exception_ptr> errors(count);
    std::atomic<std::size_t> nextShard = 0;
    auto openShards = [&] {
        for (std::size_t i; (i = nextShard++) < count;) {
            try {
                const RunShard& s = run.shards[i];
                const std::filesystem::path file = shardFile(m_path, s.path);
                const std::string name = m_path.string() + ": shard " + s.path;
                std::error_code ec;
                if (!std::filesystem::is_regular_file(file, ec))
                    throw StoreError(name + " is missing");
                if (std::filesystem::file_size(file, ec) != s.bytes
                    || headChecksum(file) != s.headChecksum)
                    throw StoreError(name
                        + " is not the file the manifest lists (truncated, altered or replaced)");
                opened[i] = std::make_unique<ShardReader>(file,
                    ShardReader::Context { m_cache,
                        static_cast<std::int64_t>(i) << kCacheKeyShardShift, &run.ids[i] });
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    {
        constexpr std::size_t kOpenThreads = 4;
        std::vector<std::jthread> threads;
        for (std::size_t t = 1; t < std::min(kOpenThreads, count); ++t)
            threads.emplace_back(openShards);
        openShards();
    }
    std::optional<model::TimeRange> span;
    for (std::size_t i = 0; i < count; ++i) {
        if (errors[i])
            std::rethrow_exception(errors[i]);
        const RunShard& s = run.shards[i];
        const std::filesystem::path file = shardFile(m_path, s.path);
        const std::string name = m_path.string() + ": shard " + s.path;
        std::unique_ptr<ShardReader> shard = std::move(opened[i]);
        const ShardIds& ids = run.ids[i];
        if (static_cast<std::int64_t>(shard->resources().size()) != s.tracks
            || shard->stringCount() != ids.strings.size() || shard->stacks().size() != ids.stacks.size())
            throw StoreError(name + " does not hold the tracks, strings and stacks the manifest lists");
        if (shard->foreignTracks().size() != ids.foreignTracks.size())
            throw StoreError(name + " has flows to " + std::to_string(shard->foreignTracks().size())
                + " tracks of other shards, the manifest resolves "
                + std::to_string(ids.foreignTracks.size()));
        const model::LodGrid& grid = shard->grid();
        if (i == 0)
            m_grid = grid;
        if (grid.baseBucketNs != m_grid.baseBucketNs || grid.factorLog2 != m_grid.factorLog2)
            throw StoreError(name + " has another level-of-detail grid than the run's first shard");
        m_grid.levels = std::max(m_grid.levels, grid.levels);
        span = span ? model::TimeRange {std::min(span->startNs, shard->span().startNs),
                                        std::max(span->endNs, shard->span().endNs)}
                    : shard->span();
        m_run->summaries.insert(m_run->summaries.end(), shard->summaries().begin(), shard->summaries().end());
        for (const auto& [category, totals] : shard->categories()) {
            CategoryTotals& t = m_run->categories[ids.strings.at(category)];
            t.intervals += totals.intervals;
            t.totalNs += totals.totalNs;
        }
        ShardInfo info;
        info.path = file;
        info.firstTrack = s.firstTrack;
        info.tracks = static_cast<std::size_t>(s.tracks);
        info.events = s.events;
        info.bytes = s.bytes;
        m_shardInfo.push_back(std::move(info));
        m_shards.push_back(std::move(shard));
    }
    m_span = span.value_or(model::TimeRange {});
    m_activitySpan = shard_reader_detail::activityOf(m_run->summaries).value_or(m_span);
}

std::size_t StoreReader::shardOf(model::TrackId track) const
{
    if (track >= m_resources->size())
        throw std::out_of_range("StoreReader: unknown track " + std::to_string(track));
    if (m_shardInfo.size() == 1)
        return 0;
    auto it = std::upper_bound(m_shardInfo.begin(), m_shardInfo.end(), track,
                               [](model::TrackId t, const ShardInfo& s) { return t < s.firstTrack; });
    return static_cast<std::size_t>(it - m_shardInfo.begin()) - 1;
}

model::TrackId StoreReader::local(model::TrackId track, std::size_t shard) const
{
    return track - m_shardInfo[shard].firstTrack;
}

std::optional<std::string> StoreReader::meta(const std::string& key) const
{
    auto it = m_meta->find(key);
    return it == m_meta->end() ? std::nullopt : std::optional<std::string>(it->second);
}

void StoreReader::readColdIndexes(const std::vector<model::TrackId>& tracks, std::size_t budget)
{
    // A track's index lists every tile of the track (~4 000 on the 1 B run, ~2 M
    // instructions to decode): a cold frame reads them before it can split its tracks
    // between cores, so the ones not cached are read on both cores first, each core on
    // its own connections, in the query's order, up to about the budget the query pins.
    std::vector<std::pair<std::size_t, model::TrackId>> cold;  // (shard, local track)
    for (const model::TrackId track : tracks) {
        const std::size_t shard = shardOf(track);
        if (!m_shards[shard]->indexCached(local(track, shard)))
            cold.emplace_back(shard, local(track, shard));
    }
    if (cold.size() < 2)
        return;
    std::atomic<std::size_t> next = 0, bytes = 0;
    auto read = [&](int slot) {
        for (std::size_t i; bytes < budget && (i = next++) < cold.size();)
            bytes += m_shards[cold[i].first]->index(cold[i].second, slot)->bytes;
    };
    onTwoCores(2, [&](std::size_t slot, int) { read(static_cast<int>(slot)); });
}

void StoreReader::onTwoCores(
    std::size_t count, const std::function<void(std::size_t item, int worker)>& body)
{
    if (!m_secondCore)
        m_secondCore = std::make_unique<HelperThread>();
    m_secondCore->run(count, body);
}

std::vector<TrackSlice> StoreReader::query(const ViewportQuery& q)
{
    if (q.endNs <= q.startNs || q.pixelWidth <= 0)
        throw std::invalid_argument("StoreReader::query: empty window or no pixels");
    std::lock_guard lock(m_mutex);
    std::vector<TrackSlice> out(q.tracks.size());
    // The tracks of each shard, in the query's order, with their tile indexes pinned.
    struct Part
    {
        std::size_t shard;
        std::vector<model::TrackId> tracks;  // local ids
        std::vector<ShardReader::IndexPtr> indexes;
        std::vector<std::size_t> slots;  // where they go in `out`
        std::vector<TrackSlice> slices;
    };
    // A query of every track of a large run (the overview strip's) would pin every index
    // at once: take the tracks a chunk at a time, each chunk's indexes within half the
    // index budget (and at least one track).
    const std::size_t pinBudget = m_cache->indexes.budget() / 2;
    readColdIndexes(q.tracks, pinBudget);
    for (std::size_t next = 0; next < q.tracks.size();) {
        std::map<std::size_t, Part> byShard;
        std::size_t pinned = 0, count = 0;
        for (; next < q.tracks.size() && (count == 0 || pinned < pinBudget); ++next, ++count) {
            const std::size_t shard = shardOf(q.tracks[next]);
            Part& part = byShard[shard];
            part.shard = shard;
            part.tracks.push_back(local(q.tracks[next], shard));
            part.indexes.push_back(
                m_shards[shard]->index(part.tracks.back()));  // main connection, before any split
            part.slots.push_back(next);
            pinned += part.indexes.back()->bytes;
        }
        std::vector<Part*> parts;
        for (auto& [shard, part] : byShard) {
            part.slices.resize(part.tracks.size());
            parts.push_back(&part);
        }
        // Many tracks go to both cores, a track at a time: each core takes the next track
        // no core has taken, and reads it on its own connection of the track's shard
        // (slot = worker), so no connection is used twice at once. The tracks of a
        // window cost unevenly (a busy thread's cells, a counter's samples, a stream's few
        // kernels): halves fixed in advance left one core idle for up to a third of a
        // cold jump of the 100 M run (59 ms against 39 ms).
        auto fill = [&](Part& part, std::size_t first, std::size_t last, int slot) {
            m_shards[part.shard]->fill(
                q, part.tracks, part.indexes, part.slices, first, last, slot);
        };
        constexpr std::size_t kSplitFrom = 8;
        if (count < kSplitFrom) {
            for (Part* part : parts)
                fill(*part, 0, part->tracks.size(), 0);
        } else {
            std::vector<std::pair<Part*, std::size_t>> tracks;
            tracks.reserve(count);
            for (Part* part : parts) {
                for (std::size_t k = 0; k < part->tracks.size(); ++k)
                    tracks.emplace_back(part, k);
            }
            // One core takes tracks from the front, the other from the back, until they
            // meet: each keeps to its own run of shards, as the fixed halves did, so a
            // connection's page cache sees the same tracks from one query to the next.
            std::mutex ends;
            std::size_t front = 0, back = tracks.size();
            onTwoCores(2, [&](std::size_t end, int worker) {
                for (;;) {
                    std::size_t i;
                    {
                        std::lock_guard taking(ends);
                        if (front == back)
                            return;
                        i = end == 0 ? front++ : --back;
                    }
                    fill(*tracks[i].first, tracks[i].second, tracks[i].second + 1, worker);
                }
            });
        }
        for (Part* part : parts) {
            for (std::size_t k = 0; k < part->slots.size(); ++k) {
                TrackSlice& slice = out[part->slots[k]];
                slice = std::move(part->slices[k]);
                slice.track = q.tracks[part->slots[k]];
            }
        }
    }
    return out;
}

std::vector<model::Interval> StoreReader::intervals(model::TrackId track, model::TimeNs startNs,
                                                    model::TimeNs endNs)
{
    return intervals(track, startNs, endNs, 0);
}

std::vector<model::Interval> StoreReader::intervals(model::TrackId track, model::TimeNs startNs,
                                                    model::TimeNs endNs, int fromBand)
{
    std::lock_guard lock(m_mutex);
    const std::size_t shard = shardOf(track);
    return m_shards[shard]->intervals(local(track, shard), startNs, endNs, fromBand);
}

std::vector<model::StackSample> StoreReader::stackSamples(model::TrackId track, model::TimeNs startNs,
                                                          model::TimeNs endNs)
{
    std::lock_guard lock(m_mutex);
    const std::size_t shard = shardOf(track);
    return m_shards[shard]->stackSamples(local(track, shard), startNs, endNs);
}

std::optional<CellContents> StoreReader::intervalCell(
    model::TrackId track, int level, std::int64_t bucket, model::Depth depth)
{
    std::lock_guard lock(m_mutex);
    const std::size_t shard = shardOf(track);
    return m_shards[shard]->intervalCell(local(track, shard), level, bucket, depth);
}

std::string StoreReader::intervalArgs(model::TrackId track, const model::Interval& interval)
{
    std::lock_guard lock(m_mutex);
    const std::size_t shard = shardOf(track);
    return m_shards[shard]->intervalArgs(local(track, shard), interval);
}

std::vector<KernelMetricInfo> StoreReader::kernelMetricNames()
{
    std::lock_guard lock(m_mutex);
    std::map<std::pair<model::StringId, model::StringId>, KernelMetricInfo> merged;
    for (const auto& shard : m_shards) {
        for (const KernelMetricInfo& info : shard->kernelMetricNames()) {
            auto [it, added] = merged.try_emplace({info.metric, info.unit}, info);
            if (added)
                continue;
            it->second.kernels += info.kernels;
            it->second.minValue = std::min(it->second.minValue, info.minValue);
            it->second.maxValue = std::max(it->second.maxValue, info.maxValue);
        }
    }
    std::vector<KernelMetricInfo> out;
    for (const auto& [key, info] : merged)
        out.push_back(info);
    std::stable_sort(out.begin(), out.end(), [this](const KernelMetricInfo& a, const KernelMetricInfo& b) {
        return m_strings->text(a.metric) < m_strings->text(b.metric);
    });
    return out;
}

std::vector<model::KernelMetric> StoreReader::kernelMetrics(model::TrackId track,
                                                            std::optional<model::StringId> metric)
{
    std::lock_guard lock(m_mutex);
    const std::size_t shard = shardOf(track);
    std::optional<model::StringId> shardMetric;
    if (metric && m_run) {
        // The run's id of the metric, back to the shard's.
        const auto& ids = m_run->manifest.ids[shard].strings;
        auto it = std::find(ids.begin(), ids.end(), *metric);
        if (it == ids.end())
            return {};
        shardMetric = static_cast<model::StringId>(it - ids.begin());
    } else {
        shardMetric = metric;
    }
    std::vector<model::KernelMetric> out = m_shards[shard]->kernelMetrics(local(track, shard), shardMetric);
    for (model::KernelMetric& m : out)
        m.track = track;
    return out;
}

std::optional<FlameLevelRange> StoreReader::flameLevels(model::TrackId track) const
{
    const std::size_t shard = shardOf(track);
    return m_shards[shard]->flameLevels(local(track, shard));
}

std::vector<FlameBucket> StoreReader::flameBuckets(model::TrackId track, int level, std::int64_t firstBucket,
                                                   std::int64_t endBucket)
{
    std::lock_guard lock(m_mutex);
    const std::size_t shard = shardOf(track);
    return m_shards[shard]->flameBuckets(local(track, shard), level, firstBucket, endBucket);
}

model::StackTable StoreReader::flamePaths(model::TrackId track)
{
    std::lock_guard lock(m_mutex);
    const std::size_t shard = shardOf(track);
    return m_shards[shard]->flamePaths(local(track, shard));
}

std::size_t StoreReader::cacheBytes() const
{
    std::lock_guard lock(m_cache->mutex);
    return m_cache->cache.bytes();
}

std::size_t StoreReader::cacheBudget() const
{
    return m_cache->cache.budget();
}

std::size_t StoreReader::indexBytes() const
{
    std::lock_guard lock(m_mutex);
    return m_cache->indexes.bytes();
}

std::uint64_t StoreReader::indexReads() const
{
    std::lock_guard lock(m_mutex);
    return m_cache->indexes.misses();
}

std::uint64_t StoreReader::tileReads() const
{
    std::lock_guard lock(m_cache->mutex);
    return m_cache->cache.misses();
}

std::size_t StoreReader::sqliteCacheBytes() const
{
    std::lock_guard lock(m_mutex);
    std::size_t bytes = 0;
    for (const auto& shard : m_shards)
        bytes += shard->sqliteCacheBytes();
    return bytes;
}

std::vector<TileRef> StoreReader::exactTiles(model::TrackId track, TileKind kind, int band)
{
    std::lock_guard lock(m_mutex);
    const std::size_t shard = shardOf(track);
    return m_shards[shard]->exactTiles(local(track, shard), kind, band);
}

DecodedTile StoreReader::readTile(model::TrackId track, const TileRef& ref, TileKind kind)
{
    std::lock_guard lock(m_mutex);
    return m_shards[shardOf(track)]->readTile(ref, kind);
}

model::TimeNs StoreReader::bandMaxDurationNs(model::TrackId track, int band) const
{
    if (track >= m_resources->size())
        return -1;
    const std::size_t shard = shardOf(track);
    return m_shards[shard]->bandMaxDurationNs(local(track, shard), band);
}

std::vector<std::pair<model::StackId, model::StringId>> StoreReader::stackFrames()
{
    std::vector<std::pair<model::StackId, model::StringId>> frames(1);
    for (model::StackId id = 1; id < m_stacks->size(); ++id)
        frames.emplace_back(m_stacks->parent(id), m_stacks->frame(id));
    return frames;
}

} // namespace strata::storage
