#include "storage/analysis/efficiency_partial.h"

#include <stdexcept>

namespace strata::storage {

using model::TimeNs;

namespace {

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

model::RoleTimes total(const std::vector<RoleSlot>& slots)
{
    model::RoleTimes sum;
    for (const RoleSlot& s : slots)
        sum += s.times;
    return sum;
}

template<typename Map>
void mergeDisjoint(Map& into, Map&& from, const char* what)
{
    for (auto& [key, value] : from) {
        if (!into.emplace(key, std::move(value)).second)
            throw std::invalid_argument(
                std::string("efficiency partials both hold ") + what + " " + std::to_string(key));
    }
}

template<typename Map>
void addAll(Map& into, const Map& from)
{
    for (const auto& [key, ns] : from)
        into[key] += ns;
}

}  // namespace

void EfficiencyPartial::merge(EfficiencyPartial&& other)
{
    mergeDisjoint(workers, std::move(other.workers), "worker");
    mergeDisjoint(hosts, std::move(other.hosts), "host process");
    mergeDisjoint(gpuIdle, std::move(other.gpuIdle), "GPU");
    addAll(attribution.byRule, other.attribution.byRule);
    addAll(attribution.byName, other.attribution.byName);
    mergeDisjoint(threads, std::move(other.threads), "thread");
    mergeDisjoint(outsideMpi, std::move(other.outsideMpi), "process");
    mergeDisjoint(replay, std::move(other.replay), "process");
}

bool CategoryLearning::empty() const
{
    for (const auto& chain : chains) {
        for (const auto& [index, knowledge] : chain) {
            if (!knowledge.empty())
                return false;
        }
    }
    return true;
}

void CategoryLearning::merge(const CategoryLearning& other)
{
    for (int chain = 0; chain < 2; ++chain) {
        for (const auto& [index, knowledge] : other.chains[chain])
            chains[chain].emplace(index, knowledge);
    }
}

EfficiencyCollector::EfficiencyCollector(
    StoreReader& store, const EfficiencyPlan& plan, OwnsWorker owns)
    : m_store(store)
    , m_plan(plan)
    , m_owns(std::move(owns))
{
    for (auto& reader : m_readers)
        reader = std::make_unique<RoleTimeReader>(
            store, RoleTimeReader::Options { plan.request.maxSlots, plan.request.rules });
}

EfficiencyCollector::~EfficiencyCollector() = default;

const model::Worker& EfficiencyCollector::worker(int chain, std::size_t index) const
{
    return chain == 0 ? m_plan.workers[index] : m_plan.hostProcesses[index];
}

CategoryLearning EfficiencyCollector::learn()
{
    CategoryLearning out;
    for (int chain = 0; chain < 2; ++chain) {
        const std::size_t count = chain == 0 ? m_plan.workers.size() : m_plan.hostProcesses.size();
        for (std::size_t i = 0; i < count; ++i) {
            if (!m_owns(worker(chain, i)))
                continue;
            CategoryKnowledge learned =
                m_readers[chain]->categoriesLearnedBy(worker(chain, i).tracks, m_plan.window);
            if (!learned.empty())
                out.chains[chain][static_cast<std::uint32_t>(i)] = std::move(learned);
        }
    }
    return out;
}

void EfficiencyCollector::seed(int chain, std::size_t index)
{
    if (!m_everyone)
        return;  // one reader reads every worker in order
    if (index < m_beforeIndex[chain]) {  // out of order (a host read for a GPU): start over
        m_before[chain].clear();
        m_beforeIndex[chain] = 0;
    }
    const auto& learnings = m_everyone->chains[chain];
    for (auto it = learnings.lower_bound(static_cast<std::uint32_t>(m_beforeIndex[chain]));
         it != learnings.end() && it->first < index; ++it)
        learnCategories(m_before[chain], it->second);
    m_beforeIndex[chain] = index;
    m_readers[chain]->seedCategories(m_before[chain]);
}

std::vector<RoleSlot> EfficiencyCollector::read(int chain, std::size_t index)
{
    seed(chain, index);
    const auto& priority =
        chain == 0 && m_plan.device() ? model::kDeviceWorker : model::kHostWorker;
    return m_readers[chain]->roleSlots(worker(chain, index).tracks, m_plan.window, priority);
}

EfficiencyPartial EfficiencyCollector::collect(const CategoryLearning* everyone)
{
    m_everyone = everyone;
    EfficiencyPartial partial;
    const bool gpuLevel = m_plan.level == model::WorkerLevel::Gpu;
    // Slots kept for the GPU idle causes: of the owned GPUs with a host, and their hosts.
    std::map<std::size_t, std::vector<RoleSlot>> gpuSlots, hostSlots;
    std::vector<bool> hostsAGpu(m_plan.hostProcesses.size(), false);
    for (std::size_t i = 0; i < m_plan.workers.size(); ++i) {
        if (gpuLevel && m_plan.hostOf[i] >= 0)
            hostsAGpu[static_cast<std::size_t>(m_plan.hostOf[i])] = true;
        if (!m_owns(m_plan.workers[i]))
            continue;
        std::vector<RoleSlot> slots = read(0, i);
        partial.workers[static_cast<std::uint32_t>(i)] = total(slots);
        if (gpuLevel && m_plan.hostOf[i] >= 0)
            gpuSlots[i] = std::move(slots);
    }
    partial.attribution = m_readers[0]->attribution();
    for (std::size_t h = 0; h < m_plan.hostProcesses.size(); ++h) {
        if (!m_owns(m_plan.hostProcesses[h]))
            continue;
        std::vector<RoleSlot> slots = read(1, h);
        partial.hosts[static_cast<std::uint32_t>(h)] = total(slots);
        if (hostsAGpu[h])
            hostSlots[h] = std::move(slots);
    }
    for (auto& [g, slots] : gpuSlots) {
        const auto h = static_cast<std::size_t>(m_plan.hostOf[g]);
        if (!hostSlots.count(h))  // another process owns the host: read it here, as it does
            hostSlots[h] = read(1, h);
        GpuIdleCauses c = idleCauses(slots, hostSlots[h]);
        c.gpu = m_plan.workers[g].name;
        c.process = m_plan.hostProcesses[h].name;
        partial.gpuIdle[static_cast<std::uint32_t>(g)] = std::move(c);
    }
    for (std::size_t t = 0; t < m_plan.counterThreads.size(); ++t) {
        if (m_owns(m_plan.counterThreads[t]))
            partial.threads[static_cast<std::uint32_t>(t)] =
                threadCounters(m_store, m_plan.counterThreads[t], m_plan.window);
    }
    const bool replay = m_plan.replay && m_plan.replayUnavailable.empty();
    if (!m_plan.hybrid && !replay)
        return partial;
    MpiCallReader calls(m_store);
    for (std::size_t p = 0; p < calls.processes().size(); ++p) {
        if (!m_owns(calls.processes()[p]))
            continue;
        const auto key = static_cast<std::uint32_t>(p);
        if (m_plan.hybrid)
            partial.outsideMpi[key] = calls.outsideMpiNs(p, m_plan.window);
        if (replay)
            partial.replay[key] = calls.replayPart(p, m_plan.run);
    }
    return partial;
}

}  // namespace strata::storage
