#include "model/efficiency.h"

#include <algorithm>

namespace strata::model {

namespace {

double ratio(double num, double den)
{
    return den > 0 ? num / den : 0.0;
}

/// Worst relative change of max/mean style ratios when every input may move by its
/// error: a first-order bound, err(x)/x summed over the terms of the ratio.
double relativeError(TimeNs valueNs, TimeNs errorNs)
{
    return valueNs > 0 ? static_cast<double>(errorNs) / static_cast<double>(valueNs) : 0.0;
}

}  // namespace

PopMetrics popMetrics(const std::vector<WorkerTimes>& workers, TimeNs runtimeNs)
{
    PopMetrics m;
    m.runtimeNs = runtimeNs;
    m.workers = static_cast<int>(workers.size());
    if (workers.empty() || runtimeNs <= 0)
        return m;
    double sum = 0;
    TimeNs maxU = 0, maxErr = 0, sumErr = 0;
    for (const WorkerTimes& w : workers) {
        const TimeNs u = w.times.at(Role::Useful);
        sum += static_cast<double>(u);
        maxU = std::max(maxU, u);
        maxErr = std::max(maxErr, w.times.error(Role::Useful));
        sumErr += w.times.error(Role::Useful);
    }
    const double mean = sum / static_cast<double>(workers.size());
    const double T = static_cast<double>(runtimeNs);
    m.meanUsefulNs = static_cast<TimeNs>(mean);
    m.maxUsefulNs = maxU;
    m.parallelEfficiency = mean / T;
    m.loadBalance = ratio(mean, static_cast<double>(maxU));
    m.communicationEfficiency = static_cast<double>(maxU) / T;
    m.errorBound = std::max({ static_cast<double>(sumErr) / static_cast<double>(workers.size()) / T,
        static_cast<double>(maxErr) / T,
        m.loadBalance
            * (relativeError(static_cast<TimeNs>(mean), sumErr / m.workers)
                + relativeError(maxU, maxErr)) });
    return m;
}

GpuMetrics gpuMetrics(const std::vector<WorkerTimes>& gpus, TimeNs runtimeNs)
{
    GpuMetrics m;
    m.runtimeNs = runtimeNs;
    m.gpus = static_cast<int>(gpus.size());
    if (gpus.empty() || runtimeNs <= 0)
        return m;
    TimeNs maxErr = 0, sumErr = 0;
    for (const WorkerTimes& g : gpus) {
        const TimeNs b = g.times.at(Role::Useful);
        const TimeNs c = g.times.at(Role::Comm) + g.times.at(Role::Transfer);
        m.sumComputeNs += b;
        m.maxComputeNs = std::max(m.maxComputeNs, b);
        m.maxComputeAndCommNs = std::max(m.maxComputeAndCommNs, b + c);
        const TimeNs err =
            g.times.error(Role::Useful) + g.times.error(Role::Comm) + g.times.error(Role::Transfer);
        maxErr = std::max(maxErr, err);
        sumErr += err;
    }
    const double G = static_cast<double>(gpus.size());
    const double T = static_cast<double>(runtimeNs);
    m.parallelEfficiency = static_cast<double>(m.sumComputeNs) / (G * T);
    m.loadBalance =
        ratio(static_cast<double>(m.sumComputeNs), G * static_cast<double>(m.maxComputeNs));
    m.communicationEfficiency =
        ratio(static_cast<double>(m.maxComputeNs), static_cast<double>(m.maxComputeAndCommNs));
    m.orchestrationEfficiency = static_cast<double>(m.maxComputeAndCommNs) / T;
    m.errorBound =
        std::max(relativeError(m.sumComputeNs, sumErr) + relativeError(m.maxComputeNs, maxErr),
            relativeError(m.maxComputeAndCommNs, maxErr) + relativeError(m.maxComputeNs, maxErr));
    return m;
}

HybridMetrics hybridMetrics(
    const std::vector<TimeNs>& outsideMpiNs, const PopMetrics& threadPop, TimeNs runtimeNs)
{
    HybridMetrics h;
    h.parallelEfficiency = threadPop.parallelEfficiency;
    if (outsideMpiNs.empty() || runtimeNs <= 0)
        return h;
    double sum = 0;
    TimeNs maxN = 0;
    for (TimeNs n : outsideMpiNs) {
        sum += static_cast<double>(n);
        maxN = std::max(maxN, n);
    }
    const double mean = sum / static_cast<double>(outsideMpiNs.size());
    const double T = static_cast<double>(runtimeNs);
    h.mpiLoadBalance = ratio(mean, static_cast<double>(maxN));
    h.mpiCommunicationEfficiency = static_cast<double>(maxN) / T;
    h.mpiParallelEfficiency = mean / T;
    h.threadParallelEfficiency = ratio(h.parallelEfficiency, h.mpiParallelEfficiency);
    return h;
}

double deviceOffloadEfficiency(const std::vector<WorkerTimes>& processes, TimeNs runtimeNs)
{
    if (processes.empty() || runtimeNs <= 0)
        return 0.0;
    double runtime = 0;
    for (const WorkerTimes& p : processes)
        runtime += static_cast<double>(p.times.at(Role::Runtime));
    return 1.0 - runtime / (static_cast<double>(processes.size()) * static_cast<double>(runtimeNs));
}

}  // namespace strata::model
