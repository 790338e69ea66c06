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

void CategoryLearning::merge(const CategoryLearning& other)
{
    for (int chain = 0; chain < 2; ++chain) {
        for (const auto& [index, knowledge] : other.chains[chain])
            chains[chain].emplace(index, knowledge);
    }
}

/// One worker's read, kept until settle().
struct EfficiencyCollector::Record
{
    RoleAttribution attribution;
    CategoryKnowledge learned;
    std::set<CategoryReliance> relied;
    std::vector<RoleSlot> slots;  ///< only where the GPU idle causes need them
};

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

std::vector<RoleSlot> EfficiencyCollector::read(
    int chain, std::size_t index, const CategoryKnowledge* seed, Record* record)
{
    const model::Worker& worker = chain == 0 ? m_plan.workers[index] : m_plan.hostProcesses[index];
    const auto& priority =
        chain == 0 && m_plan.device() ? model::kDeviceWorker : model::kHostWorker;
    std::unique_ptr<RoleTimeReader> seeded;
    RoleTimeReader* reader = m_readers[chain].get();
    if (seed) {
        seeded = std::make_unique<RoleTimeReader>(
            m_store, RoleTimeReader::Options { m_plan.request.maxSlots, m_plan.request.rules });
        seeded->seedCategories(*seed);
        reader = seeded.get();
    }
    reader->startRecord();
    std::vector<RoleSlot> slots = reader->roleSlots(worker.tracks, m_plan.window, priority);
    RoleAttribution attribution = reader->takeAttribution();
    if (record) {
        record->learned = reader->learned();
        record->relied = reader->relied();
        record->attribution = std::move(attribution);
    }
    return slots;
}

void EfficiencyCollector::collect()
{
    const bool gpuLevel = m_plan.level == model::WorkerLevel::Gpu;
    std::vector<bool> hostsAGpu(m_plan.hostProcesses.size(), false);
    for (std::size_t i = 0; i < m_plan.workers.size(); ++i) {
        if (gpuLevel && m_plan.hostOf[i] >= 0)
            hostsAGpu[static_cast<std::size_t>(m_plan.hostOf[i])] = true;
        if (!m_owns(m_plan.workers[i]))
            continue;
        Record& record = m_records[0][static_cast<std::uint32_t>(i)];
        std::vector<RoleSlot> slots = read(0, i, nullptr, &record);
        m_partial.workers[static_cast<std::uint32_t>(i)] = total(slots);
        if (gpuLevel && m_plan.hostOf[i] >= 0)
            record.slots = std::move(slots);
    }
    for (std::size_t h = 0; h < m_plan.hostProcesses.size(); ++h) {
        if (!m_owns(m_plan.hostProcesses[h]))
            continue;
        Record& record = m_records[1][static_cast<std::uint32_t>(h)];
        std::vector<RoleSlot> slots = read(1, h, nullptr, &record);
        m_partial.hosts[static_cast<std::uint32_t>(h)] = total(slots);
        if (hostsAGpu[h])
            record.slots = std::move(slots);
    }
    for (std::size_t t = 0; t < m_plan.counterThreads.size(); ++t) {
        if (m_owns(m_plan.counterThreads[t]))
            m_partial.threads[static_cast<std::uint32_t>(t)] =
                threadCounters(m_store, m_plan.counterThreads[t], m_plan.window);
    }
    const bool replay = m_plan.replay && m_plan.replayUnavailable.empty();
    if (!m_plan.hybrid && !replay)
        return;
    MpiCallReader calls(m_store);
    for (std::size_t p = 0; p < calls.processes().size(); ++p) {
        if (!m_owns(calls.processes()[p]))
            continue;
        const auto key = static_cast<std::uint32_t>(p);
        if (m_plan.hybrid)
            m_partial.outsideMpi[key] = calls.outsideMpiNs(p, m_plan.window);
        if (replay)
            m_partial.replay[key] = calls.replayPart(p, m_plan.run);
    }
}

CategoryLearning EfficiencyCollector::learned() const
{
    CategoryLearning out;
    for (int chain = 0; chain < 2; ++chain) {
        for (const auto& [index, record] : m_records[chain])
            out.chains[chain][index] = record.learned;
    }
    return out;
}

bool EfficiencyCollector::relies() const
{
    for (const auto& records : m_records) {
        for (const auto& [index, record] : records) {
            if (!record.relied.empty())
                return true;
        }
    }
    return false;
}

CategoryKnowledge EfficiencyCollector::knowledgeBefore(
    const CategoryLearning& everyone, int chain, std::size_t index) const
{
    CategoryKnowledge known;
    const auto& learnings = everyone.chains[chain];
    for (auto it = learnings.begin(); it != learnings.end() && it->first < index; ++it)
        learnCategories(known, it->second);
    return known;
}

EfficiencyPartial EfficiencyCollector::settle(const CategoryLearning& everyone)
{
    for (int chain = 0; chain < 2; ++chain) {
        for (auto& [index, record] : m_records[chain]) {
            if (record.relied.empty())
                continue;
            const CategoryKnowledge before = knowledgeBefore(everyone, chain, index);
            if (RoleTimeReader::reliedOnlyOn(record.relied, before))
                continue;
            // Read as the single reader would have: after every earlier worker.
            const bool keepSlots = !record.slots.empty();
            Record again;
            std::vector<RoleSlot> slots = read(chain, index, &before, &again);
            (chain == 0 ? m_partial.workers : m_partial.hosts)[index] = total(slots);
            record.attribution = std::move(again.attribution);
            if (keepSlots)
                record.slots = std::move(slots);
        }
    }
    for (auto& [index, record] : m_records[0]) {
        addAll(m_partial.attribution.byRule, record.attribution.byRule);
        addAll(m_partial.attribution.byName, record.attribution.byName);
    }
    if (m_plan.level == model::WorkerLevel::Gpu) {
        for (auto& [index, record] : m_records[0]) {
            const int host = m_plan.hostOf[index];
            if (host < 0)
                continue;
            const auto h = static_cast<std::uint32_t>(host);
            std::vector<RoleSlot> hostSlots;
            if (const auto own = m_records[1].find(h); own != m_records[1].end()) {
                hostSlots = own->second.slots;
            } else {  // another process owns the host: read it here, as it would
                const CategoryKnowledge before = knowledgeBefore(everyone, 1, h);
                hostSlots = read(1, h, &before, nullptr);
            }
            GpuIdleCauses c = idleCauses(record.slots, hostSlots);
            c.gpu = m_plan.workers[index].name;
            c.process = m_plan.hostProcesses[h].name;
            m_partial.gpuIdle[index] = std::move(c);
        }
    }
    m_records[0].clear();
    m_records[1].clear();
    return std::move(m_partial);
}

}  // namespace strata::storage
