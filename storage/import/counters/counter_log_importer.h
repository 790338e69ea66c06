#pragma once
// Imports a counter log into a TraceSink: a CSV with one time column and one column per
// counter, as NVML/DCGM sampling scripts, `nvidia-smi --query-gpu=... --format=csv` and
// `perf stat -I -x,` style tools write them (plain or .gz):
//
//     epoch_ns,gpu_util_pct,mem_util_pct,power_mw,mem_used_bytes,sm_clock_mhz,temp_c
//     1795358807161624319,0,0,116913,1296891904,1980,33
//
// Time column: the first column named like a time ("epoch_ns", "timestamp", "time",
// "ts", "*_time", ...). Its unit comes from the name ("_ns", "_us", "_ms", "_s", "[ns]",
// "(s)", "seconds"); otherwise from the first value: an integer part of >= 17 digits is
// epoch ns, >= 14 us, >= 11 ms, else seconds (perf stat -I prints seconds since start).
// Date-time values ("2025/01/31 12:00:00.123" as nvidia-smi prints them, or ISO
// "2025-01-31T12:00:00.123") are read as UTC.
//
// Tracks: a Group "counters (FILE)" with one Counter track per other column, named by
// the column with its unit split off: "power [W]" / "power (W)" -> "power" in W, and the
// suffixes _pct/_percent (%), _w, _mw, _mhz, _ghz, _c (°C), _bytes (B), _kib/_mib/_gib,
// _bps (B/s), _j/_mj; e.g. "power_mw" -> "power" in mW. A column named gpu / index /
// gpu_index / gpu_id / device (nvidia-smi's "index") tells which GPU a row is about: each
// value gets a "GPU n" track under the group, with its own counter tracks. A column with
// no numeric value at all (nvidia-smi's "name") gets no track (warning).
//
// Time: sample time = the row's absolute time - origin, where origin is the option (the
// trace's "origin_ns" when a trace was ingested first) or else the first row's time (then
// written as the "origin_ns" meta). Samples before the origin keep negative times.
//
// Cells: spaces are trimmed; numbers may carry ',' thousands separators or a trailing unit
// ("70.12 W", "30 %"). Empty cells, non-numeric cells ("[N/A]") and missing cells of
// short (ragged) rows are skipped and counted, with the first place of each in a
// warning; cells beyond the header are ignored and counted. "#" comment lines are skipped.
// Errors (InputError "FILE: line L: ...", naming the column): no time column in the
// header; no counter column; a time cell that is not a time; no data row; a truncated gzip.

#include "model/time_units.h"
#include "storage/store/progress.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace strata::storage {

class TraceSink;

struct CounterLogOptions
{
    /// Absolute time of the store's time 0 (a trace's origin_ns); default: the first row.
    std::optional<model::TimeNs> originNs;
};

struct CounterLogStats
{
    std::uint64_t rows = 0;  ///< data rows
    std::uint64_t samples = 0;  ///< counter samples written
    std::uint64_t counterTracks = 0;
    std::uint64_t emptyCells = 0;  ///< samples dropped: empty cells of counter columns
    /// Samples dropped: text in a counter column (not in a column without any number).
    std::uint64_t nonNumericCells = 0;
    std::uint64_t raggedRows = 0;  ///< rows with fewer or more cells than the header
    std::uint64_t commentLines = 0;
    std::string timeColumn;  ///< as in the header
    std::string timeUnit;  ///< "ns", "us", "ms", "s" or "datetime"
    model::TimeNs originNs = 0;  ///< absolute time of time 0
    model::TimeNs firstNs = 0, lastNs = 0;  ///< first and last sample times, store-relative
    std::vector<std::string> warnings;
};

/// Imports `path` into `sink`. Throws InputError as described above, Cancelled when
/// `progress` returns false.
CounterLogStats importCounterLog(const std::filesystem::path& path, TraceSink& sink,
    const CounterLogOptions& options = {}, const ProgressFn& progress = {});

/// A counter column's display name and unit (see the header comment).
std::pair<std::string, std::string> counterNameAndUnit(std::string_view column);

}  // namespace strata::storage
