#pragma once
// StoreBuilder turns a stream of events (in any order) into a tile store file.
//
//   add*() ──> per-track buffers ──finish()──> per-track workers ──> one SQLite writer
//                                              sort, depth, bands,     (track order, so
//                                              exact tiles, levels,    the same input
//                                              zstd                    gives the same bytes)
//
// finish() writes into a temporary file next to the target, fsyncs it and renames it
// over the target, so a reader sees the old store or the new one, never half of one. If
// anything fails (bad input found late, I/O error, cancel, the debug abort hook) the
// temporary file is removed and an existing store at the target is untouched. A run of
// shards it replaced loses its shard folder once the rename is done (run_builder.h). The
// constructor creates the (empty) temporary file, so a target that cannot be created
// fails at once with the reason ("cannot create DIR/x.strata: permission denied").
//
// Memory: buffers hold events until they pass the budget, then go to a SpillFile; at
// finish() each track is reloaded just before it is tiled. Workers process 2 x threads
// tracks ahead of the writer, and more (at most 64) while the tiled tracks waiting for it
// hold under a quarter of the budget in memory, so peak memory is about 1.25 x the budget
// plus the tracks being tiled. A track whose events pass half the budget is tiled in
// pieces of an eighth of it (track_pieces.h), so a track of any length fits.
// Tiling a track holds its events and args, one window of its summary levels and flame pyramid at a
// time (level_summarizer.h, flame_summarizer.h), and a few MB of encoded tiles: the rest waits for
// the writer in a temporary file (payload_spool.h).

#include "model/lod_grid.h"
#include "storage/store/flame_summarizer.h"
#include "storage/store/progress.h"
#include "storage/store/trace_sink.h"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace strata::storage {

class SpillFile;

class TileSlots;  // tile_slots.h

struct StoreBuildOptions
{
    int threads = 2;
    /// When given, the workers tile only while they hold one of these slots: the shards
    /// of one run, each with as many workers as the run has cores, tile side by side on
    /// those cores, and the last shard still tiling gets all of them.
    std::shared_ptr<TileSlots> tileSlots;
    int zstdLevel = 6;
    /// Debug hook for fault-injection tests: throw after writing this many tiles.
    std::int64_t abortAfterTiles = -1;
    /// Called with tracks written / tracks in all.
    ProgressFn progress;
    /// Events buffered beyond this go to a spill file next to the store (spill_file.h).
    std::size_t memoryBudgetBytes = std::size_t(512) << 20;
    /// A track whose spilled events take more than 4 times this is tiled in pieces of
    /// about this size (track_pieces.h); 0: an eighth of the memory budget.
    std::size_t pieceBytes = 0;
    /// Which tracks and levels get a flame pyramid (flame_summarizer.h).
    FlameSummaryOptions flame;
    /// Of a track's encoded tiles, what stays in memory until the writer takes them; the
    /// rest waits in a temporary file next to the store (payload_spool.h).
    std::size_t spoolMemoryBytes = std::size_t(4) << 20;
};

class StoreBuilder : public TraceSink, public RevisableSink
{
public:
    /// Throws StoreError when the target's folder does not take a new file.
    explicit StoreBuilder(std::filesystem::path target, StoreBuildOptions options = {});
    ~StoreBuilder() override;
    StoreBuilder(const StoreBuilder&) = delete;
    StoreBuilder& operator=(const StoreBuilder&) = delete;

    model::StringTable& strings() override { return m_strings; }
    model::TrackId addTrack(model::TrackId parent, model::ResourceKind kind, std::string name,
                            std::int64_t sortKey = 0, std::string unit = {}) override;
    void setMeta(std::string key, std::string value) override;
    void addInterval(model::TrackId track, const model::Interval& interval,
                     std::string_view args = {}) override;
    void addInstant(model::TrackId track, const model::Instant& instant,
                    std::string_view args = {}) override;
    void addCounterSample(model::TrackId track, const model::CounterSample& sample) override;
    /// Reserves room for the intervals while the reservations of the tracks held stay
    /// under a quarter of the memory budget.
    void expectIntervals(model::TrackId track, std::size_t count, std::size_t argBytes) override;
    void addFlow(model::TrackId fromTrack, const model::Flow& flow) override;
    model::StackId internStack(model::StackId parent, model::StringId frame) override;
    void addStackSample(model::TrackId track, const model::StackSample& sample) override;
    void addKernelMetric(const model::KernelMetric& metric) override;
    /// A track another shard of the run holds: ids from kForeignTrackBase up, until
    /// finish() stores them as the store's track count + their index (store_schema.h).
    model::TrackId addForeignTrack(const TrackPath& path) override;
    static constexpr model::TrackId kForeignTrackBase = 0x80000000u;

    // Late layout (trace_sink.h).
    RevisableSink* revisable() override { return this; }
    Mark mark() const override;
    void rollback(const Mark& mark) override;
    void describeTrack(model::TrackId track, model::ResourceKind kind, std::string name,
        std::int64_t sortKey) override;
    void shiftTracks(model::TrackId first, model::TrackId end, model::TimeNs deltaNs) override;

    const model::ResourceTree& resources() const { return m_resources; }
    const std::vector<TrackPath>& foreignTracks() const { return m_foreign; }
    std::uint64_t eventCount() const { return m_events; }
    /// The span of the events added so far; nullopt before the first.
    std::optional<model::TimeRange> eventSpan() const;
    /// Widens the store's span, and with it its LOD grid, to cover `span`: the shards of
    /// one run are given the run's, so they share its grid (run_builder.h).
    void extendSpan(model::TimeRange span);

    /// Replaces the progress callback of the options (tracks written / tracks in all).
    void setProgress(ProgressFn progress) { m_options.progress = std::move(progress); }
    /// Replaces the options' tiling workers, and the slots they share with other builders.
    void setThreads(int threads, std::shared_ptr<TileSlots> sharedSlots = nullptr)
    {
        m_options.threads = threads;
        m_options.tileSlots = std::move(sharedSlots);
    }

    /// Moves the events held in memory to the spill file, so that the builder holds none
    /// until finish(): a run's shards waiting for their turn to be tiled (run_builder.h).
    void spillEvents();
    /// Bytes of events held in memory.
    std::size_t heldBytes() const;

    /// Builds the store. Throws on failure, leaving no temporary file behind.
    void finish();
    /// After finish(): how many tracks were tiled in pieces (track_pieces.h).
    std::size_t tracksTiledInPieces() const { return m_tracksTiledInPieces; }

    struct TrackBuffer;

private:
    TrackBuffer& buffer(model::TrackId track);
    /// The first and last time of a track's events (or of a span given to extendSpan).
    struct Span
    {
        model::TimeNs minNs = 0;
        model::TimeNs maxNs = 0;
        bool any = false;
        void note(model::TimeNs startNs, model::TimeNs endNs);
    };
    void noteTime(model::TrackId track, model::TimeNs startNs, model::TimeNs endNs)
    {
        m_spans[track].note(startNs, endNs);
    }
    void account(std::size_t bytes);

    std::filesystem::path m_target;
    std::filesystem::path m_temp;
    StoreBuildOptions m_options;
    model::StringTable m_strings;
    model::ResourceTree m_resources;
    std::map<std::string, std::string> m_meta;
    std::vector<std::unique_ptr<TrackBuffer>> m_tracks;
    std::vector<std::pair<model::StackId, model::StringId>> m_stacks;
    std::map<std::pair<model::StackId, model::StringId>, model::StackId> m_stackIds;
    std::vector<model::KernelMetric> m_kernelMetrics;
    std::vector<TrackPath> m_foreign;
    std::map<TrackPath, model::TrackId> m_foreignIds;
    std::uint64_t m_events = 0;
    std::size_t m_bufferedBytes = 0;
    std::size_t m_reservedBytes = 0;  ///< by expectIntervals(), since the last spill
    std::unique_ptr<SpillFile> m_spill;
    std::vector<Span> m_spans;  ///< per track
    Span m_extraSpan;  ///< extendSpan()'s
    std::size_t m_tracksTiledInPieces = 0;
    bool m_finished = false;
};

} // namespace strata::storage
