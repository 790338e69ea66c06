// NsysTracks: the resource tree of an Nsight Systems export (see nsys_importer.h).

#include "storage/import/nsys/nsys_database.h"
#include "storage/import/nsys/nsys_importer_p.h"
#include "storage/store/trace_sink.h"

namespace strata::storage {

namespace {

/// GPUs sort after the processes (whose sort key is their pid, below 2^24).
constexpr std::int64_t kGpuSortBase = std::int64_t(1) << 32;

/// The track of `key` in `tracks`, made by `make()` the first time.
template<typename Map, typename Key, typename Make>
model::TrackId findOrAdd(Map& tracks, const Key& key, Make make)
{
    auto it = tracks.find(key);
    if (it == tracks.end())
        it = tracks.emplace(key, make()).first;
    return it->second;
}

}  // namespace

NsysTracks::NsysTracks(NsysDatabase& db, TraceSink& sink)
    : m_sink(sink)
{
    if (db.hasTable("PROCESSES")) {
        SqliteStatement rows = db.select("PROCESSES", { "globalPid", "name" });
        while (rows.step()) {
            if (!rows.isNull(0) && !rows.text(1).empty())
                m_processNames[rows.int64(0)] = validUtf8(rows.text(1));
        }
    }
    if (db.hasTable("ThreadNames")) {
        SqliteStatement rows = db.select("ThreadNames", { "globalTid", "nameId" });
        while (rows.step()) {
            if (!rows.isNull(0) && !rows.isNull(1))
                m_threadNames[rows.int64(0)] = std::string(db.string(rows.int64(1)));
        }
    }
    loadGpus(db);
}

void NsysTracks::loadGpus(NsysDatabase& db)
{
    // 2022+: TARGET_INFO_GPU (id, name, cuDevice, ...); 2021: TARGET_INFO_GPU (deviceId, name)
    // beside TARGET_INFO_CUDA_GPU (deviceId, name, ...).
    for (std::string_view table : { "TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU" }) {
        if (!m_gpus.empty() || db.column(table, "id|deviceId").empty())
            continue;
        SqliteStatement rows = db.select(table, { "id|deviceId", "cuDevice", "name" });
        while (rows.step())
            m_gpus.push_back({ rows.int64(0), optionalInt(rows, 1), validUtf8(rows.text(2)) });
    }
    const std::string_view devices = "TARGET_INFO_CUDA_DEVICE";
    if (!db.column(devices, "gpuId").empty() && !db.column(devices, "cudaId").empty()) {
        SqliteStatement rows = db.select(devices, { "pid", "cudaId", "gpuId" });
        while (rows.step())
            m_cudaToGpu[{ rows.int64(0), rows.int64(1) }] = rows.int64(2);
    }
}

std::optional<std::size_t> NsysTracks::gpuFor(std::int64_t pid, std::int64_t device) const
{
    std::optional<std::int64_t> id;
    if (const auto it = m_cudaToGpu.find({ pid, device }); it != m_cudaToGpu.end())
        id = it->second;
    std::optional<std::size_t> byCuDevice, byId;
    for (std::size_t i = 0; i < m_gpus.size(); ++i) {
        const Gpu& gpu = m_gpus[i];
        if (id && gpu.id == *id)
            return i;
        // Windows lists non-CUDA adapters with cuDevice 0 too: prefer the one whose id
        // also matches.
        if (gpu.cudaDevice == device && (!byCuDevice || gpu.id == device))
            byCuDevice = i;
        if (gpu.id == device)
            byId = i;
    }
    return byCuDevice ? byCuDevice : byId;
}

model::TrackId NsysTracks::gpuTrack(std::int64_t key, std::int64_t number, std::string_view name)
{
    return findOrAdd(m_gpuTracks, key, [&] {
        std::string label = "GPU " + std::to_string(number);
        if (!name.empty())
            label += ": " + std::string(name);
        return m_sink.addTrack(
            model::kNoTrack, model::ResourceKind::Gpu, std::move(label), kGpuSortBase + number);
    });
}

model::TrackId NsysTracks::gpuById(std::int64_t gpuId)
{
    for (const Gpu& gpu : m_gpus) {
        if (gpu.id == gpuId)
            return gpuTrack(gpu.id, gpu.cudaDevice.value_or(gpu.id), gpu.name);
    }
    return gpuTrack(gpuId, gpuId, {});
}

model::TrackId NsysTracks::stream(
    std::int64_t globalPid, std::int64_t device, std::int64_t contextId, std::int64_t streamId)
{
    const std::optional<std::size_t> gpu = gpuFor(nsysPid(globalPid), device);
    // The kernel's deviceId is what the application calls the device: name the GPU by it.
    const model::TrackId gpuTrackId = gpu ? gpuTrack(m_gpus[*gpu].id, device, m_gpus[*gpu].name)
                                          : gpuTrack(-1 - device, device, {});
    const auto key = std::make_tuple(gpuTrackId, globalPid, contextId, streamId);
    return findOrAdd(m_streams, key, [&] {
        const std::int64_t firstPid = m_gpuFirstPid.emplace(gpuTrackId, globalPid).first->second;
        std::string label = "stream " + std::to_string(streamId);
        if (globalPid != firstPid)  // several processes share the GPU
            label += " (pid " + std::to_string(nsysPid(globalPid)) + ")";
        return m_sink.addTrack(gpuTrackId, model::ResourceKind::Stream, std::move(label), streamId);
    });
}

model::TrackId NsysTracks::process(std::int64_t globalPid)
{
    return findOrAdd(m_processes, globalPid, [&] {
        const std::int64_t pid = nsysPid(globalPid);
        std::string name;
        if (const auto p = m_processNames.find(globalPid); p != m_processNames.end())
            name = p->second;
        else if (const auto t = m_threadNames.find(globalPid | pid); t != m_threadNames.end())
            name = t->second;  // the main thread's name
        std::string label = name.empty() ? "pid " + std::to_string(pid)
                                         : name + " (pid " + std::to_string(pid) + ")";
        return m_sink.addTrack(
            model::kNoTrack, model::ResourceKind::Process, std::move(label), pid);
    });
}

model::TrackId NsysTracks::thread(std::int64_t globalTid)
{
    const std::int64_t globalPid = nsysGlobalPid(globalTid);
    if (nsysTid(globalTid) == 0)
        globalTid = globalPid | nsysPid(globalTid);  // process-wide rows: the main thread
    return findOrAdd(m_threads, globalTid, [&] {
        const model::TrackId parent = process(globalPid);
        const std::int64_t tid = nsysTid(globalTid);
        const auto named = m_threadNames.find(globalTid);
        std::string label = named == m_threadNames.end() || named->second.empty()
            ? "thread " + std::to_string(tid)
            : named->second + " (tid " + std::to_string(tid) + ")";
        // The main thread first, then by tid.
        const std::int64_t sortKey = tid == nsysPid(globalTid) ? 0 : tid;
        return m_sink.addTrack(parent, model::ResourceKind::Thread, std::move(label), sortKey);
    });
}

model::TrackId NsysTracks::nvtxRanges(std::int64_t globalPid)
{
    return findOrAdd(m_nvtxRanges, globalPid, [&] {
        return m_sink.addTrack(process(globalPid), model::ResourceKind::Group,
            "NVTX start/end ranges", std::int64_t(1) << 24);
    });
}

}  // namespace strata::storage
