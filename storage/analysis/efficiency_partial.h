#pragma once
// computeEfficiency in parts, so that processes which each read only some shards of a run
// (MPI ranks) compute the report of one process, bit for bit:
//
//   every process: planEfficiency (the manifest only: workers, levels, what is asked)
//   each process:  EfficiencyCollector over the workers it owns
//                    learn()  --all-gather-->  collect(every learning)
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
// on the workers read before it. learn() makes, per owned worker, only the exact reads
// (RoleTimeReader::categoriesLearnedBy: the query and the edges, not the mixing) and
// returns what they taught; collect(everyone) then reads each worker with a reader seeded
// with the learning of every worker before it in plan order, where the single reader
// would have stood. In one process, collect() alone reads the workers in order with one
// reader, as computeEfficiency always did. Without a rule that depends on a category,
// nothing is learned and learn() reads nothing.

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

/// The category knowledge of workers (RoleTimeReader::categoriesLearnedBy), per chain of
/// workers one reader reads in order (0: plan.workers, 1: plan.hostProcesses) and index.
struct CategoryLearning
{
    std::map<std::uint32_t, CategoryKnowledge> chains[2];

    bool empty() const;
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
    /// What the owned workers' exact reads teach of categories (for the other processes).
    CategoryLearning learn();
    /// Reads every owned worker and returns the partial. `everyone`: the learning of
    /// every process (this one's included), when other processes read other workers;
    /// nullptr when this process owns every worker.
    EfficiencyPartial collect(const CategoryLearning* everyone = nullptr);

private:
    const model::Worker& worker(int chain, std::size_t index) const;
    /// Reads worker `index` of `chain` (0: plan.workers, 1: plan.hostProcesses).
    std::vector<RoleSlot> read(int chain, std::size_t index);
    /// Seeds the chain's reader for worker `index` from `everyone`, when given.
    void seed(int chain, std::size_t index);

    StoreReader& m_store;
    const EfficiencyPlan& m_plan;
    OwnsWorker m_owns;
    std::unique_ptr<RoleTimeReader> m_readers[2];
    const CategoryLearning* m_everyone = nullptr;
    /// The learning of every worker before the one read last, per chain, and that index.
    CategoryKnowledge m_before[2];
    std::size_t m_beforeIndex[2] = { 0, 0 };
};

/// The report from the merged partial of every owned worker (throws std::logic_error when
/// an entry is missing).
EfficiencyReport finishEfficiency(const EfficiencyPlan& plan, EfficiencyPartial&& partial);

}  // namespace strata::storage
