#pragma once
// KernelRecorder is a TraceSink decorator: it forwards everything to the sink it wraps
// (the StoreBuilder) and remembers what files ingested later need to join to the trace:
//   - every GPU kernel interval: an interval with role Useful on a Stream track (the
//     compute work of a GPU stream; memcpy/memset are Transfer; categories naming an
//     annotation or NVTX range are left out), with its track, start,
//     end, name, and the device / stream / correlation / grid / block read from its args
//     (Kineto: "device", "stream", "correlation", "grid", "block"), else the device and
//     stream from the track names ("GPU 0" > "stream 7");
//   - the store's absolute origin (meta "origin_ns"), to align counter logs.
// Memory: about 80 bytes per kernel; traces have thousands to a few million of them. The
// ingest command wraps the builder only when an Nsight Compute or counter file follows.

#include "storage/store/trace_sink.h"

#include <optional>
#include <string>
#include <vector>

namespace strata::storage {

struct RecordedKernel
{
    model::TrackId track = model::kNoTrack;  ///< the stream track
    model::TrackId gpuTrack = model::kNoTrack;  ///< its parent (the GPU), or kNoTrack
    model::TimeNs startNs = 0;
    model::TimeNs endNs = 0;
    model::StringId name = model::kEmptyString;
    std::optional<std::int64_t> device, stream, correlation;
    std::string grid, block;  ///< "x,y,z" when the args say, else empty
};

class KernelRecorder : public TraceSink
{
public:
    explicit KernelRecorder(TraceSink& inner)
        : m_inner(inner)
    {}

    model::StringTable& strings() override { return m_inner.strings(); }
    model::TrackId addTrack(model::TrackId parent, model::ResourceKind kind, std::string name,
        std::int64_t sortKey = 0, std::string unit = {}) override;
    void setMeta(std::string key, std::string value) override;
    void addInterval(
        model::TrackId track, const model::Interval& interval, std::string_view args = {}) override;
    void addInstant(
        model::TrackId track, const model::Instant& instant, std::string_view args = {}) override
    {
        m_inner.addInstant(track, instant, args);
    }
    void addCounterSample(model::TrackId track, const model::CounterSample& sample) override
    {
        m_inner.addCounterSample(track, sample);
    }
    void expectIntervals(model::TrackId track, std::size_t count, std::size_t argBytes) override
    {
        m_inner.expectIntervals(track, count, argBytes);
    }
    void addFlow(model::TrackId fromTrack, const model::Flow& flow) override
    {
        m_inner.addFlow(fromTrack, flow);
    }
    model::StackId internStack(model::StackId parent, model::StringId frame) override
    {
        return m_inner.internStack(parent, frame);
    }
    void addStackSample(model::TrackId track, const model::StackSample& sample) override
    {
        m_inner.addStackSample(track, sample);
    }
    void addKernelMetric(const model::KernelMetric& metric) override
    {
        m_inner.addKernelMetric(metric);
    }

    /// Kernels in arrival order.
    const std::vector<RecordedKernel>& kernels() const { return m_kernels; }
    /// The last "origin_ns" meta set through this sink, if any.
    std::optional<model::TimeNs> originNs() const { return m_originNs; }
    /// The track's name, kind and parent as created through this sink.
    const model::TrackInfo* track(model::TrackId id) const;

private:
    TraceSink& m_inner;
    std::vector<model::TrackInfo> m_tracks;  ///< indexed by id (ids are dense per sink)
    std::vector<RecordedKernel> m_kernels;
    std::optional<model::TimeNs> m_originNs;
};

/// The integer after `"key":` in JSON object text (top level or nested; the first match),
/// or nullopt. Cheap: no JSON parse, for the few keys the join needs.
std::optional<std::int64_t> jsonIntegerField(std::string_view json, std::string_view key);

}  // namespace strata::storage
