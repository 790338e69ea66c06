#include "storage/analysis/efficiency_report.h"

#include "storage/analysis/replay_input.h"

#include <algorithm>
#include <charconv>
#include <map>

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

GpuIdleCauses idleCauses(
    const std::vector<RoleSlot>& gpuSlots, const std::vector<RoleSlot>& hostSlots)
{
    GpuIdleCauses c;
    for (std::size_t i = 0; i < gpuSlots.size() && i < hostSlots.size(); ++i) {
        const model::RoleTimes& g = gpuSlots[i].times;
        const model::RoleTimes& h = hostSlots[i].times;
        const TimeNs idle = g.uncoveredNs();
        if (idle <= 0 || h.windowNs <= 0)
            continue;
        c.gpuIdleNs += idle;
        const double scale = static_cast<double>(idle) / static_cast<double>(h.windowNs);
        TimeNs given = 0;
        for (std::size_t r = 0; r < model::kRoleCount; ++r) {
            const auto part = static_cast<TimeNs>(static_cast<double>(h.ns[r]) * scale);
            c.hostRoleNs[r] += part;
            given += part;
        }
        c.hostInactiveNs += idle - given;
    }
    return c;
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
void splitCommunication(StoreReader& store, model::TimeRange run, EfficiencyReport& report)
{
    if (report.window != run) {
        report.replayUnavailable = "the ideal replay covers the whole run only (no --window)";
        return;
    }
    auto input = buildReplayInput(store, run);
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

/// The hybrid split, when some process has several thread workers.
void addHybrid(StoreReader& store, EfficiencyReport& report)
{
    std::map<TrackId, int> threadsPerProcess;
    const model::ResourceTree& tree = store.resources();
    for (const model::Worker& w : model::workersAt(tree, WorkerLevel::Thread,
             [&](TrackId t) { return store.summary(t).intervals > 0; })) {
        const TrackId parent = tree.track(w.resource).parent;
        if (parent != model::kNoTrack && tree.track(parent).kind == model::ResourceKind::Process)
            ++threadsPerProcess[parent];
    }
    if (std::none_of(threadsPerProcess.begin(), threadsPerProcess.end(),
            [](const auto& p) { return p.second > 1; }))
        return;
    report.hybrid = model::hybridMetrics(
        outsideMpiNs(store, report.window), report.pop, report.window.durationNs());
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

EfficiencyReport computeEfficiency(StoreReader& store, const EfficiencyRequest& request)
{
    EfficiencyReport report;
    const model::TimeRange run = runSpan(store);
    report.window = request.window.empty() ? run : request.window.clippedTo(run);
    report.level =
        request.level.value_or(anyStreamIntervals(store) ? WorkerLevel::Gpu : WorkerLevel::Process);
    const bool device = model::isDeviceLevel(report.level);
    const TimeNs T = report.window.durationNs();

    RoleTimeReader reader(store, { request.maxSlots, request.rules });
    const auto priority = device ? model::kDeviceWorker : model::kHostWorker;
    const auto workers =
        selectWorkers(store, report.level, request.allWorkers, report.ignoredWorkers);
    std::vector<std::vector<RoleSlot>> workerSlots;
    for (const model::Worker& w : workers) {
        workerSlots.push_back(reader.roleSlots(w.tracks, report.window, priority));
        model::RoleTimes total;
        for (const RoleSlot& s : workerSlots.back())
            total += s.times;
        report.exact = report.exact && total.exact();
        report.workers.push_back({ w.name, total });
    }
    report.attribution = reader.attribution();
    report.pop = model::popMetrics(report.workers, T);
    if (request.counters)
        report.counters = computeUsefulCounters(store, report.window);
    if (request.idealReplay && report.level == WorkerLevel::Thread)
        addHybrid(store, report);
    if (!device) {
        if (request.idealReplay)
            splitCommunication(store, run, report);
        return report;
    }

    report.gpu = model::gpuMetrics(report.workers, T);
    std::vector<std::string> ignoredHosts;
    const auto processes =
        selectWorkers(store, WorkerLevel::Process, request.allWorkers, ignoredHosts);
    if (processes.empty())
        return report;
    RoleTimeReader hostReader(store, { request.maxSlots, request.rules });
    std::vector<std::vector<RoleSlot>> processSlots;
    for (const model::Worker& p : processes) {
        processSlots.push_back(hostReader.roleSlots(p.tracks, report.window, model::kHostWorker));
        model::RoleTimes total;
        for (const RoleSlot& s : processSlots.back())
            total += s.times;
        report.hostProcesses.push_back({ p.name, total });
    }
    report.hostPop = model::popMetrics(report.hostProcesses, T);
    report.deviceOffloadEfficiency = model::deviceOffloadEfficiency(report.hostProcesses, T);
    if (report.level != WorkerLevel::Gpu)
        return report;
    for (std::size_t g = 0; g < workers.size(); ++g) {
        const model::Worker* host = hostOf(workers[g], processes);
        if (!host)
            continue;
        const auto hostIndex = static_cast<std::size_t>(host - processes.data());
        GpuIdleCauses c = idleCauses(workerSlots[g], processSlots[hostIndex]);
        c.gpu = workers[g].name;
        c.process = host->name;
        report.gpuIdle.push_back(c);
    }
    return report;
}

}  // namespace strata::storage
