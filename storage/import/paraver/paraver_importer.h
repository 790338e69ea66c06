#pragma once
// Imports a Paraver trace (BSC's Extrae / mpi2prv format) into a TraceSink: the `.prv`
// records (plain or gzip, detected by the magic bytes), named with the `.pcf` and `.row`
// next to it (same stem, both optional).
//
// One streaming pass, line by line, with hand-written integer parsing: the records'
// numbers are parsed a batch of lines ahead (paraver_record_batches.h; on a thread of its
// own with options.threads >= 2), then imported in file order. Memory besides the sink:
// a few batches of text, the header's process model, the .pcf tables, and one stack of
// open events per (thread, event type).
//
// Tracks, all created up front in header order: Node (".row" NODE label, else "node N")
// > Process per (appl, task) (".row" TASK label, else "task A.T") > Thread per (appl,
// task, thread) (".row" THREAD label, else "thread A.T.H"). Counter tracks are created
// under a thread when its first sample of a numeric event type arrives.
//
// Records:
//  - `1:cpu:appl:task:thread:begin:end:state` -> an interval on the thread, named by the
//    .pcf STATES ("state N" without one), category "state", depth 0, role from
//    paraverStateRole() (without a .pcf, from Paraver's standard state table).
//  - `2:cpu:appl:task:thread:time:type:value[:type:value...]` -> per pair, by the type's
//    .pcf declaration:
//      * declared with VALUES and one of Extrae's types for the tracing tool's own state
//        (40000001 Application, 40000002 Trace initialization, 40000003 Flushing Traces,
//        40000012 Tracing, 40000018 Tracing mode): an instant per value, 0 ("End")
//        included, named by the value's label, category = the type's label. They carry no
//        role: as ranges they would count as work (the run's span, the mode) where the
//        thread's states already say what it did;
//      * declared with VALUES and an annotation type (Extrae's sampled call stacks
//        30000000-30999999 and MPI callers 70000000-89999999, or a label starting with
//        "Sampled" or "Caller": values that never end with a 0): an instant per non-zero
//        value, named by the value's label, category = the type's label;
//      * declared with VALUES that include 0 ("End"): a begin/end stream per (thread,
//        type): a non-zero value opens an interval named by the value's label, 0 closes
//        the innermost open one; category = the type's label, depth kAutoDepth, role Comm
//        when the type's label contains "MPI", else Useful. Unmatched 0s are dropped,
//        intervals open at the end are closed at the trace's end, a stack deeper than 256
//        closes its outermost event, and a close before its open makes an empty interval:
//        each is counted and warned about once per kind ("N records dropped|altered:
//        WHAT (first at line L)"); the line is noted only when the anomaly happens, plus
//        one line number kept per open event;
//      * declared with VALUES without 0 (a mode or phase) or with a value
//        label containing "status" (OpenMP lock: Lock -> Locked status -> Unlock ->
//        Unlocked status): each value closes the previous one of its type and opens the
//        next (0 only closes);
//      * otherwise (hardware counters, PAPI, uncore, undeclared types): a counter sample
//        on a Counter track (the type's label, else "type N") under the thread.
//  - `3:...:lsend:psend:...:lrecv:precv:size:tag` -> a flow "message" from the sender's
//    thread at the physical send to the receiver's thread at the physical receive.
//  - `c:`/`C:`/`i:`/`I:` communicator lines, `4:` global-op records (2004 format) and `#`
//    comment lines are counted and skipped.
// Records may be unsorted (the store sorts). Times are multiplied by the header's unit
// (`_ns`, `_us`, `_ms`, `_s`; without a suffix the .pcf UNITS, else microseconds).
// Meta: source_format=paraver, time_unit, paraver_date, paraver_end_ns, and
// "paraver.state_color.NAME" = "#rrggbb" for each .pcf state color.

#include "model/role.h"
#include "model/time_units.h"
#include "storage/import/common/paraver_states.h"
#include "storage/import/paraver/paraver_pcf.h"
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
namespace paraver_detail {
class Importer;
}

struct ParaverImportOptions
{
    /// Side files; default: the .prv's stem + ".pcf" / ".row" when they exist.
    std::optional<std::filesystem::path> pcf;
    std::optional<std::filesystem::path> row;
    /// Only the root tracks (nodes, ParaverRootMap) [firstRoot, endRoot) and the tracks
    /// under them are made: a process's share of a trace split by node (strata-mpi).
    /// Records of another node's threads must not reach it (logic_error); a message to
    /// one is stored on the sender's thread, to a foreign track (trace_sink.h) named by
    /// the receiver's node, process and thread, which the run resolves. -1: to the last.
    int firstRoot = 0;
    int endRoot = -1;
    /// 2 or more: a thread reads and parses the records ahead while the caller imports
    /// them (the same calls to the sink in the same order: the same store).
    int threads = 1;
};

struct ParaverImportStats
{
    std::uint64_t lines = 0;  ///< lines of the .prv, header included
    std::uint64_t states = 0;  ///< type 1 records
    std::uint64_t eventLines = 0;  ///< type 2 records
    std::uint64_t eventPairs = 0;  ///< type:value pairs of the type 2 records
    std::uint64_t communications = 0;  ///< type 3 records
    std::uint64_t globalOps = 0;  ///< type 4 records (old format), skipped
    std::uint64_t communicatorLines = 0;  ///< c:/C:/i:/I: lines, skipped
    std::uint64_t commentLines = 0;  ///< '#' lines after the header
    std::uint64_t emptyLines = 0;
    std::uint64_t intervals = 0;  ///< all intervals emitted (states + events)
    std::uint64_t eventIntervals = 0;  ///< intervals from begin/end event pairs
    std::uint64_t instants = 0;  ///< sampled events
    std::uint64_t counterSamples = 0;
    std::uint64_t flows = 0;
    std::uint64_t counterTracks = 0;
    std::uint64_t unmatchedEnds = 0;  ///< value 0 with no open event of its type
    std::uint64_t unclosedBegins = 0;  ///< open at the end: closed at the trace's end
    std::uint64_t endsBeforeBegin = 0;  ///< a close earlier than its open: made empty
    std::uint64_t depthOverflows = 0;  ///< opens beyond 256 deep: the outermost was closed
    std::uint64_t bytes = 0;  ///< uncompressed .prv bytes
    ParaverHeader header;
    model::TimeNs endNs = 0;  ///< max(header end, last record time), in ns
    bool hasPcf = false;
    bool hasRow = false;
    std::map<std::int64_t, std::string> stateNames;  ///< from the .pcf
    std::map<std::int64_t, ParaverColor> stateColors;  ///< from the .pcf
    bool truncated = false;  ///< the file ended inside a record: that record was dropped
    /// The line where each anomaly above was first met (0: never), for its warning.
    std::uint64_t firstUnmatchedEndLine = 0;
    std::uint64_t firstUnclosedLine = 0;
    std::uint64_t firstEndBeforeBeginLine = 0;
    std::uint64_t firstDepthOverflowLine = 0;
    /// One line each; records dropped or altered read "N records dropped|altered: WHAT
    /// (first at line L)", one line per kind.
    std::vector<std::string> warnings;
};

/// The role of a Paraver state from its name (case-insensitive):
///   "Running" -> Useful; "Idle", "Not created", "Outside", "Tracing disabled" -> Idle;
///   names with "sync", "wait", "block", "barrier", "probe", "locking", "memory
///   ordering" -> Sync;  "send", "recv", "receive", "comm", "group", "collective", "mpi",
///   "one-sided", "remote memory", "atomic memory", "rtt" -> Comm;  "memory transfer",
///   "data copy" -> Transfer;  "sched", "fork", "join", "overhead", "profiling",
///   "on-line", "startup", "allocating", "freeing", "i/o", "others" -> Runtime;  anything
///   else (a custom state table's own names) -> Useful. So of Paraver's standard states
///   only Running is useful, as in BSC's modelfactors.
model::Role paraverStateRole(std::string_view name);

/// Imports `prv` into `sink`. Throws InputError (one line: file, line, what was
/// expected) on malformed input, Cancelled when `progress` returns false. Progress is in
/// bytes of the .prv on disk (compressed bytes for .gz).
ParaverImportStats importParaver(
    const std::filesystem::path& prv, TraceSink& sink, const ProgressFn& progress = {});
ParaverImportStats importParaver(const std::filesystem::path& prv, TraceSink& sink,
    const ParaverImportOptions& options, const ProgressFn& progress = {});

/// The root tracks of a Paraver import: its nodes (the header's count, or more when a
/// task names a higher node), 0-based; every task lies under one.
class ParaverRootMap
{
public:
    explicit ParaverRootMap(const ParaverHeader& header);
    int roots() const { return m_roots; }
    /// The root of a record's appl:task:thread (1-based, as written), -1 when the header
    /// declares no such thread.
    int rootOf(std::int64_t appl, std::int64_t task, std::int64_t thread) const
    {
        if (appl < 1 || std::size_t(appl) > m_tasks.size())
            return -1;
        const auto& tasks = m_tasks[std::size_t(appl - 1)];
        if (task < 1 || std::size_t(task) > tasks.size())
            return -1;
        const ParaverTask& t = tasks[std::size_t(task - 1)];
        return thread >= 1 && thread <= t.threads ? t.node - 1 : -1;
    }

private:
    int m_roots = 0;
    std::vector<std::vector<ParaverTask>> m_tasks;
};

/// One process's share of a Paraver trace split at line boundaries (strata-mpi ingest):
/// the importer of importParaver(), fed lines from outside, in file order, with their
/// line numbers. Options' firstRoot/endRoot say which nodes this share builds. Errors
/// (InputError) name the line as importParaver() does.
class ParaverLineImporter
{
public:
    ParaverLineImporter(
        const std::filesystem::path& prv, TraceSink& sink, const ParaverImportOptions& options);
    ~ParaverLineImporter();
    /// Line `number` without its '\n': the header's line(s) first, then records.
    void line(std::string_view text, std::uint64_t number);
    /// The file's last line when no newline ends it.
    void lastLine(std::string_view text, std::uint64_t number);
    /// The header, once its line came (null before).
    const ParaverHeader* header() const;
    /// The latest time the records fed so far reach, in ns.
    model::TimeNs maxTimeNs() const;
    /// Closes the events still open at `endNs` (the whole trace's end: the header's, or
    /// the latest record time of all shares) and returns this share's stats: its counts,
    /// and its warnings without the anomaly lines (mergeParaverShares adds those).
    ParaverImportStats finish(model::TimeNs endNs);

private:
    ProgressFn m_noProgress;  ///< the importer keeps a reference: none, for its whole life
    std::unique_ptr<paraver_detail::Importer> m_importer;
};

/// Calls `f(name, value)` for each count of `stats` that adds up over the shares of a split
/// trace (records, events made, anomalies), `value` a reference.
template<typename Stats, typename F>
void forEachParaverCount(Stats& stats, F&& f)
{
    f("states", stats.states);
    f("event_lines", stats.eventLines);
    f("event_pairs", stats.eventPairs);
    f("communications", stats.communications);
    f("global_ops", stats.globalOps);
    f("communicator_lines", stats.communicatorLines);
    f("comment_lines", stats.commentLines);
    f("empty_lines", stats.emptyLines);
    f("intervals", stats.intervals);
    f("event_intervals", stats.eventIntervals);
    f("instants", stats.instants);
    f("counter_samples", stats.counterSamples);
    f("flows", stats.flows);
    f("counter_tracks", stats.counterTracks);
    f("unmatched_ends", stats.unmatchedEnds);
    f("unclosed_begins", stats.unclosedBegins);
    f("ends_before_begin", stats.endsBeforeBegin);
    f("depth_overflows", stats.depthOverflows);
}

/// The stats of a whole split trace from its shares' (ParaverLineImporter::finish, in
/// file order; the first one's header and side files): counts summed, each anomaly's
/// first line the earliest, the shares' warnings once each in order, then the anomaly
/// lines of the whole. `lines` and `bytes` are the whole file's.
ParaverImportStats mergeParaverShares(
    const std::vector<ParaverImportStats>& shares, std::uint64_t lines, std::uint64_t bytes);

}  // namespace strata::storage
