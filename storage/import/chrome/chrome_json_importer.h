#pragma once
// Imports a Chrome Trace Event JSON file (.json or .json.gz, object or bare array form) into a
// TraceSink: torch.profiler/Kineto traces first, and Chrome DevTools, VizTracer and other
// producers of the format.
//
// What the sink must know of the trace's layout comes from the whole file: the earliest
// timestamp (time 0), the M metadata (process/thread names, sort indices, labels, which
// usually come last in Kineto files), which pids are GPUs ("GPU N" labels, kernel / memcpy /
// memset categories, or `device` + `stream` args on a thread that runs no host work; never
// the process's name, which Kineto gives its GPU pids too), the last timestamp of each
// thread (to close unfinished slices), the keys of each counter, and the top-level members
// (distributedInfo, baseTimeNanoseconds, deviceProperties). Events are converted and
// emitted in file order, tracks created on first use. Each pass streams the file with
// bounded memory (ChromeEventReader); the pass that converts checks the syntax of every
// event (scanJsonObject) on the threads that scan ahead of the converter.
//
// One pass, when the sink takes a late layout (TraceSink::revisable(): the store
// builder) and no pass 1 was made ahead: each event is learnt, then converted with the
// layout so far, its times on the trace's clock; at the end the tracks get their final
// kinds and names and are moved to time 0. Two things need the layout before an event can
// be emitted: an X without "dur" (it ends at its thread's last time) and a flow end bound
// to the next slice; so does a pid whose host threads move to a process of their own. A
// file with any of them is undone in the sink (at the first such event, or at the end) and
// read again in two passes. A failed single pass is undone too before its error goes on.
//
// Two passes otherwise (a sink without a late layout: an exporter, a recorder of kernels
// for the files that join to them; rank files whose pass 1 was made ahead, so that they
// agree on time 0 before any is imported):
//  1. a pre-scan learns the layout; it only finds each event's members (listJsonObject)
//     and takes a malformed nested value as absent: pass 2 then stops at it with the
//     checked scan's error, at the same byte as a single pass;
//  2. the main pass converts and emits every event, tracks already with their final names.
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
// Events dropped or altered (a "ts" out of range or of the wrong type, a negative "dur",
// an E without its B, ...) are counted per kind in ImportStats with the byte offset of the
// first one, and each kind with events becomes one warning line (import_anomaly.h).
//
// Memory besides the sink: the reader's window, per-thread stacks of open B events, open
// async events, and flows whose other end has not been seen yet.

#include "model/time_units.h"
#include "storage/import/common/import_anomaly.h"
#include "storage/store/progress.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

class TraceSink;

namespace chrome {
class ChromeLayout;
}  // namespace chrome

/// Pass 1 of an import made ahead (prescanChromeJson), so that the files of one run can
/// agree on time 0 from their earliest times before any is imported: the import given it
/// (ChromeImportOptions::prescan) reads the file once more instead of twice.
struct ChromePrescan
{
    /// The absolute time (as the "origin_ns" meta: baseTimeNanoseconds + ts, or ts) of
    /// the file's earliest event; nullopt when it has none.
    std::optional<model::TimeNs> originNs;
    std::shared_ptr<const chrome::ChromeLayout> layout;  ///< null: not made
};

struct ChromeImportOptions
{
    /// Rank of this file: -1 takes distributedInfo.rank when the file has one. With a rank,
    /// CPU process tracks are named "rank R" and GPU tracks "GPU n (rank R)".
    int rank = -1;
    /// Absolute time (same clock as the "origin_ns" meta: baseTimeNanoseconds + ts, or ts)
    /// to use as time 0, to align several files; default: the file's earliest event.
    std::optional<model::TimeNs> originNs;
    /// Threads that scan the file's events (in both passes), for one big file; the sink
    /// still receives the events one by one, in file order, the same with any count.
    int threads = 1;
    /// This file's pass 1, when made ahead (prescanChromeJson with the same file).
    ChromePrescan prescan;
};

/// What an import read, and every event it dropped or altered (see rows()).
struct ImportStats
{
    std::uint64_t totalEvents = 0;  ///< entries of the traceEvents array
    std::map<std::string, std::uint64_t> eventsByPhase;  ///< by "ph" ("(none)" when absent)
    std::uint64_t intervals = 0;  ///< X, matched B/E, async b/e (incl. closed-at-end ones)
    std::uint64_t instants = 0;  ///< i/I/R and async n
    std::uint64_t counterSamples = 0;
    std::uint64_t flows = 0;  ///< flow arrows emitted (s->f, s->t, t->f)

    // Events dropped or altered, each with the byte offset (in the uncompressed JSON) of
    // the first such event.
    AnomalyCount missingPhases;  ///< no "ph", or not a string: skipped
    AnomalyCount unknownPhases;  ///< phases not imported (P, O, N, D, T, ...): skipped
    std::string unknownPhasesText;  ///< unknownPhases' description, naming the phases
    AnomalyCount missingTimestamps;  ///< no "ts": skipped
    AnomalyCount badTimestamps;  ///< "ts" not a number (nor a string holding one): skipped
    AnomalyCount timestampsOutOfRange;  ///< |ts| of 2^62 ns (146 years) or more: skipped
    AnomalyCount stringTimestamps;  ///< "ts" a string holding a number: read as the number
    AnomalyCount badDurations;  ///< X whose "dur" is not a number: skipped
    AnomalyCount durationsOutOfRange;  ///< X whose |dur| is 2^62 ns or more: skipped
    AnomalyCount stringDurations;  ///< "dur" a string holding a number: read as the number
    AnomalyCount completeWithoutDuration;  ///< X without dur: ends at its thread's end
    AnomalyCount negativeDurations;  ///< X with dur < 0: made empty
    AnomalyCount endsBeforeBegins;  ///< E (or e/F) earlier than its B (b/S): made empty
    AnomalyCount unmatchedEnds;  ///< E with no open B on its thread
    AnomalyCount unclosedBegins;  ///< B never ended: closed at its thread's last time
    AnomalyCount unmatchedAsyncEnds;  ///< e/F with no open b/S
    AnomalyCount unclosedAsyncBegins;  ///< b/S never ended: closed at the trace's end
    AnomalyCount counterWithoutArgs;  ///< C without an args object or with {}: no sample
    AnomalyCount nonNumericCounterValues;  ///< C args that are not numbers, skipped
    AnomalyCount counterValuesOutOfRange;  ///< C args beyond a double's range, skipped
    AnomalyCount flowEndsWithoutStart;  ///< f (or t) whose s is missing
    AnomalyCount flowStartsWithoutEnd;  ///< s never finished by an f
    AnomalyCount badIds;  ///< pid/tid neither a number nor a string: its JSON text names it
    AnomalyCount badNames;  ///< name/cat not a string: left empty
    AnomalyCount badArgs;  ///< args not an object: ignored

    std::uint64_t bytes = 0;  ///< uncompressed JSON bytes
    /// Times this import read the file: 1 (one pass, or pass 2 of a pass 1 made ahead), 2
    /// (two passes), 3 (a single pass undone, then two).
    int reads = 0;
    model::TimeNs originNs = 0;  ///< absolute time of time 0 (as the "origin_ns" meta)
    model::TimeNs endNs = 0;  ///< last time of any event, relative to time 0
    bool truncated = false;  ///< the file ended early; events up to the last whole one
    /// One line each, for the import report: the truncation, then one per anomaly kind
    /// with events ("N events dropped: WHAT (first at byte B)").
    std::vector<std::string> warnings;

    /// The declared table, with this import's values; anomaly rows count byte offsets.
    std::vector<ImportStatRow> rows() const;
    /// Count of events with this phase.
    std::uint64_t phase(std::string_view ph) const;
};

/// Imports `path` into `sink`. Throws InputError (one line: file, byte offset, what was
/// expected) for input that is not a Chrome trace or is malformed before its end, and
/// Cancelled when `progress` returns false. Progress is reported in bytes of the file on
/// disk (compressed bytes for .gz), over its one or two passes.
ImportStats importChromeJson(const std::filesystem::path& path, TraceSink& sink,
    const ChromeImportOptions& options = {}, const ProgressFn& progress = {});

/// Pass 1 of importChromeJson() alone (options.threads scan it). To align several files
/// of one run (one per rank), take the minimum of their originNs and pass it to each import
/// as ChromeImportOptions::originNs, with the file's prescan. Throws like
/// importChromeJson(); progress goes to the 30 % of the file's bar that pass 1 gets.
ChromePrescan prescanChromeJson(const std::filesystem::path& path,
    const ChromeImportOptions& options = {}, const ProgressFn& progress = {});

/// prescanChromeJson(path).originNs.
std::optional<model::TimeNs> chromeTraceOriginNs(const std::filesystem::path& path);

}  // namespace strata::storage
