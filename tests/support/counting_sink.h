#pragma once
// A TraceSink that only counts events: for timing an importer alone.

#include "storage/store/trace_sink.h"

namespace strata::test {

class CountingSink : public storage::TraceSink
{
public:
    model::StringTable& strings() override { return m_strings; }
    model::TrackId addTrack(model::TrackId, model::ResourceKind, std::string, std::int64_t,
                            std::string) override
    {
        return m_tracks++;
    }
    void setMeta(std::string, std::string) override {}
    void addInterval(model::TrackId, const model::Interval&, std::string_view) override { ++events; }
    void addInstant(model::TrackId, const model::Instant&, std::string_view) override { ++events; }
    void addCounterSample(model::TrackId, const model::CounterSample&) override { ++events; }
    void addFlow(model::TrackId, const model::Flow&) override { ++events; }
    model::StackId internStack(model::StackId, model::StringId) override { return 0; }
    void addStackSample(model::TrackId, const model::StackSample&) override { ++events; }

    std::uint64_t events = 0;

private:
    model::StringTable m_strings;
    model::TrackId m_tracks = 0;
};

} // namespace strata::test
