// The Nsight Systems importer's driver: opens the export, sets the meta, and reads the CUDA
// API, OS runtime and GPU activity tables; NVTX and GPU metrics have their own files.
// Each table is one streaming SELECT; memory besides the sink is the StringIds table, the
// track maps and one (process, correlationId) -> launch entry per CUDA API call, which the
// GPU tables need for their flows.

#include "storage/import/nsys/nsys_importer.h"

#include "model/role.h"
#include "storage/import/common/gzip_reader.h"
#include "storage/import/common/import_anomaly.h"
#include "storage/import/nsys/nsys_database.h"
#include "storage/import/nsys/nsys_importer_p.h"
#include "storage/store/input_error.h"
#include "storage/store/trace_sink.h"

#include <array>
#include <span>

namespace strata::storage {

namespace {

using model::Interval;
using model::StringId;
using model::TimeNs;
using model::TrackId;

constexpr std::string_view kRuntimeTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr std::string_view kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr std::string_view kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr std::string_view kMemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr std::string_view kOsrtTable = "OSRT_API";

// ENUM_NSYS_EVENT_CLASS values.
constexpr std::int64_t kClassCudaDriver = 1;
constexpr std::int64_t kClassOsrtStart = 31;
constexpr std::int64_t kClassOsrtStop = 32;
constexpr std::int64_t kClassCudaBacktrace = 67;

// CUPTI memcpy kinds (stable since CUDA 5), and nsys' memory kinds (ENUM_CUDA_MEM_KIND)
// for exports that have no ENUM_* tables (before 2023).
constexpr std::array<std::string_view, 14> kCopyShort = { "Unknown", "HtoD", "DtoH", "HtoA", "AtoH",
    "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP", "Unified HtoD", "Unified DtoH",
    "Unified DtoD" };
constexpr std::array<std::string_view, 14> kCopyLong = { "Unknown", "Host-to-Device",
    "Device-to-Host", "Host-to-Array", "Array-to-Host", "Array-to-Array", "Array-to-Device",
    "Device-to-Array", "Device-to-Device", "Host-to-Host", "Peer-to-Peer", "Unified Host-to-Device",
    "Unified Device-to-Host", "Unified Device-to-Device" };
constexpr std::array<std::string_view, 8> kMemoryKinds = { "Pageable", "Pinned", "Device", "Array",
    "Managed", "Device Static", "Managed Static", "Unknown" };

/// Where a CUDA API call ran, for the flow to the GPU operation it launched.
struct Launch
{
    TrackId track = model::kNoTrack;
    TimeNs startNs = 0;
    StringId name = model::kEmptyString;
};

struct PairHash
{
    std::size_t operator()(const std::pair<std::int64_t, std::int64_t>& key) const
    {
        return std::hash<std::int64_t>()(key.first * 1000003 ^ key.second);
    }
};
using Launches = std::unordered_map<std::pair<std::int64_t, std::int64_t>, Launch, PairHash>;

/// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": the suffix is the API version.
std::string_view withoutVersion(std::string_view name)
{
    const std::size_t at = name.rfind("_v");
    if (at == std::string_view::npos || at + 2 == name.size() || at == 0)
        return name;
    for (std::size_t i = at + 2; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9')
            return name;
    }
    return name.substr(0, at);
}

std::string label(const std::map<std::int64_t, std::string>& labels,
    std::span<const std::string_view> fallback, std::int64_t id)
{
    if (const auto it = labels.find(id); it != labels.end())
        return it->second;
    if (id >= 0 && static_cast<std::size_t>(id) < fallback.size())
        return std::string(fallback[static_cast<std::size_t>(id)]);
    return std::to_string(id);
}

/// True when `table` exists with the columns an event needs; warns when it exists without.
bool readable(
    NsysImport& in, std::string_view table, std::initializer_list<std::string_view> needed)
{
    if (!in.db.hasTable(table))
        return false;
    for (std::string_view column : needed) {
        if (in.db.column(table, column).empty()) {
            in.stats.warnings.push_back("table " + std::string(table) + " has no column "
                + std::string(column) + ": skipped");
            return false;
        }
    }
    return true;
}

Interval interval(NsysImport& in, std::string_view table, TimeNs start, TimeNs end, StringId name,
    std::string_view category)
{
    if (end < start) {
        countNegativeDuration(in.stats, [&] { return nsysRowAt(table, start); });
        end = start;
    }
    Interval e;
    e.startNs = start;
    e.endNs = end;
    e.name = name;
    e.category = in.sink.intern(category);
    e.depth = model::kAutoDepth;
    e.role = model::classifyRole(in.sink.strings().text(name), category);
    return e;
}

void importApiCalls(NsysImport& in, Launches& launches)
{
    if (!readable(in, kRuntimeTable, { "start", "end", "globalTid" }))
        return;
    std::unordered_map<std::int64_t, StringId> names;  // nameId -> name without version
    JsonArgs args;
    SqliteStatement rows = in.db.select(kRuntimeTable,
        { "start", "end", "eventClass", "globalTid", "correlationId", "nameId", "returnValue" });
    while (rows.step()) {
        in.progress.tick();
        const std::int64_t eventClass = rows.int64(2);
        if (eventClass == kClassCudaBacktrace) {
            ++in.stats.backtraceRows;  // the same call again, with its call chain
            continue;
        }
        const std::int64_t nameId = rows.int64(5);
        auto named = names.find(nameId);
        if (named == names.end()) {
            const std::string_view text = withoutVersion(in.db.string(nameId));
            named = names.emplace(nameId, in.sink.intern(text.empty() ? "CUDA API" : text)).first;
        }
        const bool driver = eventClass == kClassCudaDriver;
        const Interval e = interval(in, kRuntimeTable, rows.int64(0), rows.int64(1), named->second,
            driver ? "cuda_driver" : "cuda_runtime");
        const TrackId track = in.tracks.thread(rows.int64(3));
        args.clear();
        const std::optional<std::int64_t> correlation = optionalInt(rows, 4);
        if (correlation) {
            args.add("correlation", *correlation);
            launches[{ nsysGlobalPid(rows.int64(3)), *correlation }] = { track, e.startNs, e.name };
        }
        if (const std::int64_t result = rows.int64(6); result != 0)
            args.add("return", result);
        in.sink.addInterval(track, e, args.text());
        ++in.stats.apiCalls;
        in.stats.driverCalls += driver ? 1 : 0;
    }
}

void importOsRuntime(NsysImport& in)
{
    if (!readable(in, kOsrtTable, { "start", "end", "globalTid" }))
        return;
    JsonArgs args;
    // Outer calls first on equal starts, so the store nests them outside.
    SqliteStatement rows = in.db.select(kOsrtTable,
        { "start", "end", "eventClass", "globalTid", "nameId", "returnValue" },
        "ORDER BY start, end DESC");
    while (rows.step()) {
        in.progress.tick();
        const std::int64_t eventClass = rows.int64(2);
        const TrackId track = in.tracks.thread(rows.int64(3));
        const StringId name = in.name(rows.int64(4));
        if (eventClass == kClassOsrtStart || eventClass == kClassOsrtStop) {
            in.sink.addInstant(track, { rows.int64(0), name, in.sink.intern("osrt") });
            ++in.stats.osrtMarkers;
            continue;
        }
        args.clear();
        if (const std::int64_t result = rows.int64(5); result != 0)
            args.add("return", result);
        in.sink.addInterval(track,
            interval(in, kOsrtTable, rows.int64(0), rows.int64(1), name, "osrt"), args.text());
        ++in.stats.osrtCalls;
    }
}

// GPU tables are read with these 7 columns first, then their own.
constexpr std::string_view kGpuColumns[] = { "start", "end", "deviceId", "contextId", "streamId",
    "correlationId", "globalPid" };

/// Adds a GPU operation (row columns as kGpuColumns) on its stream, and its launch flow.
void addGpuOperation(NsysImport& in, const Launches& launches, const SqliteStatement& row,
    const Interval& e, JsonArgs& args)
{
    const std::int64_t globalPid = row.int64(6);
    args.add("device", row.int64(2)).add("context", row.int64(3)).add("stream", row.int64(4));
    const TrackId stream = in.tracks.stream(globalPid, row.int64(2), row.int64(3), row.int64(4));
    in.sink.addInterval(stream, e, args.text());
    const std::optional<std::int64_t> correlation = optionalInt(row, 5);
    const auto launch = correlation ? launches.find({ globalPid, *correlation }) : launches.end();
    if (launch == launches.end()) {
        ++in.stats.gpuOpsWithoutCall;
        return;
    }
    model::Flow flow;
    flow.fromNs = launch->second.startNs;
    flow.toTrack = stream;
    flow.toNs = e.startNs;
    flow.name = launch->second.name;
    flow.tag = *correlation;
    in.sink.addFlow(launch->second.track, flow);
    ++in.stats.flows;
}

void importKernels(NsysImport& in, const Launches& launches)
{
    if (!readable(in, kKernelTable, { "start", "end" }))
        return;
    const auto& c = kGpuColumns;
    SqliteStatement rows = in.db.select(kKernelTable,
        { c[0], c[1], c[2], c[3], c[4], c[5], c[6], "shortName", "demangledName", "mangledName",
            "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread",
            "staticSharedMemory", "dynamicSharedMemory" });
    JsonArgs args;
    while (rows.step()) {
        in.progress.tick();
        std::optional<std::int64_t> nameId;
        for (int column = 7; column <= 9 && !nameId; ++column)
            nameId = optionalInt(rows, column);
        const StringId name = nameId ? in.name(*nameId) : in.sink.intern("kernel");
        args.clear();
        if (const auto demangled = optionalInt(rows, 8); demangled && demangled != nameId)
            args.add("demangled", in.db.string(*demangled));
        if (!rows.isNull(10))
            args.add3("grid", rows.int64(10), rows.int64(11), rows.int64(12));
        if (!rows.isNull(13))
            args.add3("block", rows.int64(13), rows.int64(14), rows.int64(15));
        constexpr std::array<std::string_view, 3> kCounts = { "registers per thread",
            "static shared memory", "dynamic shared memory" };
        for (int i = 0; i < 3; ++i) {
            if (!rows.isNull(16 + i))
                args.add(kCounts[static_cast<std::size_t>(i)], rows.int64(16 + i));
        }
        args.add("correlation", rows.int64(5));
        addGpuOperation(in, launches, rows,
            interval(in, kKernelTable, rows.int64(0), rows.int64(1), name, "kernel"), args);
        ++in.stats.kernels;
    }
}

void importMemcpys(NsysImport& in, const Launches& launches)
{
    if (!readable(in, kMemcpyTable, { "start", "end" }))
        return;
    const auto copyKinds = in.db.enumLabels("ENUM_CUDA_MEMCPY_OPER");
    const auto memoryKinds = in.db.enumLabels("ENUM_CUDA_MEM_KIND");
    const auto& c = kGpuColumns;
    SqliteStatement rows = in.db.select(kMemcpyTable,
        { c[0], c[1], c[2], c[3], c[4], c[5], c[6], "bytes", "copyKind", "srcKind", "dstKind" });
    JsonArgs args;
    while (rows.step()) {
        in.progress.tick();
        const std::int64_t kind = rows.int64(8);
        const std::string shortKind = label({}, kCopyShort, kind);
        const StringId name = in.sink.intern("Memcpy " + shortKind);
        args.clear();
        args.add("bytes", rows.int64(7)).add("kind", label(copyKinds, kCopyLong, kind));
        if (!rows.isNull(9))
            args.add("src kind", label(memoryKinds, kMemoryKinds, rows.int64(9)));
        if (!rows.isNull(10))
            args.add("dst kind", label(memoryKinds, kMemoryKinds, rows.int64(10)));
        args.add("correlation", rows.int64(5));
        addGpuOperation(in, launches, rows,
            interval(in, kMemcpyTable, rows.int64(0), rows.int64(1), name, "gpu_memcpy"), args);
        ++in.stats.memcpys;
    }
}

void importMemsets(NsysImport& in, const Launches& launches)
{
    if (!readable(in, kMemsetTable, { "start", "end" }))
        return;
    const auto memoryKinds = in.db.enumLabels("ENUM_CUDA_MEM_KIND");
    const auto& c = kGpuColumns;
    SqliteStatement rows = in.db.select(
        kMemsetTable, { c[0], c[1], c[2], c[3], c[4], c[5], c[6], "bytes", "value", "memKind" });
    const StringId name = in.sink.intern("Memset");
    JsonArgs args;
    while (rows.step()) {
        in.progress.tick();
        args.clear();
        args.add("bytes", rows.int64(7)).add("value", rows.int64(8));
        if (!rows.isNull(9))
            args.add("memory kind", label(memoryKinds, kMemoryKinds, rows.int64(9)));
        args.add("correlation", rows.int64(5));
        addGpuOperation(in, launches, rows,
            interval(in, kMemsetTable, rows.int64(0), rows.int64(1), name, "gpu_memset"), args);
        ++in.stats.memsets;
    }
}

void setMeta(NsysDatabase& db, TraceSink& sink, NsysImportStats& stats)
{
    sink.setMeta("source_format", "nsys");
    stats.productVersion = db.exportMeta("EXPORT_PRODUCT_VERSION").value_or("");
    stats.schemaVersion = db.exportMeta("EXPORT_SCHEMA_VERSION").value_or("");
    if (!stats.productVersion.empty())
        sink.setMeta("nsys_version", stats.productVersion);
    if (!stats.schemaVersion.empty())
        sink.setMeta("nsys_schema_version", stats.schemaVersion);
    if (const auto platform = db.exportMeta("EXPORT_PLATFORM"))
        sink.setMeta("nsys_platform", *platform);
    stats.originNs = db.sessionStartNs();
    if (stats.originNs)
        sink.setMeta("origin_ns", std::to_string(*stats.originNs));
    else
        stats.warnings.emplace_back("no TARGET_INFO_SESSION_START_TIME (export before 2022): "
                                    "the capture's absolute start time is unknown");
}

NsysImportStats importSqlite(NsysDatabase& db, TraceSink& sink, const ProgressFn& progress)
{
    NsysImportStats stats;
    setMeta(db, sink, stats);
    std::uint64_t rows = nsysGpuMetricRows(db);
    for (std::string_view table : { std::string_view("NVTX_EVENTS"), kRuntimeTable, kOsrtTable,
             kKernelTable, kMemcpyTable, kMemsetTable })
        rows += static_cast<std::uint64_t>(db.rowCount(table));
    RowProgress rowProgress(progress, rows);
    NsysTracks tracks(db, sink);
    NsysImport in { db, sink, tracks, rowProgress, stats, {} };
    // CPU tables first, NVTX before the API calls: on equal start times the store nests the
    // earlier arrival outside, and a range encloses the calls made inside it.
    importNvtx(in);
    Launches launches;
    importApiCalls(in, launches);
    importOsRuntime(in);
    importKernels(in, launches);
    importMemcpys(in, launches);
    importMemsets(in, launches);
    importGpuMetrics(in);
    rowProgress.report();
    if (stats.backtraceRows > 0)
        stats.warnings.push_back(std::to_string(stats.backtraceRows)
            + " CUDA backtrace rows (eventClass 67) repeat API calls: skipped");
    addNsysAnomalyWarnings(stats);
    return stats;
}

}  // namespace

void addNsysAnomalyWarnings(NsysImportStats& stats)
{
    if (stats.nvtxUnclosed > 0)
        stats.warnings.push_back(anomalyWarning(stats.nvtxUnclosed, AnomalyEffect::Dropped,
            "NVTX range without an end", stats.firstNvtxUnclosed));
    if (stats.negativeDurations > 0)
        stats.warnings.push_back(anomalyWarning(stats.negativeDurations, AnomalyEffect::Altered,
            "end before its start: made empty", stats.firstNegativeDuration));
}

NsysImportStats importNsys(
    const std::filesystem::path& path, TraceSink& sink, const ProgressFn& progress)
{
    constexpr std::string_view kSqliteMagic("SQLite format 3\0", 16);
    if (readFileHead(path, kSqliteMagic.size()) != kSqliteMagic)
        return importNsysStatsCsv(path, sink, progress);
    NsysDatabase db(path);
    try {
        return importSqlite(db, sink, progress);
    } catch (const StoreError& e) {
        throw InputError(db.describe(e));
    }
}

}  // namespace strata::storage
