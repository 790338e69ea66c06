#pragma once
// computeEfficiency in parts, so that processes which each read only some shards of a run
// (MPI ranks) compute the report of one process, bit for bit:
//
//   every process: planEfficiency (the manifest only: workers, levels, what is asked)
//   each process:  EfficiencyCollector over the workers it owns
//                    collect()  -> learned()  --all-gather-->  settle(every learning)
//                    -> EfficiencyPartial  --bytes-->  the process that merges
//   one process:   merge the partials -> finishEfficiency -> EfficiencyReport
//
// What a partial holds, per figure (docs/scale.md gives the bytes):
//   - role times: per worker (and, at device levels, per host process) its total
//     RoleTimes, integers summed over the worker's slots; the report's POP and GPU
//     metrics are computed once, from the merged totals, in worker order;
//   - GPU idle causes: per GPU, by the owner of the GPU, from the slots of the GPU and of
//     its host process (read by that owner too when another process owns the host);
//   - role attribution: (role, rule) and (role, name) -> ns, integer sums;
//   - useful counters: per thread, by its owner (its sums of doubles stay in one order);
//   - the hybrid split: per process, its time outside MPI (an integer);
//   - the ideal replay: per process, its calls and sent messages (ReplayProcessPart);
//     matching arrivals to receiving calls needs every process's calls, so it happens at
//     the merge (assembleReplayInput), and the replay runs there.
// A worker (thread, process, GPU) is owned by the process owning the shard of its first
// track; a worker's tracks lie in one shard as long as resource subtrees do.
//
// Exactness of the role times: RoleTimeReader classifies summary cells by the categories
// it learned from exact intervals read before, so one reader's answer for a worker depends
// on the workers read before it. collect() records, per worker, what it learned and what
// it relied on; settle() gives each worker the knowledge of every worker before it in plan
// order (all processes' learnings) and reads again, with a reader seeded with that
// knowledge, only the workers whose answer would change (RoleTimeReader::reliedOnlyOn).
// In one process nothing is read again.

#include "storage/analysis/efficiency_report.h"
#include "storage/analysis/replay_input.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace strata::storage {

/// What computeEfficiency reads, decided from the manifest alone (every process agrees).
struct EfficiencyPlan
{
    EfficiencyRequest request;
    model::TimeRange run;  ///< the activity span (Paraver: [0, header end])
    model::TimeRange window;
    model::WorkerLevel level = model::WorkerLevel::Process;
    std::vector<model::Worker> workers;  ///< at `level`, near-empty ones left out
    std::vector<std::string> ignoredWorkers;
    std::vector<model::Worker> hostProcesses;  ///< device levels: the host side
    std::vector<int> hostOf;  ///< gpu level, per worker: index in hostProcesses, or -1
    std::vector<model::Worker> counterThreads;  ///< with request.counters
    std::size_t mpiProcesses = 0;  ///< hybrid or replay: MpiCallReader::processes().size()
    bool hybrid = false;  ///< the hybrid split is computed
    bool replay = false;  ///< serialization x transfer is asked for
    std::string replayUnavailable;  ///< known from the plan already (replay asked)

    bool device() const { return model::isDeviceLevel(level); }
};

EfficiencyPlan planEfficiency(const StoreReader& store, const EfficiencyRequest& request);

/// What one process computed of a report: entries keyed by the plan's indices, disjoint
/// between processes. merge() joins two; toBytes()/fromBytes() carry one between processes.
struct EfficiencyPartial
{
    std::map<std::uint32_t, model::RoleTimes> workers;  ///< [plan.workers index]
    std::map<std::uint32_t, model::RoleTimes> hosts;  ///< [plan.hostProcesses index]
    std::map<std::uint32_t, GpuIdleCauses> gpuIdle;  ///< [plan.workers index]
    RoleAttribution attribution;  ///< of the workers' reads (not the hosts')
    std::map<std::uint32_t, ThreadCounters> threads;  ///< [plan.counterThreads index]
    std::map<std::uint32_t, model::TimeNs> outsideMpi;  ///< [MPI process index], hybrid
    std::map<std::uint32_t, ReplayProcessPart> replay;  ///< [MPI process index]

    /// Adds `other`'s entries; throws std::invalid_argument when both hold one.
    void merge(EfficiencyPartial&& other);
    std::string toBytes() const;
    /// Throws CorruptTile for bytes that are not a partial.
    static EfficiencyPartial fromBytes(std::string_view bytes);
};

/// The category knowledge of workers read (RoleTimeReader::learned()), per chain of
/// workers read by one reader (0: plan.workers, 1: plan.hostProcesses) and worker index.
struct CategoryLearning
{
    std::map<std::uint32_t, CategoryKnowledge> chains[2];

    void merge(const CategoryLearning& other);
    std::string toBytes() const;
    static CategoryLearning fromBytes(std::string_view bytes);
};

/// Which workers this process computes.
using OwnsWorker = std::function<bool(const model::Worker&)>;

class EfficiencyCollector
{
public:
    EfficiencyCollector(StoreReader& store, const EfficiencyPlan& plan, OwnsWorker owns);
    ~EfficiencyCollector();
    /// Reads every owned worker once.
    void collect();
    /// What the owned workers' reads learned.
    CategoryLearning learned() const;
    /// Whether some owned worker's classification relied on learned categories (if no
    /// process's did, settle() needs no one's learning).
    bool relies() const;
    /// With the learning of every process (this one's included): reads again the workers
    /// whose classification would change, computes the GPU idle causes, and returns the
    /// partial.
    EfficiencyPartial settle(const CategoryLearning& everyone);

private:
    struct Record;
    std::vector<RoleSlot> read(
        int chain, std::size_t index, const CategoryKnowledge* seed, Record* record);
    CategoryKnowledge knowledgeBefore(
        const CategoryLearning& everyone, int chain, std::size_t index) const;

    StoreReader& m_store;
    const EfficiencyPlan& m_plan;
    OwnsWorker m_owns;
    std::unique_ptr<RoleTimeReader> m_readers[2];
    std::map<std::uint32_t, Record> m_records[2];
    EfficiencyPartial m_partial;
};

/// The report from the merged partial of every owned worker (throws std::logic_error when
/// an entry is missing).
EfficiencyReport finishEfficiency(const EfficiencyPlan& plan, EfficiencyPartial&& partial);

}  // namespace strata::storage
