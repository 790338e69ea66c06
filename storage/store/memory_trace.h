#pragma once
// MemoryTrace is a TraceSink that keeps everything in memory, in arrival order: the
// reference against which tests compare a store, and a convenient container for small
// traces (fixtures, exports of a window).

#include "storage/store/trace_sink.h"

#include <map>
#include <vector>

namespace strata::storage {

struct MemoryTrack
{
    std::vector<model::Interval> intervals;
    std::vector<std::string> intervalArgs;  ///< parallel to intervals
    std::vector<model::Instant> instants;
    std::vector<std::string> instantArgs;  ///< parallel to instants
    std::vector<model::CounterSample> counters;
    std::vector<model::Flow> flows;
    std::vector<model::StackSample> samples;
};

struct StackFrame
{
    model::StackId parent = 0;
    model::StringId frame = model::kEmptyString;
};

class MemoryTrace : public TraceSink
{
public:
    MemoryTrace();

    model::StringTable& strings() override { return m_strings; }
    const model::StringTable& strings() const { return m_strings; }
    model::TrackId addTrack(model::TrackId parent, model::ResourceKind kind, std::string name,
                            std::int64_t sortKey = 0, std::string unit = {}) override;
    void setMeta(std::string key, std::string value) override;
    void addInterval(model::TrackId track, const model::Interval& interval,
                     std::string_view args = {}) override;
    void addInstant(model::TrackId track, const model::Instant& instant,
                    std::string_view args = {}) override;
    void addCounterSample(model::TrackId track, const model::CounterSample& sample) override;
    void addFlow(model::TrackId fromTrack, const model::Flow& flow) override;
    model::StackId internStack(model::StackId parent, model::StringId frame) override;
    void addStackSample(model::TrackId track, const model::StackSample& sample) override;
    void addKernelMetric(const model::KernelMetric& metric) override;

    const model::ResourceTree& resources() const { return m_resources; }
    const std::map<std::string, std::string>& meta() const { return m_meta; }
    const MemoryTrack& track(model::TrackId id) const { return m_tracks[id]; }
    MemoryTrack& track(model::TrackId id) { return m_tracks[id]; }
    /// Stack 0 is the empty root; stack i > 0 has a parent < i and a frame.
    const std::vector<StackFrame>& stacks() const { return m_stacks; }
    /// Per-kernel metrics in arrival order.
    const std::vector<model::KernelMetric>& kernelMetrics() const { return m_kernelMetrics; }
    /// Events of all kinds.
    std::uint64_t eventCount() const;
    /// Sends everything, tracks first, to another sink (strings re-interned there).
    void replayInto(TraceSink& sink) const;

private:
    model::StringTable m_strings;
    model::ResourceTree m_resources;
    std::map<std::string, std::string> m_meta;
    std::vector<MemoryTrack> m_tracks;
    std::vector<StackFrame> m_stacks;
    std::vector<model::KernelMetric> m_kernelMetrics;
    std::map<std::pair<model::StackId, model::StringId>, model::StackId> m_stackIds;
};

} // namespace strata::storage
