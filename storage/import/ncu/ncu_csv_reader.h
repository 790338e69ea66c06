#pragma once
// Reads an Nsight Compute CSV export into one record per profiled kernel, in file order.
// Two layouts, told apart by the header:
//
//   raw page (`ncu --csv --page raw`): one row per kernel, one column per metric; the
//     row after the header holds the units (its "ID" cell is empty):
//       "ID","Process ID",...,"Kernel Name",...,"Device","CC","dram__bytes_read.sum",...
//       "","",...,"byte",...
//       "0","505",...,"void at::<unnamed>::...",...,"0","9.0","10,496",...
//   details page (`ncu --csv`, the default): one row per (kernel, metric), in
//     "Section Name","Metric Name","Metric Unit","Metric Value" columns, plus rule rows
//     (empty Metric Name, Rule Name/Type/Description) that are counted and skipped. A
//     metric name used by two sections ("Memory Throughput" in % and in byte/s) is named
//     "NAME (SECTION)" for the second section met.
//
// Quirks handled: ncu's own "==PROF==" / "==WARNING==" lines anywhere; numbers with ','
// thousands separators inside quotes ("4,963,609,951.19"); ragged rows (missing trailing
// cells read as empty; cells beyond the header are ignored and counted); names with
// commas and brackets (quoted). The kernel's columns "ID", "Kernel Name" (or "Function
// Name"), "Device", "Stream", "Correlation ID" (when present), "Block Size", "Grid Size"
// are identity, not metrics. Duration: gpu__time_duration.sum (raw) or "Duration" (details),
// converted from its unit (ns/nsecond, us/usecond, ms/msecond, s/second).
//
// Errors (InputError, one line with file and line): no "ID" / "Kernel Name" column in the
// header, or no header at all; a data row whose ID is not an integer; no kernel rows.

#include "model/time_units.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace strata::storage {

struct NcuMetricColumn
{
    std::string name;
    std::string unit;
};

struct NcuKernel
{
    std::int64_t id = 0;  ///< ncu's result ID
    std::uint64_t line = 0;  ///< first line of its rows
    std::string name;
    std::optional<std::int64_t> device, stream, correlation;
    std::string grid, block;  ///< "x,y,z" from "(x, y, z)", or ""
    std::optional<model::TimeNs> durationNs;
    /// Non-empty cells: (index into NcuReport::metrics, text as written).
    std::vector<std::pair<std::uint32_t, std::string>> cells;
};

struct NcuReport
{
    bool detailsPage = false;  ///< long form (one row per metric)
    std::vector<NcuMetricColumn> metrics;
    std::vector<NcuKernel> kernels;
    std::uint64_t dataRows = 0;  ///< CSV records after the header (and units row)
    std::uint64_t ruleRows = 0;  ///< details page rule rows, skipped
    std::uint64_t toolLines = 0;  ///< "==PROF==" and similar lines, skipped
    std::uint64_t raggedRows = 0;  ///< rows with more or fewer cells than the header
    std::uint64_t firstRaggedLine = 0;  ///< the line of the first one
    std::uint64_t kernelsWithoutDuration = 0;
};

/// Reads `path` (plain or .gz). Throws InputError as described above.
NcuReport readNcuCsv(const std::filesystem::path& path);

/// True for metrics that describe the device or the profiler rather than the kernel's
/// execution (device__attribute_*, nvlink__*, numa__*, c2clink__*, profiler__*): kept in
/// the interval args, not in the per-kernel table or counter tracks.
bool isEnvironmentMetric(std::string_view name);

/// Nanoseconds of `value` in an ncu time unit; nullopt for a unit that is not time.
std::optional<model::TimeNs> ncuDurationNs(double value, std::string_view unit);

}  // namespace strata::storage
