#include "storage/analysis/efficiency_report.h"

#include "storage/analysis/efficiency_partial.h"
#include "storage/analysis/replay_input.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <stdexcept>

namespace strata::storage {

using model::TimeNs;
using model::TrackId;
using model::WorkerLevel;

namespace {

std::vector<model::Worker> selectWorkers(
    const StoreReader& store, WorkerLevel level, bool all, std::vector<std::string>& ignored)
{
    auto workers = model::workersAt(
        store.resources(), level, [&](model::TrackId t) { return store.summary(t).intervals > 0; });
    auto intervals = [&](const model::Worker& w) {
        std::int64_t n = 0;
        for (model::TrackId t : w.tracks)
            n += store.summary(t).intervals;
        return n;
    };
    std::int64_t busiest = 0;
    for (const auto& w : workers)
        busiest = std::max(busiest, intervals(w));
    if (all)
        return workers;
    std::vector<model::Worker> kept;
    for (auto& w : workers) {
        if (intervals(w) * 100 >= busiest)
            kept.push_back(std::move(w));
        else
            ignored.push_back(w.name);
    }
    return kept;
}

bool anyStreamIntervals(const StoreReader& store)
{
    for (const model::TrackInfo& t : store.resources().tracks()) {
        if (t.kind == model::ResourceKind::Stream && store.summary(t.id).intervals > 0)
            return true;
    }
    return false;
}

/// The run: the span of the traces' activity (a counter log sampled before and after the
/// trace is not the run). A Paraver trace counts its time from 0 and states the run's end
/// in its header, which BSC's modelfactors takes as the runtime, so a Paraver store's run
/// is [0, header end] (or to its last record, if one lies beyond). A cut of a store keeps
/// its source's meta, whose header end then describes the source, not the cut.
model::TimeRange runSpan(const StoreReader& store)
{
    model::TimeRange span = store.activitySpan();
    if (store.meta("source_format") != "paraver" || store.meta("cut_source"))
        return span;
    const auto end = store.meta("paraver_end_ns");
    if (!end)
        return span;
    TimeNs endNs = 0;
    const auto [ptr, ec] = std::from_chars(end->data(), end->data() + end->size(), endNs);
    if (ec != std::errc() || ptr != end->data() + end->size() || endNs <= 0)
        return span;
    return { std::min<TimeNs>(0, span.startNs), std::max(span.endNs, endNs) };
}

/// POP's split of CommE: SerE = max useful / T_ideal, TE = T_ideal / T.
void splitCommunication(std::vector<ReplayProcessPart> parts, EfficiencyReport& report)
{
    auto input = assembleReplayInput(std::move(parts));
    if (auto* why = std::get_if<std::string>(&input)) {
        report.replayUnavailable = *why;
        return;
    }
    const ReplayResult replay = replayIdeal(std::get<ReplayInput>(input));
    if (replay.error || replay.idealRuntimeNs <= 0) {
        report.replayUnavailable = replay.error.value_or("the ideal replay has no duration");
        return;
    }
    const double ideal = static_cast<double>(replay.idealRuntimeNs);
    report.idealRuntimeNs = replay.idealRuntimeNs;
    report.pop.serializationEfficiency = static_cast<double>(report.pop.maxUsefulNs) / ideal;
    report.pop.transferEfficiency = ideal / static_cast<double>(report.window.durationNs());
}

/// Whether some process has several thread workers (then the hybrid split means something).
bool anyProcessThreaded(const StoreReader& store)
{
    std::map<TrackId, int> threadsPerProcess;
    const model::ResourceTree& tree = store.resources();
    for (const model::Worker& w : model::workersAt(tree, WorkerLevel::Thread,
             [&](TrackId t) { return store.summary(t).intervals > 0; })) {
        const TrackId parent = tree.track(w.resource).parent;
        if (parent != model::kNoTrack && tree.track(parent).kind == model::ResourceKind::Process)
            ++threadsPerProcess[parent];
    }
    return std::any_of(threadsPerProcess.begin(), threadsPerProcess.end(),
        [](const auto& p) { return p.second > 1; });
}

/// The entry `index` of a merged partial.
template<typename Map>
typename Map::mapped_type& entry(Map& map, std::size_t index)
{
    const auto it = map.find(static_cast<std::uint32_t>(index));
    if (it == map.end())
        throw std::logic_error("efficiency partial lacks entry " + std::to_string(index));
    return it->second;
}

}  // namespace

const model::Worker* hostOf(const model::Worker& gpu, const std::vector<model::Worker>& processes)
{
    const std::string& name = gpu.name;
    const auto open = name.rfind('(');
    if (open != std::string::npos && name.back() == ')') {
        const std::string inner = name.substr(open + 1, name.size() - open - 2);
        for (const auto& p : processes) {
            if (p.name == inner || p.name.ends_with("/" + inner))
                return &p;
        }
    }
    return processes.size() == 1 ? &processes.front() : nullptr;
}

EfficiencyPlan planEfficiency(const StoreReader& store, const EfficiencyRequest& request)
{
    EfficiencyPlan plan;
    plan.request = request;
    plan.run = runSpan(store);
    plan.window = request.window.empty() ? plan.run : request.window.clippedTo(plan.run);
    plan.level =
        request.level.value_or(anyStreamIntervals(store) ? WorkerLevel::Gpu : WorkerLevel::Process);
    plan.workers = selectWorkers(store, plan.level, request.allWorkers, plan.ignoredWorkers);
    if (request.counters)
        plan.counterThreads = counterThreads(store);
    plan.hybrid =
        request.idealReplay && plan.level == WorkerLevel::Thread && anyProcessThreaded(store);
    plan.replay = request.idealReplay && !plan.device();
    if (plan.replay) {
        if (plan.window != plan.run)
            plan.replayUnavailable = "the ideal replay covers the whole run only (no --window)";
        else if (!MpiCallReader::anyMpiCategory(store))
            plan.replayUnavailable = "the trace has no MPI calls to replay";
    }
    if (plan.hybrid || (plan.replay && plan.replayUnavailable.empty()))
        plan.mpiProcesses =
            model::workersAt(store.resources(), WorkerLevel::Process, [&](TrackId t) {
                return store.summary(t).intervals > 0;
            }).size();
    if (plan.device()) {
        std::vector<std::string> ignoredHosts;
        plan.hostProcesses =
            selectWorkers(store, WorkerLevel::Process, request.allWorkers, ignoredHosts);
    }
    if (plan.level == WorkerLevel::Gpu) {
        for (const model::Worker& gpu : plan.workers) {
            const model::Worker* host = hostOf(gpu, plan.hostProcesses);
            plan.hostOf.push_back(host ? static_cast<int>(host - plan.hostProcesses.data()) : -1);
        }
    }
    return plan;
}

EfficiencyReport finishEfficiency(const EfficiencyPlan& plan, EfficiencyPartial&& partial)
{
    EfficiencyReport report;
    report.window = plan.window;
    report.level = plan.level;
    report.ignoredWorkers = plan.ignoredWorkers;
    const TimeNs T = report.window.durationNs();
    for (std::size_t i = 0; i < plan.workers.size(); ++i) {
        const model::RoleTimes& times = entry(partial.workers, i);
        report.exact = report.exact && times.exact();
        report.workers.push_back({ plan.workers[i].name, times });
    }
    report.attribution = std::move(partial.attribution);
    report.pop = model::popMetrics(report.workers, T);
    if (plan.request.counters) {
        report.counters.emplace();
        for (std::size_t t = 0; t < plan.counterThreads.size(); ++t)
            report.counters->threads.push_back(std::move(entry(partial.threads, t)));
    }
    if (plan.hybrid) {
        std::vector<TimeNs> outside;
        for (std::size_t p = 0; p < plan.mpiProcesses; ++p)
            outside.push_back(entry(partial.outsideMpi, p));
        report.hybrid = model::hybridMetrics(outside, report.pop, T);
    }
    if (!plan.device()) {
        if (!plan.replay)
            return report;
        if (!plan.replayUnavailable.empty()) {
            report.replayUnavailable = plan.replayUnavailable;
            return report;
        }
        std::vector<ReplayProcessPart> parts;
        for (std::size_t p = 0; p < plan.mpiProcesses; ++p)
            parts.push_back(std::move(entry(partial.replay, p)));
        splitCommunication(std::move(parts), report);
        return report;
    }

    report.gpu = model::gpuMetrics(report.workers, T);
    if (plan.hostProcesses.empty())
        return report;
    for (std::size_t h = 0; h < plan.hostProcesses.size(); ++h)
        report.hostProcesses.push_back({ plan.hostProcesses[h].name, entry(partial.hosts, h) });
    report.hostPop = model::popMetrics(report.hostProcesses, T);
    report.deviceOffloadEfficiency = model::deviceOffloadEfficiency(report.hostProcesses, T);
    if (plan.level != WorkerLevel::Gpu)
        return report;
    for (std::size_t g = 0; g < plan.workers.size(); ++g) {
        if (plan.hostOf[g] >= 0)
            report.gpuIdle.push_back(std::move(entry(partial.gpuIdle, g)));
    }
    return report;
}

EfficiencyReport computeEfficiency(StoreReader& store, const EfficiencyRequest& request)
{
    const EfficiencyPlan plan = planEfficiency(store, request);
    EfficiencyCollector collector(store, plan, [](const model::Worker&) { return true; });
    return finishEfficiency(plan, collector.collect());
}

}  // namespace strata::storage
