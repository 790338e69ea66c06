#pragma once
// Internals of the Nsight Systems importer shared by its files: the track layout
// (nsys_tracks.cpp), row progress, args building, and the per-table import functions.

#include "model/events.h"
#include "storage/import/nsys/nsys_importer.h"
#include "storage/store/progress.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace strata::storage {

class NsysDatabase;
class TraceSink;

/// globalTid / globalPid layout: (vm/host << 48) | (pid << 24) | tid.
inline std::int64_t nsysPid(std::int64_t globalId)
{
    return (globalId >> 24) & 0xFFFFFF;
}
inline std::int64_t nsysTid(std::int64_t globalId)
{
    return globalId & 0xFFFFFF;
}
inline std::int64_t nsysGlobalPid(std::int64_t globalId)
{
    return globalId & ~std::int64_t(0xFFFFFF);
}

/// Creates the tracks of an export on first use: process > thread for CPU events, GPU >
/// stream for GPU operations, GPU > counter for metrics. Names come from PROCESSES,
/// ThreadNames and TARGET_INFO_GPU / TARGET_INFO_CUDA_GPU, read once up front.
class NsysTracks
{
public:
    NsysTracks(NsysDatabase& db, TraceSink& sink);

    model::TrackId thread(std::int64_t globalTid);
    model::TrackId process(std::int64_t globalPid);
    /// The process' row for NVTX start/end ranges (they may end on another thread).
    model::TrackId nvtxRanges(std::int64_t globalPid);
    /// Stream `streamId` of CUDA device `device` as seen by process `globalPid`.
    model::TrackId stream(
        std::int64_t globalPid, std::int64_t device, std::int64_t contextId, std::int64_t streamId);
    /// The GPU of TARGET_INFO_GPU id `gpuId` (GPU metrics name GPUs that way).
    model::TrackId gpuById(std::int64_t gpuId);

private:
    struct Gpu
    {
        std::int64_t id = 0;  ///< TARGET_INFO_GPU id
        std::optional<std::int64_t> cudaDevice;  ///< cuDevice, when the export says
        std::string name;
    };
    void loadGpus(NsysDatabase& db);
    std::optional<std::size_t> gpuFor(std::int64_t pid, std::int64_t device) const;
    model::TrackId gpuTrack(std::int64_t key, std::int64_t number, std::string_view name);

    TraceSink& m_sink;
    std::unordered_map<std::int64_t, std::string> m_processNames;  ///< by globalPid
    std::unordered_map<std::int64_t, std::string> m_threadNames;  ///< by globalTid
    std::vector<Gpu> m_gpus;
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> m_cudaToGpu;  ///< (pid, cuda)
    std::unordered_map<std::int64_t, model::TrackId> m_processes, m_threads, m_nvtxRanges;
    std::map<std::int64_t, model::TrackId> m_gpuTracks;  ///< by GPU id, or -1 - device
    std::map<model::TrackId, std::int64_t> m_gpuFirstPid;
    std::map<std::tuple<model::TrackId, std::int64_t, std::int64_t, std::int64_t>, model::TrackId>
        m_streams;
};

/// Counts an event whose end is before its start (made empty by the caller); `where` says
/// where the first one is.
template<class Where>
void countNegativeDuration(NsysImportStats& stats, const Where& where)
{
    if (stats.negativeDurations++ == 0)
        stats.firstNegativeDuration = where();
}
/// "TABLE, start N ns": where a row is, for a warning (rowids are not selected).
inline std::string nsysRowAt(std::string_view table, std::int64_t startNs)
{
    return std::string(table) + ", start " + std::to_string(startNs) + " ns";
}
/// The warning lines of the events dropped or altered that `stats` counts.
void addNsysAnomalyWarnings(NsysImportStats& stats);

/// Reports rows read over all tables; throws Cancelled when the callback says stop.
class RowProgress
{
public:
    RowProgress(const ProgressFn& fn, std::uint64_t totalRows)
        : m_fn(fn)
        , m_total(std::max<std::uint64_t>(totalRows, 1))
    {}
    void tick()
    {
        if (++m_done % 4096 == 0)
            report();
    }
    void report();

private:
    const ProgressFn& m_fn;
    std::uint64_t m_total;
    std::uint64_t m_done = 0;
};

/// Builds a flat JSON object of event args, e.g. {"bytes":8,"kind":"Device-to-Host"}. Keys
/// are written as given (the importer's ASCII constants); text values are escaped.
class JsonArgs
{
public:
    JsonArgs& add(std::string_view key, std::int64_t value);
    JsonArgs& add(std::string_view key, double value);
    JsonArgs& add(std::string_view key, std::string_view text);
    JsonArgs& add(std::string_view key, const char* text)
    {
        return add(key, std::string_view(text));
    }
    /// "[x,y,z]"
    JsonArgs& add3(std::string_view key, std::int64_t x, std::int64_t y, std::int64_t z);
    /// The object text ("" when no arg was added); valid until the next add or clear.
    std::string_view text();
    void clear()
    {
        m_text.clear();
        m_closed = false;
    }

private:
    void key(std::string_view key);
    std::string m_text;
    bool m_closed = false;  ///< m_text ends with the closing '}'
};

/// What the per-table import functions share.
struct NsysImport
{
    NsysDatabase& db;
    TraceSink& sink;
    NsysTracks& tracks;
    RowProgress& progress;
    NsysImportStats& stats;

    /// The sink's id for StringIds `id` (memoized).
    model::StringId name(std::int64_t id);
    std::unordered_map<std::int64_t, model::StringId> names;
};

/// Tables read, in this order (rows of each count towards progress).
void importNvtx(NsysImport& in);  // nsys_nvtx.cpp
void importGpuMetrics(NsysImport& in);  // nsys_gpu_metrics.cpp
std::uint64_t nsysGpuMetricRows(NsysDatabase& db);

/// "#rrggbb" of an ARGB colour.
std::string hexColor(std::int64_t argb);

}  // namespace strata::storage
