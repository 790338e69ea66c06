#include "storage/store/memory_trace.h"

#include <stdexcept>

namespace strata::storage {

MemoryTrace::MemoryTrace()
    : m_stacks(1)
{
}

model::TrackId MemoryTrace::addTrack(model::TrackId parent, model::ResourceKind kind,
                                     std::string name, std::int64_t sortKey, std::string unit)
{
    m_tracks.emplace_back();
    return m_resources.add(parent, kind, std::move(name), sortKey, std::move(unit));
}

void MemoryTrace::setMeta(std::string key, std::string value)
{
    m_meta[std::move(key)] = std::move(value);
}

void MemoryTrace::addInterval(model::TrackId track, const model::Interval& interval,
                              std::string_view args)
{
    MemoryTrack& t = m_tracks.at(track);
    t.intervals.push_back(interval);
    t.intervalArgs.emplace_back(args);
}

void MemoryTrace::addInstant(model::TrackId track, const model::Instant& instant,
                             std::string_view args)
{
    MemoryTrack& t = m_tracks.at(track);
    t.instants.push_back(instant);
    t.instantArgs.emplace_back(args);
}

void MemoryTrace::addCounterSample(model::TrackId track, const model::CounterSample& sample)
{
    m_tracks.at(track).counters.push_back(sample);
}

void MemoryTrace::addFlow(model::TrackId fromTrack, const model::Flow& flow)
{
    m_tracks.at(fromTrack).flows.push_back(flow);
}

model::StackId MemoryTrace::internStack(model::StackId parent, model::StringId frame)
{
    if (parent >= m_stacks.size())
        throw std::out_of_range("MemoryTrace::internStack: unknown parent stack");
    auto [it, inserted] = m_stackIds.try_emplace({parent, frame},
                                                 static_cast<model::StackId>(m_stacks.size()));
    if (inserted)
        m_stacks.push_back({parent, frame});
    return it->second;
}

void MemoryTrace::addStackSample(model::TrackId track, const model::StackSample& sample)
{
    m_tracks.at(track).samples.push_back(sample);
}

void MemoryTrace::addKernelMetric(const model::KernelMetric& metric)
{
    if (metric.track >= m_tracks.size())
        throw std::out_of_range("MemoryTrace::addKernelMetric: unknown track");
    m_kernelMetrics.push_back(metric);
}

std::uint64_t MemoryTrace::eventCount() const
{
    std::uint64_t n = 0;
    for (const MemoryTrack& t : m_tracks) {
        n += t.intervals.size() + t.instants.size() + t.counters.size() + t.flows.size()
             + t.samples.size();
    }
    return n;
}

void MemoryTrace::replayInto(TraceSink& sink) const
{
    auto str = [&](model::StringId id) { return sink.intern(m_strings.text(id)); };
    for (const model::TrackInfo& t : m_resources.tracks())
        sink.addTrack(t.parent, t.kind, t.name, t.sortKey, t.unit);
    for (const auto& [k, v] : m_meta)
        sink.setMeta(k, v);
    std::vector<model::StackId> stackIds(m_stacks.size(), 0);
    for (std::size_t i = 1; i < m_stacks.size(); ++i)
        stackIds[i] = sink.internStack(stackIds[m_stacks[i].parent], str(m_stacks[i].frame));
    for (model::TrackId id = 0; id < m_tracks.size(); ++id) {
        const MemoryTrack& t = m_tracks[id];
        for (std::size_t i = 0; i < t.intervals.size(); ++i) {
            model::Interval e = t.intervals[i];
            e.name = str(e.name);
            e.category = str(e.category);
            sink.addInterval(id, e, t.intervalArgs[i]);
        }
        for (std::size_t i = 0; i < t.instants.size(); ++i) {
            model::Instant e = t.instants[i];
            e.name = str(e.name);
            e.category = str(e.category);
            sink.addInstant(id, e, t.instantArgs[i]);
        }
        for (const model::CounterSample& s : t.counters)
            sink.addCounterSample(id, s);
        for (model::Flow f : t.flows) {
            f.name = str(f.name);
            sink.addFlow(id, f);
        }
        for (model::StackSample s : t.samples) {
            s.stack = stackIds[s.stack];
            sink.addStackSample(id, s);
        }
    }
    for (model::KernelMetric m : m_kernelMetrics) {
        m.metric = str(m.metric);
        m.unit = str(m.unit);
        sink.addKernelMetric(m);
    }
}

} // namespace strata::storage
