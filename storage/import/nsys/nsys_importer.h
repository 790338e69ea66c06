#pragma once
// Imports Nsight Systems data into a TraceSink: an SQLite export (`nsys export --type
// sqlite`, plain or .gz, Nsight 2021 to 2025 schemas; storage/import/nsys/nsys_database.h reads it by
// column name) or an `nsys stats` NVTX push/pop trace CSV.
//
// Tracks (created when their first event arrives):
//   process "NAME (pid P)" > thread "NAME (tid T)"      CUDA runtime/driver API calls,
//                                                       NVTX push/pop ranges and marks,
//                                                       OS runtime calls (all depth auto)
//   process > group "NVTX start/end ranges"              NVTX start/end ranges
//   GPU "GPU D: NAME" > stream "stream S"                kernels, memcpy, memset
//   GPU > counter "METRIC NAME [unit]"                   GPU metrics samples
// Processes and threads come from globalTid/globalPid (pid = bits 24..47, tid = bits 0..23),
// named by PROCESSES and ThreadNames. GPUs are CUDA devices named by TARGET_INFO_GPU (or
// TARGET_INFO_CUDA_GPU before 2022), mapped through TARGET_INFO_CUDA_DEVICE when present.
//
// Events:
//  - CUPTI_ACTIVITY_KIND_RUNTIME: category "cuda_runtime" or "cuda_driver" (eventClass 1),
//    the name without its "_vNNNN" version suffix; rows of eventClass 67 (CUDA backtrace)
//    duplicate a call of the same correlationId and are skipped (counted).
//  - KERNEL: named by shortName (StringIds), category "kernel"; args: demangled name, grid,
//    block, registers per thread, shared memory, correlation, device, context, stream.
//  - MEMCPY "Memcpy HtoD" etc. (category "gpu_memcpy"), MEMSET "Memset" ("gpu_memset"):
//    args bytes, kinds (ENUM_* labels when the export has them), correlation.
//  - A flow from each runtime call to the GPU operation with its correlationId (same
//    process), named after the call, tag = correlationId.
//  - NVTX_EVENTS: push/pop (59, 70) and start/end (60, 71) ranges, marks (34, 65) as
//    instants; category "nvtx"; args domain, category, color, payload. Domain (75) and
//    category (33) rows only name the others. Ranges without an end are skipped (counted).
//  - OSRT_API: category "osrt"; the profiling start/stop markers (eventClass 31, 32) as
//    instants.
//  - GPU_METRICS + TARGET_INFO_GPU_METRICS: counter samples (nsys_gpu_metrics.cpp).
// Roles: model::classifyRole(name, category). Times: ns since the capture start; meta
// origin_ns = TARGET_INFO_SESSION_START_TIME.utcEpochNs when the export has it, plus
// source_format=nsys, nsys_version, nsys_schema_version, nsys_platform.
//
// The `nsys stats` CSV (columns "Start (ns)", "End (ns)", "Name", "PID", "TID", "Lvl"):
// one interval per row, category "nvtx", depth = Lvl, on process "pid P" > thread "tid T".

#include "model/time_units.h"
#include "storage/store/progress.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace strata::storage {

class TraceSink;

struct NsysImportStats
{
    std::string productVersion;  ///< EXPORT_PRODUCT_VERSION, empty when unknown
    std::string schemaVersion;  ///< EXPORT_SCHEMA_VERSION
    std::optional<model::TimeNs> originNs;  ///< capture start (epoch ns), when known
    std::uint64_t kernels = 0;
    std::uint64_t memcpys = 0;
    std::uint64_t memsets = 0;
    std::uint64_t apiCalls = 0;  ///< CUDA runtime + driver API intervals
    std::uint64_t driverCalls = 0;  ///< of which driver API (eventClass 1)
    std::uint64_t backtraceRows = 0;  ///< RUNTIME rows of eventClass 67, skipped
    std::uint64_t nvtxRows = 0;  ///< all NVTX_EVENTS rows (or CSV rows)
    std::uint64_t nvtxRanges = 0;  ///< push/pop and start/end ranges imported
    std::uint64_t nvtxMarks = 0;
    std::uint64_t nvtxUnclosed = 0;  ///< ranges without an end, skipped
    std::string firstNvtxUnclosed;  ///< where the first is: "NVTX_EVENTS, start N ns"
    std::uint64_t osrtCalls = 0;
    std::uint64_t osrtMarkers = 0;  ///< OS runtime profiling start/stop instants
    std::uint64_t gpuMetricSamples = 0;
    std::uint64_t gpuMetricTracks = 0;
    std::uint64_t flows = 0;  ///< runtime call -> GPU operation
    std::uint64_t gpuOpsWithoutCall = 0;  ///< GPU operations whose correlationId matches no call
    std::uint64_t negativeDurations = 0;  ///< end < start: made empty
    std::string firstNegativeDuration;  ///< "TABLE, start N ns" or "line L" (stats CSV)
    std::vector<std::string> warnings;  ///< one line each
};

/// Imports `path` (an nsys SQLite export, plain or gzip, or an `nsys stats` NVTX CSV) into
/// `sink`. Throws InputError (one line naming the file and what was expected) for anything
/// else, a truncated file or a malformed CSV line; Cancelled when `progress` returns false.
/// Progress is in rows read (SQLite) or bytes (CSV).
NsysImportStats importNsys(
    const std::filesystem::path& path, TraceSink& sink, const ProgressFn& progress = {});

/// The `nsys stats` NVTX trace CSV alone (what importNsys does for a non-SQLite file).
NsysImportStats importNsysStatsCsv(
    const std::filesystem::path& path, TraceSink& sink, const ProgressFn& progress = {});

}  // namespace strata::storage
