#pragma once
// EfficiencyReport: everything `strata metrics` and the Efficiency panel show for one
// window and one worker level, computed from the pyramid by RoleTimeReader.
//
// Workers come from model::workersAt; host levels count roles with kHostPriority and
// device levels with kDevicePriority (model/role_time.h). Workers with fewer than 1 % of
// the busiest worker's intervals are left out unless asked (Kineto writes pseudo
// processes such as "Spans (rank 0)" that hold a handful of annotations and would read
// as idle ranks); the report names them.
//
// At the GPU level the report adds the host side: POP metrics of the processes and the
// device-offload efficiency, and, per GPU, what its host process was doing while the GPU
// was idle. That attribution pairs the GPU with the process named in its parentheses
// ("GPU 0 (rank 1)" with "rank 1"), or with the only process; it is computed per slot
// of the window as (GPU idle) x (host role share), which is exact where either side is
// all one thing in the slot and an estimate otherwise.

#include "model/efficiency.h"
#include "model/role_rules.h"
#include "model/workers.h"
#include "storage/analysis/role_time_reader.h"
#include "storage/analysis/useful_counters.h"

#include <optional>
#include <string>
#include <vector>

namespace strata::storage {

struct EfficiencyRequest
{
    /// Empty: the whole run (the activity span; a Paraver store's [0, header end]);
    /// otherwise clipped to the run.
    model::TimeRange window;
    std::optional<model::WorkerLevel>
        level;  ///< nullopt: gpu if any stream holds intervals, else process
    const model::RoleRules* rules = nullptr;
    int maxSlots = 4096;
    bool allWorkers = false;  ///< keep the near-empty workers too
    /// Host levels, the analyses that read every MPI call (so the GUI asks for them once,
    /// not per window): CommE split into serialization x transfer by the ideal-network
    /// replay (ideal_replay.h; whole run only) and, at the thread level, the hybrid split.
    bool idealReplay = false;
    /// Sum the hardware counters of useful bursts (useful_counters.h): exact events.
    bool counters = false;
};

/// What the host of one GPU did while the GPU was idle (ns by host role, plus no activity).
struct GpuIdleCauses
{
    std::string gpu;
    std::string process;
    model::TimeNs gpuIdleNs = 0;
    std::array<model::TimeNs, model::kRoleCount> hostRoleNs {};
    model::TimeNs hostInactiveNs = 0;
};

struct EfficiencyReport
{
    model::TimeRange window;
    model::WorkerLevel level = model::WorkerLevel::Process;
    std::vector<model::WorkerTimes> workers;
    std::vector<std::string> ignoredWorkers;
    model::PopMetrics pop;  ///< of `workers` (at a device level: useful = compute kernels)
    std::optional<model::GpuMetrics> gpu;  ///< device levels
    /// Device levels: the host processes' role times and metrics.
    std::vector<model::WorkerTimes> hostProcesses;
    std::optional<model::PopMetrics> hostPop;
    std::optional<double> deviceOffloadEfficiency;
    std::vector<GpuIdleCauses> gpuIdle;
    RoleAttribution attribution;
    bool exact = true;  ///< every role time came from exact events
    /// With idealReplay: T_ideal (pop.serializationEfficiency and transferEfficiency are
    /// set), or why the split is not available.
    std::optional<model::TimeNs> idealRuntimeNs;
    std::string replayUnavailable;
    std::optional<UsefulCounters> counters;  ///< with `counters`
    /// Thread level, when a process has several threads: POP's hybrid MPI x thread split.
    std::optional<model::HybridMetrics> hybrid;
};

/// In one process: planEfficiency, one EfficiencyCollector over every worker,
/// finishEfficiency (efficiency_partial.h, where processes that each read some shards, MPI
/// ranks, compute the same report in parts).
EfficiencyReport computeEfficiency(StoreReader& store, const EfficiencyRequest& request);

/// The process driving `gpu`: the one named in the GPU's trailing parentheses ("GPU 0
/// (rank 1)" is driven by "rank 1"), or the only one; nullptr when neither.
const model::Worker* hostOf(const model::Worker& gpu, const std::vector<model::Worker>& processes);

}  // namespace strata::storage
