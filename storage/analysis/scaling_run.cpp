#include "storage/analysis/scaling_run.h"

#include <algorithm>
#include <map>

namespace strata::storage {

ScalingRun scalingRun(const std::string& name, const EfficiencyReport& report)
{
    ScalingRun run;
    model::RunFactors& f = run.factors;
    f.store = name;
    f.runtimeNs = report.window.durationNs();
    f.parallelEfficiency = report.pop.parallelEfficiency;
    f.loadBalance = report.pop.loadBalance;
    f.communicationEfficiency = report.pop.communicationEfficiency;
    f.serializationEfficiency = report.pop.serializationEfficiency;
    f.transferEfficiency = report.pop.transferEfficiency;
    if (!report.replayUnavailable.empty())
        run.notes.push_back("serialization/transfer not available: " + report.replayUnavailable);
    std::map<std::string, int> threadsPerProcess;
    if (report.counters) {
        for (const ThreadCounters& t : report.counters->threads)
            ++threadsPerProcess[t.process];
        f.usefulNs = report.counters->usefulNs();
        if (report.counters->complete()) {
            f.instructions = report.counters->instructions();
            f.cycles = report.counters->cycles();
        } else {
            run.notes.push_back("no hardware counters (Extrae's PAPI_TOT_INS and PAPI_TOT_CYC on "
                                "every thread with useful time): no IPC or frequency");
        }
    }
    f.processes = report.level == model::WorkerLevel::Process
        ? static_cast<int>(report.workers.size())
        : static_cast<int>(std::max<std::size_t>(1, threadsPerProcess.size()));
    for (const auto& [process, n] : threadsPerProcess)
        f.threads = std::max(f.threads, n);
    return run;
}

ScalingRun computeScalingRun(StoreReader& store, const std::string& name, model::WorkerLevel level)
{
    EfficiencyRequest request;
    request.level = level;
    request.counters = true;
    request.idealReplay = true;
    return scalingRun(name, computeEfficiency(store, request));
}

model::ScalingTable scalingTableOf(
    const std::vector<ScalingRun>& runs, std::optional<model::Scaling> force)
{
    std::vector<model::RunFactors> factors;
    for (const ScalingRun& r : runs)
        factors.push_back(r.factors);
    return model::scalingTable(std::move(factors), force);
}

std::vector<std::string> notesOf(const std::vector<ScalingRun>& runs, const std::string& name)
{
    for (const ScalingRun& r : runs) {
        if (r.factors.store == name)
            return r.notes;
    }
    return {};
}

}  // namespace strata::storage
