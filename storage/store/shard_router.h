#pragma once
// ShardRouter is a TraceSink that deals one producer's trace (a generator, an importer)
// out to the shards of a run (run_builder.h) by resource subtree: each root track (a node,
// a process) and everything under it go to one shard, the roots in creation order, in
// blocks of `rootsPerShard`, so the run's tracks keep the producer's order. Strings and
// stacks keep the producer's ids here and are translated to each shard's on first use.
// A flow between tracks of two shards is stored by the sender's shard, to a foreign track
// (trace_sink.h) named by the receiver's path of names and sort keys, which the run's
// publish resolves (run_manifest.h).

#include "storage/store/run_builder.h"
#include "storage/store/trace_sink.h"

#include <map>
#include <vector>

namespace strata::storage {

class ShardRouter : public TraceSink
{
public:
    ShardRouter(RunBuilder& run, int rootsPerShard);

    model::StringTable& strings() override { return m_strings; }
    model::TrackId addTrack(model::TrackId parent, model::ResourceKind kind, std::string name,
                            std::int64_t sortKey = 0, std::string unit = {}) override;
    void setMeta(std::string key, std::string value) override;
    void addInterval(model::TrackId track, const model::Interval& interval,
                     std::string_view args = {}) override;
    void addInstant(model::TrackId track, const model::Instant& instant,
                    std::string_view args = {}) override;
    void addCounterSample(model::TrackId track, const model::CounterSample& sample) override;
    void expectIntervals(model::TrackId track, std::size_t count, std::size_t argBytes) override;
    void addFlow(model::TrackId fromTrack, const model::Flow& flow) override;
    model::StackId internStack(model::StackId parent, model::StringId frame) override;
    void addStackSample(model::TrackId track, const model::StackSample& sample) override;
    void addKernelMetric(const model::KernelMetric& metric) override;

private:
    struct Place
    {
        int shard;
        model::TrackId track;  ///< in the shard
    };
    const Place& place(model::TrackId track) const;
    model::StringId string(int shard, model::StringId id);
    model::StackId stack(int shard, model::StackId id);
    /// `track`'s id for a flow from `shard`: its own, or a foreign track there.
    model::TrackId flowTarget(int shard, model::TrackId track);

    RunBuilder& m_run;
    int m_rootsPerShard;
    int m_roots = 0;
    model::StringTable m_strings;
    std::vector<Place> m_places;  ///< [producer track]
    std::vector<std::pair<model::StackId, model::StringId>> m_stacks {{0, model::kEmptyString}};
    std::map<std::pair<model::StackId, model::StringId>, model::StackId> m_stackIds;
    /// [shard][producer id] -> shard id, kUnmapped until first used
    std::vector<std::vector<model::StringId>> m_shardStrings;
    std::vector<std::vector<model::StackId>> m_shardStacks;
    std::map<std::pair<int, model::TrackId>, model::TrackId>
        m_foreign;  ///< (shard, producer track)
};

} // namespace strata::storage
