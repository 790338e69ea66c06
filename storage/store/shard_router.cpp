#include "storage/store/shard_router.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace strata::storage {

namespace {

constexpr std::uint32_t kUnmapped = std::numeric_limits<std::uint32_t>::max();

} // namespace

ShardRouter::ShardRouter(RunBuilder& run, int rootsPerShard)
    : m_run(run)
    , m_rootsPerShard(std::max(1, rootsPerShard))
    , m_shardStrings(static_cast<std::size_t>(run.shardCount()))
    , m_shardStacks(static_cast<std::size_t>(run.shardCount()), std::vector<model::StackId>(1, 0))
{
}

const ShardRouter::Place& ShardRouter::place(model::TrackId track) const
{
    if (track >= m_places.size())
        throw std::out_of_range("ShardRouter: event on unknown track " + std::to_string(track));
    return m_places[track];
}

model::StringId ShardRouter::string(int shard, model::StringId id)
{
    auto& map = m_shardStrings[static_cast<std::size_t>(shard)];
    if (id >= map.size())
        map.resize(std::max<std::size_t>(m_strings.size(), id + 1), kUnmapped);
    if (map[id] == kUnmapped)
        map[id] = m_run.shard(shard).strings().intern(m_strings.text(id));
    return map[id];
}

model::StackId ShardRouter::stack(int shard, model::StackId id)
{
    auto& map = m_shardStacks[static_cast<std::size_t>(shard)];
    if (id >= map.size())
        map.resize(std::max<std::size_t>(m_stacks.size(), id + 1), kUnmapped);
    if (map[id] == kUnmapped) {
        const auto [parent, frame] = m_stacks.at(id);
        map[id] = m_run.shard(shard).internStack(stack(shard, parent), string(shard, frame));
    }
    return map[id];
}

model::TrackId ShardRouter::addTrack(model::TrackId parent, model::ResourceKind kind, std::string name,
                                     std::int64_t sortKey, std::string unit)
{
    Place p;
    model::TrackId shardParent = model::kNoTrack;
    if (parent == model::kNoTrack) {
        p.shard = std::min(m_roots++ / m_rootsPerShard, m_run.shardCount() - 1);
    } else {
        p.shard = place(parent).shard;
        shardParent = place(parent).track;
    }
    p.track = m_run.shard(p.shard).addTrack(shardParent, kind, std::move(name), sortKey, std::move(unit));
    m_places.push_back(p);
    return static_cast<model::TrackId>(m_places.size() - 1);
}

void ShardRouter::setMeta(std::string key, std::string value)
{
    m_run.setMeta(std::move(key), std::move(value));
}

void ShardRouter::expectIntervals(model::TrackId track, std::size_t count, std::size_t argBytes)
{
    const Place& p = place(track);
    m_run.shard(p.shard).expectIntervals(p.track, count, argBytes);
}

void ShardRouter::addInterval(model::TrackId track, const model::Interval& interval, std::string_view args)
{
    const Place& p = place(track);
    model::Interval e = interval;
    e.name = string(p.shard, e.name);
    e.category = string(p.shard, e.category);
    m_run.shard(p.shard).addInterval(p.track, e, args);
}

void ShardRouter::addInstant(model::TrackId track, const model::Instant& instant, std::string_view args)
{
    const Place& p = place(track);
    model::Instant e = instant;
    e.name = string(p.shard, e.name);
    e.category = string(p.shard, e.category);
    m_run.shard(p.shard).addInstant(p.track, e, args);
}

void ShardRouter::addCounterSample(model::TrackId track, const model::CounterSample& sample)
{
    const Place& p = place(track);
    m_run.shard(p.shard).addCounterSample(p.track, sample);
}

model::TrackId ShardRouter::flowTarget(int shard, model::TrackId track)
{
    if (track == model::kNoTrack)
        return track;
    const Place& to = place(track);
    if (to.shard == shard)
        return to.track;
    auto [it, added] = m_foreign.try_emplace({ shard, track }, model::kNoTrack);
    if (added) {
        const model::ResourceTree& tree = m_run.shard(to.shard).resources();
        TrackPath path;
        for (model::TrackId t = to.track; t != model::kNoTrack; t = tree.track(t).parent)
            path.push_back({ tree.track(t).name, tree.track(t).sortKey });
        std::reverse(path.begin(), path.end());
        it->second = m_run.shard(shard).addForeignTrack(path);
    }
    return it->second;
}

void ShardRouter::addFlow(model::TrackId fromTrack, const model::Flow& flow)
{
    const Place& from = place(fromTrack);
    model::Flow f = flow;
    f.toTrack = flowTarget(from.shard, flow.toTrack);
    f.name = string(from.shard, f.name);
    m_run.shard(from.shard).addFlow(from.track, f);
}

model::StackId ShardRouter::internStack(model::StackId parent, model::StringId frame)
{
    if (parent >= m_stacks.size())
        throw std::out_of_range("ShardRouter: unknown parent stack");
    auto [it, added] = m_stackIds.try_emplace({parent, frame}, static_cast<model::StackId>(m_stacks.size()));
    if (added)
        m_stacks.emplace_back(parent, frame);
    return it->second;
}

void ShardRouter::addStackSample(model::TrackId track, const model::StackSample& sample)
{
    const Place& p = place(track);
    model::StackSample s = sample;
    s.stack = stack(p.shard, s.stack);
    m_run.shard(p.shard).addStackSample(p.track, s);
}

void ShardRouter::addKernelMetric(const model::KernelMetric& metric)
{
    const Place& p = place(metric.track);
    model::KernelMetric m = metric;
    m.track = p.track;
    m.metric = string(p.shard, m.metric);
    m.unit = string(p.shard, m.unit);
    m_run.shard(p.shard).addKernelMetric(m);
}

} // namespace strata::storage
