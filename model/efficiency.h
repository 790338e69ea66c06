#pragma once
// The efficiency metrics of the POP model and of its GPU extension, as pure functions of
// role times (model/role_time.h). docs/metrics.md gives each formula with its source.
//
// Host (POP, per worker i = rank or thread; U_i its useful time, T the window length):
//     LB = mean(U_i) / max(U_i),  CommE = max(U_i) / T,  PE = LB x CommE = mean(U_i) / T
// Device (BSC TALP / nsys2prv style, per GPU g; B_g its compute-kernel time, C_g its time
// in communication kernels and memcpy/memset not overlapped by compute, G GPUs):
//     PE = sum B_g / (G T),  LB = sum B_g / (G max B_g),  CommE = max B_g / max(B_g + C_g),
//     Orchestration = max(B_g + C_g) / T,  so PE = LB x CommE x Orchestration.
// With kDevicePriority, B_g is the useful role time and C_g the comm + transfer role time.
//
// Serialization and transfer efficiency (POP's split of CommE) need a replay of the run
// on an ideal network: storage/analysis/ideal_replay.h computes it and fills them in.

#include "model/role_time.h"

#include <optional>
#include <string>
#include <vector>

namespace strata::model {

struct WorkerTimes
{
    std::string name;
    RoleTimes times;
};

struct PopMetrics
{
    TimeNs runtimeNs = 0;  ///< T
    int workers = 0;
    double parallelEfficiency = 0;
    double loadBalance = 0;
    double communicationEfficiency = 0;
    std::optional<double> serializationEfficiency;  ///< from the ideal replay, when asked
    std::optional<double> transferEfficiency;
    TimeNs meanUsefulNs = 0, maxUsefulNs = 0;
    /// Bound on |metric - metric from exact events| from the role times' error bounds.
    double errorBound = 0;
};

struct GpuMetrics
{
    TimeNs runtimeNs = 0;
    int gpus = 0;
    double parallelEfficiency = 0;
    double loadBalance = 0;
    double communicationEfficiency = 0;
    double orchestrationEfficiency = 0;
    TimeNs sumComputeNs = 0, maxComputeNs = 0, maxComputeAndCommNs = 0;
    double errorBound = 0;
};

/// POP's hybrid MPI + threads split at the thread level (pypop's MPI_OpenMP metrics, the
/// multiplicative form): with N_i the time process i's main thread spends outside MPI,
///     MPI LB = mean(N_i) / max(N_i),  MPI CommE = max(N_i) / T,
///     MPI PE = LB x CommE = mean(N_i) / T,
///     hybrid PE = mean over all threads of U / T (the thread level's PE),
///     thread PE = hybrid PE / MPI PE   (what the threads lose inside the processes' time
///                                       outside MPI: fork/join, serial parts, imbalance).
struct HybridMetrics
{
    double parallelEfficiency = 0;  ///< hybrid
    double mpiParallelEfficiency = 0;
    double mpiLoadBalance = 0;
    double mpiCommunicationEfficiency = 0;
    double threadParallelEfficiency = 0;
};

/// `outsideMpiNs`: N_i per process; `threadPop`: the thread level's POP metrics.
HybridMetrics hybridMetrics(
    const std::vector<TimeNs>& outsideMpiNs, const PopMetrics& threadPop, TimeNs runtimeNs);

/// POP metrics of the workers' useful time (all zero when there are no workers or T = 0).
PopMetrics popMetrics(const std::vector<WorkerTimes>& workers, TimeNs runtimeNs);
/// GPU-level metrics; each worker is a GPU counted with kDevicePriority.
GpuMetrics gpuMetrics(const std::vector<WorkerTimes>& gpus, TimeNs runtimeNs);
/// Host share not spent in GPU runtime calls: 1 - sum runtime_i / (P T), P processes
/// counted with kHostPriority (the device-offload efficiency of docs/metrics.md).
double deviceOffloadEfficiency(const std::vector<WorkerTimes>& processes, TimeNs runtimeNs);

}  // namespace strata::model
