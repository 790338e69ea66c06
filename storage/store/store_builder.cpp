#include "storage/store/store_builder.h"

#include "storage/store/builder_tag.h"
#include "storage/store/flame_codec.h"
#include "storage/store/input_error.h"
#include "storage/store/mapping_pool.h"
#include "storage/store/run_builder.h"
#include "storage/store/spill_file.h"
#include "storage/store/sqlite_db.h"
#include "storage/store/store_schema.h"
#include "storage/store/store_tables.h"
#include "storage/store/tile_codec.h"
#include "storage/store/tile_slots.h"
#include "storage/store/track_buffer.h"
#include "storage/store/track_pieces.h"
#include "storage/store/track_schedule.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#ifndef STRATA_VERSION
#define STRATA_VERSION "0"
#endif

namespace strata::storage {

namespace {

void fsyncPath(const std::filesystem::path& path, bool directory)
{
    const int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
    if (fd < 0)
        throw StoreError(path.string() + ": cannot open for fsync");
    const int rc = ::fsync(fd);
    ::close(fd);
    if (rc != 0 && !directory)
        throw StoreError(path.string() + ": fsync failed");
}

/// Starts the disk writes of a store file while it is being built (Linux
/// sync_file_range, which does not wait for them), so that the fsync before the rename
/// waits for the last few MB only: it had waited 150-230 ms for the 34 MB store of
/// t2m.prv, 6-9 % of that ingest, with the cores idle (80-105 ms with this).
class EarlyWriteback
{
public:
    explicit EarlyWriteback(const std::filesystem::path& file)
        : m_fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC))
    {}
    ~EarlyWriteback()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    EarlyWriteback(const EarlyWriteback&) = delete;
    EarlyWriteback& operator=(const EarlyWriteback&) = delete;

    /// Notes `bytes` more handed to SQLite; every kStepBytes, starts writing what the
    /// file holds by now (SQLite spills its page cache to it as the build goes).
    void wrote(std::size_t bytes)
    {
        m_pending += bytes;
        if (m_pending < kStepBytes || m_fd < 0)
            return;
        m_pending = 0;
#ifdef __linux__
        ::sync_file_range(m_fd, 0, 0, SYNC_FILE_RANGE_WRITE);  // a hint: errors do not matter
#endif
    }

private:
    static constexpr std::size_t kStepBytes = 4 << 20;
    int m_fd;
    std::size_t m_pending = 0;
};

/// Why a file could not be created, in words a user can act on ("permission denied"),
/// rather than the C library's ("Permission denied", "Not a directory").
std::string creationFailure(int error)
{
    switch (error) {
    case EACCES:
    case EPERM:
        return "permission denied";
    case EROFS:
        return "read-only file system";
    case ENOTDIR:
        return "not a directory (a part of the path is a file)";
    case ENOENT:
        return "no such directory";
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
        return "the disk is full";
    default:
        return std::strerror(error);
    }
}

/// The strings in text order: `renamed[id]` is the new id of string `id`, and `sorted`
/// the table under the new ids. Summaries break ties between equally covering names by
/// id, so with ids in text order a store's bytes do not depend on the order its names
/// arrived in, and the shards of a run (run_builder.h) tie-break as the single store.
std::vector<model::StringId> textOrder(const model::StringTable& strings, model::StringTable& sorted)
{
    std::vector<model::StringId> byText(strings.size());
    for (std::size_t i = 0; i < byText.size(); ++i)
        byText[i] = static_cast<model::StringId>(i);
    std::sort(byText.begin(), byText.end(),
              [&](model::StringId a, model::StringId b) { return strings.text(a) < strings.text(b); });
    std::vector<model::StringId> renamed(byText.size());
    for (model::StringId id : byText)
        renamed[id] = sorted.intern(strings.text(id));
    return renamed;
}

/// Strings in text order; flows to foreign tracks at `tracks` + their index.
void rename(
    StoreBuilder::TrackBuffer& b, const std::vector<model::StringId>& renamed, std::size_t tracks)
{
    for (model::Interval& e : b.intervals) {
        e.name = renamed[e.name];
        e.category = renamed[e.category];
    }
    for (model::Instant& e : b.instants) {
        e.name = renamed[e.name];
        e.category = renamed[e.category];
    }
    for (model::Flow& f : b.flows) {
        f.name = renamed[f.name];
        if (f.toTrack != model::kNoTrack && f.toTrack >= StoreBuilder::kForeignTrackBase)
            f.toTrack =
                static_cast<model::TrackId>(tracks + (f.toTrack - StoreBuilder::kForeignTrackBase));
    }
}

/// The bytes of events each track holds: what tiling it costs. A spilled build gets equal
/// weights, so that its tracks are tiled in track order: each is read back from the spill
/// to be tiled, and the longest taken together held more than its budget planned for (a
/// 100 M-event synthetic run: peak RSS 532 -> 630 MB).
std::vector<std::uint64_t> trackWeights(
    const std::vector<std::unique_ptr<StoreBuilder::TrackBuffer>>& tracks, const SpillFile* spill)
{
    std::vector<std::uint64_t> weights(tracks.size(), 0);
    for (std::size_t i = 0; i < tracks.size() && !spill; ++i) {
        const StoreBuilder::TrackBuffer& b = *tracks[i];
        weights[i] = b.intervals.size() * sizeof(model::Interval) + b.intervalArgs.bytes.size()
            + b.instants.size() * sizeof(model::Instant) + b.instantArgs.bytes.size()
            + b.counters.size() * sizeof(model::CounterSample)
            + b.flows.size() * sizeof(model::Flow) + b.samples.size() * sizeof(model::StackSample);
    }
    return weights;
}

/// Runs tileTrack on worker threads and hands results out in track order. Workers may
/// always run 2 x threads tracks ahead of the consumer (the writer), and further while the
/// results waiting for it hold less than `heldBudget` bytes in memory: a long track that
/// keeps the writer waiting would otherwise stop the other workers after a few short
/// tracks (t2m.prv, 49 tracks: the tiling phase's two cores 80 % busy, now 98 %).
/// At most kMaxAhead results wait: each may hold an open spool file. Of the tracks it may
/// start, a worker takes the longest (track_schedule.h). With `slots`, a worker tiles only
/// while it holds one (StoreBuildOptions::tileSlots).
class TrackPipeline
{
public:
    TrackPipeline(std::vector<std::unique_ptr<StoreBuilder::TrackBuffer>>& tracks,
        const SpillFile* spill, const std::vector<model::StringId>& renamed,
        const model::LodGrid& grid, int zstdLevel, int threads, std::shared_ptr<TileSlots> slots,
        FlameSummaryOptions flame, std::filesystem::path spoolFolder, std::size_t spoolMemoryBytes,
        std::size_t heldBudget, std::size_t pieceBytes)
        : m_tracks(tracks)
        , m_spill(spill)
        , m_renamed(renamed)
        , m_grid(grid)
        , m_zstdLevel(zstdLevel)
        , m_slots(std::move(slots))
        , m_flame(flame)
        , m_spoolFolder(std::move(spoolFolder))
        , m_spoolMemoryBytes(spoolMemoryBytes)
        , m_results(tracks.size())
        , m_schedule(trackWeights(tracks, spill))
        , m_lookahead(static_cast<std::size_t>(2 * std::max(1, threads)))
        , m_heldBudget(heldBudget)
        , m_pieceBytes(pieceBytes)
    {
        for (int i = 0; i < std::max(1, threads); ++i)
            m_workers.emplace_back([this] { work(); });
    }

    ~TrackPipeline()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_stopping = true;
        m_cv.notify_all();
        if (m_slots)
            m_slots->wake();
        for (auto& w : m_workers)
            w.join();
    }

    /// Tracks tiled in pieces so far (track_pieces.h).
    std::size_t tracksInPieces() const { return m_tiledInPieces; }

    TrackTiles take(std::size_t index)
    {
        std::unique_lock lock(m_mutex);
        m_cv.wait(lock, [&] { return m_results[index].has_value(); });
        Result r = std::move(*m_results[index]);
        m_results[index].reset();
        m_consumed = index + 1;
        m_heldBytes -= r.heldBytes;
        m_cv.notify_all();
        if (r.error)
            std::rethrow_exception(r.error);
        return std::move(r.tiles);
    }

private:
    struct Result
    {
        TrackTiles tiles;
        std::exception_ptr error;
        std::size_t heldBytes = 0;  ///< the result's memory while it waits
    };

    static constexpr std::size_t kMaxAhead = 64;

    /// Gives back the slot taken (if any) at destruction.
    class SlotHold
    {
    public:
        explicit SlotHold(TileSlots* slots)
            : m_slots(slots)
        {}
        ~SlotHold()
        {
            if (m_slots)
                m_slots->release();
        }
        SlotHold(const SlotHold&) = delete;
        SlotHold& operator=(const SlotHold&) = delete;

    private:
        TileSlots* m_slots;
    };

    /// The tracks a worker may start now: those the consumer allows ahead of it.
    std::size_t startableEnd() const
    {
        const std::size_t ahead =
            m_heldBytes < m_heldBudget ? std::max(kMaxAhead, m_lookahead) : m_lookahead;
        return std::min(m_tracks.size(), m_consumed + ahead);
    }

    bool mayStart() const { return m_schedule.firstUntaken() < startableEnd(); }

    void work()
    {
        for (;;) {
            std::size_t index;
            {
                std::unique_lock lock(m_mutex);
                m_cv.wait(lock, [&] { return m_stop || mayStart(); });
                if (m_stop)
                    return;
                index = m_schedule.take(startableEnd());
            }
            // The track is taken before a slot, so that a worker never holds a slot while
            // it waits for the writer.
            if (m_slots && !m_slots->acquire(m_stopping))
                return;
            const SlotHold slot(m_slots.get());
            Result r;
            try {
                const auto track = static_cast<model::TrackId>(index);
                PayloadSpool spool(m_spoolFolder, m_spoolMemoryBytes);
                if (m_spill && tiledInPieces(m_spill->eventBytes(track), m_pieceBytes)) {
                    ++m_tiledInPieces;
                    r.tiles = tileTrackInPieces(
                        *m_spill, track, *m_tracks[index],
                        [this](StoreBuilder::TrackBuffer& b) {
                            rename(b, m_renamed, m_tracks.size());
                        },
                        m_grid, m_zstdLevel, m_flame, std::move(spool), m_pieceBytes);
                } else {
                    if (m_spill)
                        m_spill->reload(track, *m_tracks[index]);
                    rename(*m_tracks[index], m_renamed, m_tracks.size());
                    r.tiles =
                        tileTrack(*m_tracks[index], m_grid, m_zstdLevel, m_flame, std::move(spool));
                }
            } catch (...) {
                r.error = std::current_exception();
            }
            m_tracks[index].reset();
            r.heldBytes = r.tiles.payloads.memoryBytes()
                + r.tiles.tiles.capacity() * sizeof(TileRow)
                + r.tiles.flame.rows.capacity() * sizeof(FlameRow) + r.tiles.flame.paths.capacity();
            {
                std::lock_guard lock(m_mutex);
                m_heldBytes += r.heldBytes;
                m_results[index] = std::move(r);
            }
            m_cv.notify_all();
        }
    }

    std::vector<std::unique_ptr<StoreBuilder::TrackBuffer>>& m_tracks;
    const SpillFile* m_spill;
    const std::vector<model::StringId>& m_renamed;
    const model::LodGrid m_grid;
    const int m_zstdLevel;
    const std::shared_ptr<TileSlots> m_slots;
    const FlameSummaryOptions m_flame;
    const std::filesystem::path m_spoolFolder;
    const std::size_t m_spoolMemoryBytes;
    std::vector<std::optional<Result>> m_results;
    TrackSchedule m_schedule;  ///< which track a worker takes next
    const std::size_t m_lookahead;
    const std::size_t m_heldBudget;
    const std::size_t m_pieceBytes;
    std::size_t m_heldBytes = 0;  ///< of the results waiting for the consumer
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::size_t m_consumed = 0;
    bool m_stop = false;
    std::atomic<bool> m_stopping = false;  ///< m_stop, for the workers waiting for a slot
    std::atomic<std::size_t> m_tiledInPieces = 0;
    std::vector<std::thread> m_workers;
};

} // namespace

StoreBuilder::StoreBuilder(std::filesystem::path target, StoreBuildOptions options)
    : m_target(std::move(target))
    , m_options(std::move(options))
    , m_stacks(1)
{
    m_temp = m_target.parent_path()
             / ("." + m_target.filename().string() + ".tmp." + builderTag());
    // Create the temporary file now: a folder we cannot write fails at once, with its
    // reason, not after a long import as a failed SQLite write ("is the disk full?").
    const int fd = ::open(m_temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        throw StoreError("cannot create " + m_target.string() + ": " + creationFailure(errno));
    ::close(fd);
}

StoreBuilder::~StoreBuilder()
{
    m_spill.reset();
    std::error_code ignored;
    std::filesystem::remove(m_temp, ignored);
}

model::TrackId StoreBuilder::addTrack(model::TrackId parent, model::ResourceKind kind,
                                      std::string name, std::int64_t sortKey, std::string unit)
{
    if (m_tracks.size() >= kForeignTrackBase)
        throw std::length_error("StoreBuilder: too many tracks");
    m_tracks.push_back(std::make_unique<TrackBuffer>());
    m_spans.emplace_back();
    return m_resources.add(parent, kind, std::move(name), sortKey, std::move(unit));
}

void StoreBuilder::setMeta(std::string key, std::string value)
{
    m_meta[std::move(key)] = std::move(value);
}

StoreBuilder::TrackBuffer& StoreBuilder::buffer(model::TrackId track)
{
    if (track >= m_tracks.size())
        throw std::out_of_range("StoreBuilder: event on unknown track " + std::to_string(track));
    ++m_events;
    return *m_tracks[track];
}

void StoreBuilder::account(std::size_t bytes)
{
    m_bufferedBytes += bytes;
    // Vectors grow by doubling, so what they hold may be up to twice what was added.
    if (2 * m_bufferedBytes > m_options.memoryBudgetBytes)
        spillEvents();
}

void StoreBuilder::spillEvents()
{
    if (m_bufferedBytes == 0)
        return;
    if (!m_spill) {
        m_spill = std::make_unique<SpillFile>(
            m_target.parent_path() / ("." + m_target.filename().string() + ".spill." + builderTag()));
    }
    for (std::size_t track = 0; track < m_tracks.size(); ++track)
        m_spill->spill(static_cast<model::TrackId>(track), *m_tracks[track]);
    m_bufferedBytes = 0;
    m_reservedBytes = 0;
}

std::size_t StoreBuilder::heldBytes() const
{
    std::size_t bytes = 0;
    for (const auto& track : m_tracks)
        bytes += track ? bufferedBytes(*track) : 0;
    return bytes;
}

void StoreBuilder::Span::note(model::TimeNs startNs, model::TimeNs endNs)
{
    if (!any) {
        minNs = startNs;
        maxNs = endNs;
        any = true;
    } else {
        minNs = std::min(minNs, startNs);
        maxNs = std::max(maxNs, endNs);
    }
}

std::optional<model::TimeRange> StoreBuilder::eventSpan() const
{
    Span all = m_extraSpan;
    for (const Span& span : m_spans) {
        if (span.any)
            all.note(span.minNs, span.maxNs);
    }
    return all.any ? std::optional(model::TimeRange { all.minNs, all.maxNs }) : std::nullopt;
}

void StoreBuilder::extendSpan(model::TimeRange span)
{
    m_extraSpan.note(span.startNs, span.endNs);
}

RevisableSink::Mark StoreBuilder::mark() const
{
    return { m_tracks.size(), m_strings.size(), m_stacks.size(), m_foreign.size(),
        m_kernelMetrics.size(), m_events };
}

void StoreBuilder::rollback(const Mark& mark)
{
    if (m_finished || mark.tracks > m_tracks.size() || mark.events > m_events)
        throw std::logic_error("StoreBuilder::rollback: not a mark of this build");
    m_tracks.resize(mark.tracks);
    m_spans.resize(mark.tracks);
    m_resources.truncate(mark.tracks);
    m_strings.truncate(mark.strings);
    m_stacks.resize(std::min(m_stacks.size(), std::max<std::size_t>(mark.stacks, 1)));
    std::erase_if(m_stackIds, [&](const auto& entry) { return entry.second >= m_stacks.size(); });
    m_foreign.resize(std::min(m_foreign.size(), mark.foreignTracks));
    std::erase_if(m_foreignIds,
        [&](const auto& entry) { return entry.second - kForeignTrackBase >= m_foreign.size(); });
    m_kernelMetrics.resize(std::min(m_kernelMetrics.size(), mark.kernelMetrics));
    m_events = mark.events;
    if (m_spill)
        m_spill->forgetTracksFrom(static_cast<model::TrackId>(mark.tracks));
    m_bufferedBytes = heldBytes();
    m_reservedBytes = 0;
}

void StoreBuilder::describeTrack(
    model::TrackId track, model::ResourceKind kind, std::string name, std::int64_t sortKey)
{
    if (track >= m_tracks.size())
        throw std::out_of_range("StoreBuilder: describing unknown track " + std::to_string(track));
    model::TrackInfo& info = m_resources.track(track);
    info.kind = kind;
    info.name = std::move(name);
    info.sortKey = sortKey;
}

void StoreBuilder::shiftTracks(model::TrackId first, model::TrackId end, model::TimeNs deltaNs)
{
    if (first > end || end > m_tracks.size())
        throw std::out_of_range("StoreBuilder: shifting unknown tracks");
    if (deltaNs == 0)
        return;
    for (model::TrackId track = first; track < end; ++track) {
        shiftEvents(*m_tracks[track], deltaNs);
        if (m_spill)
            m_spill->shiftTrack(track, deltaNs);
        Span& span = m_spans[track];
        span.minNs += deltaNs;
        span.maxNs += deltaNs;
    }
    for (model::KernelMetric& metric : m_kernelMetrics) {
        if (metric.track >= first && metric.track < end)
            metric.startNs += deltaNs;
    }
}

void StoreBuilder::addInterval(model::TrackId track, const model::Interval& interval,
                               std::string_view args)
{
    if (interval.endNs < interval.startNs)
        throw std::invalid_argument("StoreBuilder: interval ends before it starts");
    TrackBuffer& buf = buffer(track);
    model::Interval& e = buf.intervals.emplace_back(interval);
    e.seq = buf.intervalsSeen++;
    appendArgs(buf.intervalArgs, buf.intervals.size() - 1, args);
    noteTime(track, interval.startNs, interval.endNs);
    account(sizeof(model::Interval) + args.size());
}

void StoreBuilder::expectIntervals(model::TrackId track, std::size_t count, std::size_t argBytes)
{
    const std::size_t bytes =
        count * (sizeof(model::Interval) + (argBytes > 0 ? sizeof(std::uint64_t) : 0)) + argBytes;
    if (track >= m_tracks.size() || m_reservedBytes + bytes > m_options.memoryBudgetBytes / 4)
        return;
    m_reservedBytes += bytes;
    TrackBuffer& buf = *m_tracks[track];
    buf.intervals.reserve(buf.intervals.size() + count);
    if (argBytes > 0) {
        buf.intervalArgs.ends.reserve(buf.intervals.size() + count);
        buf.intervalArgs.bytes.reserve(buf.intervalArgs.bytes.size() + argBytes);
    }
}

void StoreBuilder::addInstant(model::TrackId track, const model::Instant& instant,
                              std::string_view args)
{
    TrackBuffer& buf = buffer(track);
    buf.instants.push_back(instant);
    appendArgs(buf.instantArgs, buf.instants.size() - 1, args);
    noteTime(track, instant.timeNs, instant.timeNs);
    account(sizeof(model::Instant) + args.size());
}

void StoreBuilder::addCounterSample(model::TrackId track, const model::CounterSample& sample)
{
    buffer(track).counters.push_back(sample);
    noteTime(track, sample.timeNs, sample.timeNs);
    account(sizeof(model::CounterSample));
}

void StoreBuilder::addFlow(model::TrackId fromTrack, const model::Flow& flow)
{
    if (flow.toTrack != model::kNoTrack && flow.toTrack >= m_tracks.size()
        && (flow.toTrack < kForeignTrackBase
            || flow.toTrack - kForeignTrackBase >= m_foreign.size()))
        throw std::out_of_range("StoreBuilder: flow to unknown track");
    buffer(fromTrack).flows.push_back(flow);
    noteTime(fromTrack, std::min(flow.fromNs, flow.toNs), std::max(flow.fromNs, flow.toNs));
    account(sizeof(model::Flow));
}

model::TrackId StoreBuilder::addForeignTrack(const TrackPath& path)
{
    if (path.empty())
        throw std::invalid_argument("StoreBuilder: a foreign track without a path");
    auto [it, added] = m_foreignIds.try_emplace(
        path, static_cast<model::TrackId>(kForeignTrackBase + m_foreign.size()));
    if (added)
        m_foreign.push_back(path);
    return it->second;
}

model::StackId StoreBuilder::internStack(model::StackId parent, model::StringId frame)
{
    if (parent >= m_stacks.size())
        throw std::out_of_range("StoreBuilder: unknown parent stack");
    auto [it, inserted] = m_stackIds.try_emplace({parent, frame},
                                                 static_cast<model::StackId>(m_stacks.size()));
    if (inserted)
        m_stacks.emplace_back(parent, frame);
    return it->second;
}

void StoreBuilder::addStackSample(model::TrackId track, const model::StackSample& sample)
{
    if (sample.stack >= m_stacks.size())
        throw std::out_of_range("StoreBuilder: sample of unknown stack");
    buffer(track).samples.push_back(sample);
    noteTime(track, sample.timeNs, sample.timeNs);
    account(sizeof(model::StackSample));
}

void StoreBuilder::addKernelMetric(const model::KernelMetric& metric)
{
    if (metric.track >= m_tracks.size())
        throw std::out_of_range("StoreBuilder: kernel metric on unknown track");
    m_kernelMetrics.push_back(metric);
}

namespace {

/// A track's flame buckets, kFlameBucketsPerGroup to a row (flame_codec.h), by level and
/// group: they come window by window, the levels interleaved.
void writeFlameGroups(BatchedInsert& insert, std::int64_t track, const std::vector<FlameRow>& rows,
    const PayloadSpool& payloads, std::string& spooled)
{
    std::vector<const FlameRow*> order;
    order.reserve(rows.size());
    for (const FlameRow& row : rows)
        order.push_back(&row);
    std::sort(order.begin(), order.end(), [](const FlameRow* a, const FlameRow* b) {
        return std::tie(a->level, a->bucket) < std::tie(b->level, b->bucket);
    });
    ByteWriter group;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const FlameRow& row = *order[i];
        appendToFlameGroup(group, row.bucket, payloads.read(row.payload, spooled));
        const FlameRow* next = i + 1 < order.size() ? order[i + 1] : nullptr;
        if (next && next->level == row.level && next->bucket == row.bucket)
            throw std::logic_error("StoreBuilder: flame bucket " + std::to_string(row.bucket)
                + " of level " + std::to_string(row.level) + " twice");
        if (!next || next->level != row.level
            || flameGroup(next->bucket) != flameGroup(row.bucket)) {
            insert.value(track)
                .value(std::int64_t(row.level))
                .value(flameGroup(row.bucket))
                .blob(group.bytes())
                .endRow();
            group.bytes().clear();
        }
    }
    insert.flush();
}

/// Stores are written with 1 KiB pages: a payload a little longer than what fits a page
/// fills a page and leaves the rest empty, about half a page per tile, which at 4 KiB
/// pages left a quarter of the tiles table unused (epoch_16proc: 1.8 of 7.0 MB; the
/// 2M-event synthetic .prv store: 39.6 -> 33.9 MB at 1 KiB, query times within noise).
constexpr int kPageBytes = 1024;

/// SQLite gives every table and index at least one page (14 here): small stores are
/// rewritten with 512-byte pages, the smallest (a trace of a few hundred bytes made a
/// 57 KB store at 4 KiB pages). Not bigger ones: VACUUM holds a copy of the store.
void shrinkPages(SqliteDb& db)
{
    std::int64_t bytes = 0;
    {
        auto count = db.prepare("PRAGMA page_count");
        bytes = count.step() ? count.int64(0) * kPageBytes : 0;
    }  // finalized: VACUUM refuses to run beside a statement
    if (bytes <= (256 << 10))
        db.exec("PRAGMA page_size=512; VACUUM;");
}

}  // namespace

void StoreBuilder::finish()
{
    if (m_finished)
        throw std::logic_error("StoreBuilder::finish called twice");
    m_finished = true;
    std::error_code ignored;
    std::filesystem::remove(m_temp, ignored);
    // The tiling's columns reuse released ones' pages; not in a spilled build, whose
    // budget does not count the pool (a 100 M-event synthetic run: +45 MB peak RSS).
    std::optional<PooledMappings> reuse;
    if (!m_spill)
        reuse.emplace();
    try {
        const std::optional<model::TimeRange> span = eventSpan();
        const model::LodGrid grid =
            model::LodGrid::forSpan(std::max<model::TimeNs>(span ? span->endNs : 0, 1));
        {
            SqliteDb db(m_temp, SqliteDb::Mode::Create);
            // No journal: the file is private until the rename, which is our atomicity.
            db.exec(("PRAGMA page_size=" + std::to_string(kPageBytes)).c_str());
            db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                    " PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=MEMORY;");
            db.exec(kStoreSchemaSql);
            db.exec("BEGIN");
            EarlyWriteback writeback(m_temp);

            std::map<std::string, std::string> meta = m_meta;
            meta["format"] = kStoreFormatName;
            meta["format_version"] = std::to_string(kStoreFormatVersion);
            meta["tool_version"] = STRATA_VERSION;
            meta["lod_base_bucket_ns"] = std::to_string(grid.baseBucketNs);
            meta["lod_factor_log2"] = std::to_string(grid.factorLog2);
            meta["lod_levels"] = std::to_string(grid.levels);
            meta["span_start_ns"] = std::to_string(span ? span->startNs : 0);
            meta["span_end_ns"] = std::to_string(span ? span->endNs : 0);
            meta["events"] = std::to_string(m_events);
            auto insertMeta = db.prepare("INSERT INTO meta VALUES(?,?)");
            for (const auto& [k, v] : meta)
                insertMeta.bind(1, k).bind(2, v).run();

            model::StringTable sorted;
            const std::vector<model::StringId> renamed = textOrder(m_strings, sorted);
            writeStrings(db, sorted);
            writeTracks(db, m_resources);
            if (!m_foreign.empty())
                writeForeignTracks(db, m_foreign);
            auto insertStack = db.prepare("INSERT INTO stacks VALUES(?,?,?)");
            for (std::size_t i = 1; i < m_stacks.size(); ++i) {
                insertStack.bind(1, std::int64_t(i)).bind(2, std::int64_t(m_stacks[i].first))
                    .bind(3, std::int64_t(renamed[m_stacks[i].second])).run();
            }

            BatchedInsert insertTile(db, "tiles", 9);
            auto insertIndex = db.prepare("INSERT INTO tile_index VALUES(?,?)");
            auto insertBand = db.prepare("INSERT INTO bands VALUES(?,?,?,?)");
            auto insertStats = db.prepare("INSERT INTO track_stats VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
            std::int64_t tilesWritten = 0;
            std::map<model::StringId, std::pair<std::int64_t, model::TimeNs>> categories;
            if (m_spill)
                spillEvents();  // everything to disk first: while tracks are tiled, memory holds
                                // only them
            auto insertFlameLevels = db.prepare("INSERT INTO flame_levels VALUES(?,?,?)");
            auto insertFlamePaths = db.prepare("INSERT INTO flame_paths VALUES(?,?)");
            BatchedInsert insertFlameGroup(db, "flame_bucket_groups", 4);
            bool anyFlame = false;
            TrackPipeline pipeline(m_tracks, m_spill.get(), renamed, grid, m_options.zstdLevel,
                m_options.threads, m_options.tileSlots, m_options.flame,
                m_target.parent_path().empty() ? "." : m_target.parent_path(),
                m_options.spoolMemoryBytes, m_options.memoryBudgetBytes / 4,
                m_options.pieceBytes > 0 ? m_options.pieceBytes : m_options.memoryBudgetBytes / 8);
            std::string spooled;  // a payload read back from a track's spool
            for (std::size_t track = 0; track < m_tracks.size(); ++track) {
                const TrackTiles out = pipeline.take(track);
                const auto id = static_cast<std::int64_t>(track);
                std::vector<TileIndexEntry> index;
                index.reserve(out.tiles.size());
                for (const TileRow& row : out.tiles) {
                    if (m_options.abortAfterTiles >= 0 && tilesWritten >= m_options.abortAfterTiles)
                        throw std::runtime_error("store build aborted by the debug hook after "
                                                 + std::to_string(tilesWritten) + " tiles");
                    ++tilesWritten;  // tile ids are 1, 2, ... in write order
                    TileIndexEntry entry = row.entry;
                    entry.id = tilesWritten;
                    insertTile.value(entry.id)
                        .value(id)
                        .value(std::int64_t(entry.kind))
                        .value(std::int64_t(entry.level))
                        .value(entry.idx)
                        .value(entry.t0)
                        .value(entry.t1)
                        .value(entry.n)
                        .blob(out.payloads.read(row.payload, spooled))
                        .endRow();
                    index.push_back(entry);
                }
                insertTile.flush();  // before the next table's rows: the same page order
                std::sort(index.begin(), index.end(), [](const TileIndexEntry& a, const TileIndexEntry& b) {
                    return std::tie(a.kind, a.level, a.idx) < std::tie(b.kind, b.level, b.idx);
                });
                if (!index.empty())
                    insertIndex.bind(1, id).bindBlob(2, encodeTileIndex(index, m_options.zstdLevel)).run();
                if (!out.flame.rows.empty()) {
                    anyFlame = true;
                    insertFlameLevels.bind(1, id).bind(2, std::int64_t(out.flame.finestLevel))
                        .bind(3, std::int64_t(out.flame.coarsestLevel)).run();
                    if (!out.flame.paths.empty())
                        insertFlamePaths.bind(1, id).bindBlob(2, out.flame.paths).run();
                    writeFlameGroups(insertFlameGroup, id, out.flame.rows, out.payloads, spooled);
                }
                writeback.wrote(out.payloads.bytes());
                for (const BandStats& b : out.bands)
                    insertBand.bind(1, id).bind(2, std::int64_t(b.band)).bind(3, b.count)
                        .bind(4, b.maxDurationNs).run();
                const TrackStats& s = out.stats;
                for (const auto& [category, totals] : s.categories) {
                    categories[category].first += totals.first;
                    categories[category].second += totals.second;
                }
                insertStats.bind(1, id).bind(2, s.intervals).bind(3, s.instants).bind(4, s.counters)
                    .bind(5, s.flows).bind(6, s.samples).bind(7, s.firstNs).bind(8, s.lastNs)
                    .bind(9, std::int64_t(s.maxDepth)).bind(10, std::int64_t(s.intervalLevel))
                    .bind(11, std::int64_t(s.instantLevel)).bind(12, std::int64_t(s.counterLevel)).run();
                if (m_options.progress && !m_options.progress(track + 1, m_tracks.size()))
                    throw Cancelled();
            }
            m_tracksTiledInPieces = pipeline.tracksInPieces();
            // A kernel profiled twice keeps its last value of each metric.
            auto insertKernelMetric = db.prepare("INSERT OR REPLACE INTO kernel_metrics VALUES(?,?,?,?,?)");
            for (const model::KernelMetric& m : m_kernelMetrics) {
                insertKernelMetric.bind(1, std::int64_t(m.track)).bind(2, m.startNs)
                    .bind(3, std::int64_t(renamed[m.metric])).bind(4, m.value)
                    .bind(5, std::int64_t(renamed[m.unit])).run();
            }
            auto insertCategory = db.prepare("INSERT INTO categories VALUES(?,?,?)");
            for (const auto& [category, totals] : categories)
                insertCategory.bind(1, std::int64_t(category)).bind(2, totals.first).bind(3, totals.second).run();
            // No track with a pyramid: no flame tables, as in stores written before it
            // (their empty b-trees cost a small store a page each).
            if (!anyFlame)
                db.exec("DROP TABLE flame_bucket_groups; DROP TABLE flame_paths; DROP TABLE "
                        "flame_levels;");
            db.exec("COMMIT");
            shrinkPages(db);
        }
        m_spill.reset();
        fsyncPath(m_temp, false);
        std::filesystem::rename(m_temp, m_target);
        fsyncPath(m_target.parent_path().empty() ? "." : m_target.parent_path(), true);
        // A run of shards this store replaced leaves its shard folder behind otherwise.
        removeStaleRunFiles(m_target, {});
    } catch (const StoreError& e) {
        // A write failed (most often a full disk): name the store the user asked for,
        // not our temporary file, and say what to check.
        m_spill.reset();
        std::filesystem::remove(m_temp, ignored);
        throw StoreError(m_target.string() + ": cannot write the store (is the disk full?): " + e.what());
    } catch (const std::filesystem::filesystem_error& e) {
        m_spill.reset();
        std::filesystem::remove(m_temp, ignored);
        throw StoreError(m_target.string() + ": cannot write the store: " + e.code().message());
    } catch (...) {
        m_spill.reset();
        std::filesystem::remove(m_temp, ignored);
        throw;
    }
}

} // namespace strata::storage
