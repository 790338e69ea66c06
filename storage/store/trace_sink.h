#pragma once
// TraceSink is where importers and generators put a trace: the store builder implements
// it (storage/store/store_builder.h), and so do exporters such as the Chrome JSON writer. A
// producer creates tracks first (parents before children), then adds events in any
// order; `args` is the event's arguments as JSON object text ("{...}"), or empty.
//
// A producer that builds one shard of a run (run_manifest.h) may send a flow to a track
// another shard holds: addForeignTrack() names that track by its path in the run, and the
// id it returns serves only as a flow's `toTrack`. The run resolves the path when it is
// published.

#include "model/events.h"
#include "model/kernel_metric.h"
#include "model/resource_tree.h"
#include "model/string_table.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

/// One step of a track's path from its root down: the track's name and sort key, which
/// the producer gives alike to the track itself (addTrack) and to a reference to it.
struct TrackPathStep
{
    std::string name;
    std::int64_t sortKey = 0;
    bool operator==(const TrackPathStep&) const = default;
    auto operator<=>(const TrackPathStep&) const = default;
};
using TrackPath = std::vector<TrackPathStep>;

class RevisableSink;

class TraceSink
{
public:
    virtual ~TraceSink() = default;

    virtual model::StringTable& strings() = 0;
    virtual model::TrackId addTrack(model::TrackId parent, model::ResourceKind kind,
                                    std::string name, std::int64_t sortKey = 0,
                                    std::string unit = {})
        = 0;
    /// Store-level metadata (origin_ns, source, rank, ...); later values replace earlier.
    virtual void setMeta(std::string key, std::string value) = 0;

    virtual void addInterval(model::TrackId track, const model::Interval& interval,
                             std::string_view args = {})
        = 0;
    virtual void addInstant(model::TrackId track, const model::Instant& instant,
                            std::string_view args = {})
        = 0;
    virtual void addCounterSample(model::TrackId track, const model::CounterSample& sample) = 0;
    /// A hint from an importer that read ahead: about `count` intervals, with about
    /// `argBytes` bytes of args in all, will come to `track`. A sink that buffers can make
    /// room for them at once instead of growing (and copying) as they come.
    virtual void expectIntervals(model::TrackId track, std::size_t count, std::size_t argBytes)
    {
        (void)track, (void)count, (void)argBytes;
    }
    virtual void addFlow(model::TrackId fromTrack, const model::Flow& flow) = 0;
    /// Interns a call stack frame under `parent` (0 = root) and returns the stack's id.
    virtual model::StackId internStack(model::StackId parent, model::StringId frame) = 0;
    virtual void addStackSample(model::TrackId track, const model::StackSample& sample) = 0;
    /// One per-kernel hardware counter value (Nsight Compute). Sinks without a per-kernel
    /// table (exporters to formats that have none) drop it.
    virtual void addKernelMetric(const model::KernelMetric& metric) { (void)metric; }
    /// A track of the run that another shard holds (a "foreign" track), for flows to it:
    /// the same path gives the same id. Only a shard's builder (StoreBuilder) has them; a
    /// sink that holds a whole trace throws logic_error.
    virtual model::TrackId addForeignTrack(const TrackPath& path)
    {
        (void)path;
        throw std::logic_error("TraceSink: a flow to a track of another shard, in a sink that "
                               "holds a whole trace");
    }

    /// The sink's late-layout side, when it has one (the store builder): an importer that
    /// learns its tracks' names and time 0 only at the end of its file can then read the
    /// file once (chrome_json_importer.h). Null: the producer must know them first.
    virtual RevisableSink* revisable() { return nullptr; }

    /// Convenience: intern a string in this sink's table.
    model::StringId intern(std::string_view text) { return strings().intern(text); }
};

/// What a sink lets a producer change after the events came: the tracks it made since a
/// mark (their description, their times), or all it added since the mark, undone.
class RevisableSink
{
public:
    /// Where the sink stands: how many of each thing it holds so far.
    struct Mark
    {
        std::size_t tracks = 0;
        std::size_t strings = 0;
        std::size_t stacks = 0;
        std::size_t foreignTracks = 0;
        std::size_t kernelMetrics = 0;
        std::uint64_t events = 0;
    };

    virtual ~RevisableSink() = default;
    virtual Mark mark() const = 0;
    /// Forgets every track, string, stack, event and metric added since `mark` (by this
    /// producer only: nothing else may have added to the sink since).
    virtual void rollback(const Mark& mark) = 0;
    /// Gives a track made since the mark its final kind, name and sort key.
    virtual void describeTrack(
        model::TrackId track, model::ResourceKind kind, std::string name, std::int64_t sortKey) = 0;
    /// Moves every event of tracks [first, end) by `deltaNs`: the flows that leave them
    /// (both ends: a producer moves the tracks of one trace together) and their kernels'
    /// metrics too.
    virtual void shiftTracks(model::TrackId first, model::TrackId end, model::TimeNs deltaNs) = 0;
};

} // namespace strata::storage
