#pragma once
// TraceSink is where importers and generators put a trace: the store builder implements
// it (storage/store/store_builder.h), and so do exporters such as the Chrome JSON writer. A
// producer creates tracks first (parents before children), then adds events in any
// order; `args` is the event's arguments as JSON object text ("{...}"), or empty.

#include "model/events.h"
#include "model/kernel_metric.h"
#include "model/resource_tree.h"
#include "model/string_table.h"

#include <string>
#include <string_view>

namespace strata::storage {

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
    virtual void addFlow(model::TrackId fromTrack, const model::Flow& flow) = 0;
    /// Interns a call stack frame under `parent` (0 = root) and returns the stack's id.
    virtual model::StackId internStack(model::StackId parent, model::StringId frame) = 0;
    virtual void addStackSample(model::TrackId track, const model::StackSample& sample) = 0;
    /// One per-kernel hardware counter value (Nsight Compute). Sinks without a per-kernel
    /// table (exporters to formats that have none) drop it.
    virtual void addKernelMetric(const model::KernelMetric& metric) { (void)metric; }

    /// Convenience: intern a string in this sink's table.
    model::StringId intern(std::string_view text) { return strings().intern(text); }
};

} // namespace strata::storage
