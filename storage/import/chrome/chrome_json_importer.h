#pragma once
// Imports a Chrome Trace Event JSON file (.json or .json.gz, object or bare array form) into a
// TraceSink: torch.profiler/Kineto traces first, and Chrome DevTools, VizTracer and other
// producers of the format.
//
// Two streaming passes over the file, each with bounded memory (ChromeEventReader):
//  1. a pre-scan learns what the sink must know before the first event: the earliest
//     timestamp (time 0), the M metadata (process/thread names, sort indices, labels,
//     which usually come last in Kineto files), which pids are GPUs ("GPU N" labels,
//     kernel / memcpy / memset categories, or `device` + `stream` args on a thread that
//     runs no host work; never the process's name, which Kineto gives its GPU pids too),
//     the last timestamp of each thread (to close unfinished slices), the keys of each
//     counter, and the top-level members
//     (distributedInfo, baseTimeNanoseconds, deviceProperties).
//  2. the main pass converts and emits every event in file order; tracks are created
//     on first use, already with their final names and kinds.
// Re-reading (and re-inflating) the file is cheaper than the alternatives: buffering
// events needs memory proportional to the file, and fixing track names or time 0 after
// the fact would need a mutable sink.
//
// Mapping: pid -> Process (or Gpu) track, (pid, tid) -> Thread (or Stream) track; a pid
// holding GPU streams and host threads (Kineto's python tracer on GPU 0's pid 0) gives a
// Gpu with the streams and a Process with the threads. X and matched B/E -> intervals
// (depth computed by the store: model::kAutoDepth); i/I/R ->
// instants; C -> one Counter track per (pid, series) under the process; s/t/f (matched by
// cat and id) -> flows; b/e/n and legacy S/F -> intervals on one Group track per (pid, cat,
// name of the outermost event); M -> names and order. Other phases are counted and skipped.
// Times: ts/dur are decimal microseconds converted exactly (model::parseDecimalScaled),
// then made relative to time 0. Interval::seq carries the event's index in the file, so
// equal starts keep file order.
//
// Memory besides the sink: the reader's window, per-thread stacks of open B events, open
// async events, and flows whose other end has not been seen yet.

#include "model/time_units.h"
#include "storage/store/progress.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

class TraceSink;

struct ChromeImportOptions
{
    /// Rank of this file: -1 takes distributedInfo.rank when the file has one. With a rank,
    /// CPU process tracks are named "rank R" and GPU tracks "GPU n (rank R)".
    int rank = -1;
    /// Absolute time (same clock as the "origin_ns" meta: baseTimeNanoseconds + ts, or ts)
    /// to use as time 0, to align several files; default: the file's earliest event.
    std::optional<model::TimeNs> originNs;
};

/// How bad an import anomaly is.
enum class StatSeverity { Info, Error, DataLoss };

/// One row of the import report: a declared anomaly or count (Perfetto stats style).
struct ImportStatRow
{
    std::string_view name;
    StatSeverity severity = StatSeverity::Info;
    std::string_view description;
    std::uint64_t value = 0;
};

struct ImportStats
{
    std::uint64_t totalEvents = 0;  ///< entries of the traceEvents array
    std::map<std::string, std::uint64_t> eventsByPhase;  ///< by "ph" ("(none)" when absent)
    std::uint64_t intervals = 0;  ///< X, matched B/E, async b/e (incl. closed-at-end ones)
    std::uint64_t instants = 0;  ///< i/I/R and async n
    std::uint64_t counterSamples = 0;
    std::uint64_t flows = 0;  ///< flow arrows emitted (s->f, s->t, t->f)
    std::uint64_t unknownPhases = 0;  ///< events of phases not imported (P, O, N, D, T, ...)
    std::uint64_t missingTimestamps = 0;  ///< events without a usable ts, skipped
    std::uint64_t completeWithoutDuration = 0;  ///< X without dur: ends at its thread's end
    std::uint64_t negativeDurations = 0;  ///< X with dur < 0: made empty
    std::uint64_t unmatchedEnds = 0;  ///< E with no open B on its thread
    std::uint64_t unclosedBegins = 0;  ///< B never ended: closed at its thread's last time
    std::uint64_t unmatchedAsyncEnds = 0;  ///< e/F with no open b/S
    std::uint64_t unclosedAsyncBegins = 0;  ///< b/S never ended: closed at the trace's end
    std::uint64_t nonNumericCounterValues = 0;  ///< C args that are not numbers, skipped
    std::uint64_t flowEndsWithoutStart = 0;  ///< f (or t) whose s is missing
    std::uint64_t flowStartsWithoutEnd = 0;  ///< s never finished by an f
    std::uint64_t bytes = 0;  ///< uncompressed JSON bytes
    model::TimeNs originNs = 0;  ///< absolute time of time 0 (as the "origin_ns" meta)
    model::TimeNs endNs = 0;  ///< last time of any event, relative to time 0
    bool truncated = false;  ///< the file ended early; events up to the last whole one
    std::vector<std::string> warnings;  ///< one line each, for the import report

    /// The declared anomaly table, with this import's values.
    std::vector<ImportStatRow> rows() const;
    /// Count of events with this phase.
    std::uint64_t phase(std::string_view ph) const;
};

/// Imports `path` into `sink`. Throws InputError (one line: file, byte offset, what was
/// expected) for input that is not a Chrome trace or is malformed before its end, and
/// Cancelled when `progress` returns false. Progress is reported in bytes of the file on
/// disk (compressed bytes for .gz), over both passes.
ImportStats importChromeJson(const std::filesystem::path& path, TraceSink& sink,
    const ChromeImportOptions& options = {}, const ProgressFn& progress = {});

/// The absolute time (as the "origin_ns" meta: baseTimeNanoseconds + ts, or ts) of the
/// file's earliest event, from one streaming pass. To align several files of one run (one
/// per rank) in one sink, take the minimum over the files and pass it to each import as
/// ChromeImportOptions::originNs. Throws like importChromeJson(); nullopt for no events.
std::optional<model::TimeNs> chromeTraceOriginNs(const std::filesystem::path& path);

}  // namespace strata::storage
