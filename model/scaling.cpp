#include "model/scaling.h"

#include <algorithm>

namespace strata::model {

namespace {

double cores(const RunFactors& r)
{
    return static_cast<double>(r.processes) * static_cast<double>(std::max(1, r.threads));
}

bool hasCounters(const RunFactors& r)
{
    return r.instructions && r.cycles && *r.cycles > 0 && r.usefulNs > 0;
}

/// modelfactors' guess: mean of (work / work_ref) / (P / P_ref) over the other runs.
Scaling guess(const std::vector<RunFactors>& runs, bool byInstructions)
{
    if (runs.size() < 2)
        return Scaling::Strong;
    auto work = [&](const RunFactors& r) {
        return byInstructions ? *r.instructions : static_cast<double>(r.usefulNs);
    };
    const double ref = work(runs.front());
    if (ref <= 0)
        return Scaling::Strong;
    double sum = 0;
    for (std::size_t i = 1; i < runs.size(); ++i)
        sum += (work(runs[i]) / ref) / (cores(runs[i]) / cores(runs.front()));
    return sum / static_cast<double>(runs.size() - 1) > 0.9 ? Scaling::Weak : Scaling::Strong;
}

}  // namespace

const std::vector<ScalingRow>& scalingRows()
{
    using C = const ScalingColumn&;
    using V = std::optional<double>;
    static const std::vector<ScalingRow> kRows = {
        { "Global efficiency", 0, true,
            [](C c) -> V {
                return c.globalEfficiency;
            } },
        { "Parallel efficiency", 1, true,
            [](C c) -> V {
                return c.run.parallelEfficiency;
            } },
        { "Load balance", 2, true,
            [](C c) -> V {
                return c.run.loadBalance;
            } },
        { "Communication efficiency", 2, true,
            [](C c) -> V {
                return c.run.communicationEfficiency;
            } },
        { "Serialization efficiency", 3, true,
            [](C c) -> V {
                return c.run.serializationEfficiency;
            } },
        { "Transfer efficiency", 3, true,
            [](C c) -> V {
                return c.run.transferEfficiency;
            } },
        { "Computation scalability", 1, true,
            [](C c) -> V {
                return c.computationScalability;
            } },
        { "Instruction scalability", 2, true,
            [](C c) -> V {
                return c.instructionScalability;
            } },
        { "IPC scalability", 2, true,
            [](C c) -> V {
                return c.ipcScalability;
            } },
        { "Frequency scalability", 2, true,
            [](C c) -> V {
                return c.frequencyScalability;
            } },
        { "Speedup", 0, false,
            [](C c) -> V {
                return c.speedup;
            } },
        { "Average useful IPC", 0, false,
            [](C c) -> V {
                return c.averageIpc;
            } },
        { "Average useful frequency (GHz)", 0, false,
            [](C c) -> V {
                return c.averageFrequencyGhz;
            } },
    };
    return kRows;
}

ScalingTable scalingTable(std::vector<RunFactors> runs, std::optional<Scaling> force)
{
    std::stable_sort(runs.begin(), runs.end(), [](const RunFactors& a, const RunFactors& b) {
        return a.processes != b.processes ? a.processes < b.processes : a.threads < b.threads;
    });
    ScalingTable table;
    table.detectedFromInstructions = !runs.empty()
        && std::all_of(
            runs.begin(), runs.end(), [](const RunFactors& r) { return hasCounters(r); });
    table.detected = guess(runs, table.detectedFromInstructions);
    table.scaling = force.value_or(table.detected);
    if (runs.empty())
        return table;
    const RunFactors& ref = runs.front();
    const bool refCounters = hasCounters(ref);
    auto ipc = [](const RunFactors& r) {
        return *r.instructions / *r.cycles;
    };
    auto ghz = [](const RunFactors& r) {
        return *r.cycles / static_cast<double>(r.usefulNs);
    };
    for (const RunFactors& r : runs) {
        ScalingColumn c;
        c.run = r;
        const double weak = table.scaling == Scaling::Weak ? cores(r) / cores(ref) : 1.0;
        c.computationScalability = r.usefulNs > 0
            ? static_cast<double>(ref.usefulNs) / static_cast<double>(r.usefulNs) * weak
            : 0.0;
        c.globalEfficiency = r.parallelEfficiency * c.computationScalability;
        c.speedup = r.runtimeNs > 0
            ? static_cast<double>(ref.runtimeNs) / static_cast<double>(r.runtimeNs) * weak
            : 0.0;
        if (hasCounters(r)) {
            c.averageIpc = ipc(r);
            c.averageFrequencyGhz = ghz(r);
            if (refCounters && *r.instructions > 0) {
                c.instructionScalability = *ref.instructions / *r.instructions * weak;
                c.ipcScalability = ipc(r) / ipc(ref);
                c.frequencyScalability = ghz(r) / ghz(ref);
            }
        }
        table.columns.push_back(std::move(c));
    }
    return table;
}

}  // namespace strata::model
