#pragma once
// The Paraver importer's parts, shared by its two files: paraver_process_model.cpp reads
// the header, the .pcf and the .row and creates the tracks of the process model;
// paraver_importer.cpp streams the records into them. Private to storage/import/paraver.

#include "storage/import/common/import_anomaly.h"
#include "storage/import/paraver/paraver_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/trace_sink.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strata::storage::paraver_detail {

struct BatchLine;

using model::Role;
using model::StringId;
using model::TimeNs;
using model::TrackId;

inline std::string lowered(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

inline bool containsAny(const std::string& s, std::initializer_list<std::string_view> words)
{
    for (std::string_view w : words) {
        if (s.find(w) != std::string::npos)
            return true;
    }
    return false;
}

/// Extrae's sampled call stacks (30000000-30999999) and MPI callers / caller lines
/// (70000000-89999999): values that annotate a point in time and never end with a 0.
inline bool isAnnotationType(std::int64_t type, std::string_view label)
{
    return (type >= 30000000 && type < 31000000) || (type >= 70000000 && type < 90000000)
        || label.rfind("Sampled", 0) == 0 || label.rfind("Caller", 0) == 0;
}

/// Extrae's event types that record the tracing tool's own state rather than the
/// application's: 40000001 "Application" (begin/end of the traced run), 40000002 "Trace
/// initialization", 40000003 "Flushing Traces", 40000012 "Tracing" (enabled/disabled) and
/// 40000018 "Tracing mode" (detailed/bursts). As ranges they would need a role, and they
/// have none: the run, the tool's start-up and the mode span work of every kind, and the
/// time the tool itself takes is already in the thread's states (Extrae writes "Others"
/// for initialization and "I/O" for a flush). So they are imported as marks (instants),
/// as Paraver draws them (flags).
inline bool isToolStateType(std::int64_t type)
{
    return type == 40000001 || type == 40000002 || type == 40000003 || type == 40000012
        || type == 40000018;
}

/// Open events per (thread, type) beyond this depth close the outermost one (bounded
/// memory for streams that never send their 0s).
constexpr std::size_t kMaxOpenDepth = 256;

/// How the pairs of one event type are imported (see the header).
enum class TypeKind : std::uint8_t { Counter, Stack, Replace, Sample, ToolState };

struct TypeInfo
{
    TypeKind kind = TypeKind::Counter;
    Role role = Role::Useful;
    StringId category = model::kEmptyString;
    std::string label;  ///< counter track name
    const ParaverEventType* declaration = nullptr;
    std::uint32_t slot = 0;  ///< dense index of the type, for per-thread tables
    std::unordered_map<std::int64_t, StringId> valueNames;
};

struct OpenEvent
{
    TimeNs startNs = 0;
    StringId name = model::kEmptyString;
    std::uint32_t seq = 0;
    std::uint64_t line = 0;  ///< of the begin, for the warning if it never ends
};

/// One import-report line for records dropped or altered: "N records dropped: WHAT
/// (first at line L)", in the format every importer's warnings share.
inline std::string recordsWarning(
    std::uint64_t count, AnomalyEffect effect, std::string_view what, std::uint64_t line)
{
    return anomalyWarning(count, effect, what, "line " + std::to_string(line), "records");
}

/// Parses a signed integer field ending at ':' or at `end`; moves `p` past the ':'.
inline bool nextInt(const char*& p, const char* end, std::int64_t& value)
{
    auto [ptr, ec] = std::from_chars(p, end, value);
    if (ec != std::errc() || ptr == p)
        return false;
    if (ptr != end) {
        if (*ptr != ':')
            return false;
        ++ptr;
    }
    p = ptr;
    return true;
}

/// A counter value: an integer (unsigned 64-bit ones too) or a decimal number; the
/// field ends at ':' or at `end`, and `p` moves past the ':'. A decimal's integer part
/// is a valid integer by itself: each reading must end where the field does.
inline bool nextValue(const char*& p, const char* end, double& value)
{
    auto fieldEnds = [end](const char* ptr) { return ptr == end || *ptr == ':'; };
    const char* ptr = nullptr;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    if (const auto r = std::from_chars(p, end, i); r.ec == std::errc() && fieldEnds(r.ptr)) {
        value = double(i);
        ptr = r.ptr;
    } else if (const auto ru = std::from_chars(p, end, u); ru.ec == std::errc() && fieldEnds(ru.ptr)) {
        value = double(u);
        ptr = ru.ptr;
    } else if (const auto rd = std::from_chars(p, end, value); rd.ec == std::errc() && fieldEnds(rd.ptr)) {
        ptr = rd.ptr;
    } else {
        return false;
    }
    p = ptr == end ? ptr : ptr + 1;
    return true;
}

class Importer
{
public:
    Importer(const std::filesystem::path& prv, TraceSink& sink, const ParaverImportOptions& options,
        const ProgressFn& progress)
        : m_path(prv)
        , m_file(prv.string())
        , m_sink(sink)
        , m_options(options)
        , m_progress(progress)
    {}

    ParaverImportStats run();
    // The same import fed from outside (ParaverLineImporter): start(), then the lines in
    // file order with their numbers (the header first), then closeOpenEvents().
    void start();
    /// One line without its '\n' (a '\r' before it is dropped).
    void feed(const char* begin, const char* end, std::uint64_t lineNumber);
    /// The file's last line when no newline ends it: a record cut short is dropped with a
    /// warning (always so when the compressed file ended early).
    void feedLast(
        const char* begin, const char* end, std::uint64_t lineNumber, bool compressedTruncated);
    /// Closes the events still open at `endNs`, the trace's end.
    void closeOpenEvents(TimeNs endNs);
    bool headerSeen() const { return m_headerSeen; }
    TimeNs maxTimeNs() const { return m_maxTimeNs; }
    ParaverImportStats& stats() { return m_stats; }

private:
    void readSideFiles();
    void createTracks();
    void handleHeader(std::string_view line);
    void handleLine(const char* begin, const char* end);
    /// A record the batch reader parsed (paraver_record_batches.h): what handleLine does
    /// with its text, from its numbers.
    void handleRecord(const BatchLine& line, const std::int64_t* numbers);
    void handleState(const char* p, const char* end);
    /// A state record's 7 fields after "1:", a communication's 14 after "3:".
    void stateRecord(const std::int64_t* fields);
    void communicationRecord(const std::int64_t* fields);
    void handleEvent(const char* p, const char* end);
    void handleCommunication(const char* p, const char* end);
    /// The thread's index; `inShare`: its node must be one this share builds (records
    /// come only from those; a message may go to another's thread). Inline, as toNs and
    /// typeInfo's last-type check, with what fails out of line: called for every record,
    /// as calls they were 69 M of handleRecord's 212 M instructions on a 300 k-event trace.
    std::uint32_t threadIndex(
        std::int64_t appl, std::int64_t task, std::int64_t thread, bool inShare = true)
    {
        if (appl >= 1 && std::size_t(appl) <= m_taskBase.size()) {
            const auto& bases = m_taskBase[std::size_t(appl - 1)];
            if (task >= 1 && std::size_t(task) <= bases.size()) {
                const int threads = m_taskThreads[std::size_t(appl - 1)][std::size_t(task - 1)];
                if (thread >= 1 && thread <= threads) {
                    const std::uint32_t index =
                        bases[std::size_t(task - 1)] + std::uint32_t(thread - 1);
                    if (inShare && m_threadTracks[index] == model::kNoTrack)
                        outsideShare();
                    return index;
                }
            }
        }
        badThread(appl, task, thread);
    }
    [[noreturn]] void outsideShare() const;
    [[noreturn]] void badThread(std::int64_t appl, std::int64_t task, std::int64_t thread) const;
    /// A message's receiver: the thread's track, or a foreign track (trace_sink.h) for a
    /// thread of a node another share builds.
    TrackId receiverTrack(std::uint32_t thread);
    TimeNs toNs(std::int64_t t, const char* what)
    {
        TimeNs ns = 0;
        if (t < 0 || __builtin_mul_overflow(t, m_stats.header.unitNs, &ns))
            badTime(t, what);
        m_maxTimeNs = std::max(m_maxTimeNs, ns);
        return ns;
    }
    [[noreturn]] void badTime(std::int64_t t, const char* what) const;
    TypeInfo& typeInfo(std::int64_t type)
    {
        if (m_lastType && m_lastTypeId == type)
            return *m_lastType;
        return findType(type);
    }
    TypeInfo& findType(std::int64_t type);
    StringId valueName(TypeInfo& info, std::int64_t value);
    void addEventPair(std::uint32_t thread, TimeNs time, std::int64_t type, double value,
        std::int64_t intValue, bool isInt);
    void closeOpen(std::uint32_t thread, const TypeInfo& info, const OpenEvent& open, TimeNs end);
    [[noreturn]] void fail(const std::string& what) const
    {
        throw InputError::atLine(m_file, m_lineNumber, what);
    }
    /// Reads the leading numeric fields of a record (field 2 on, after the record type),
    /// failing with the field's name and the record's layout.
    template<std::size_t N>
    std::array<std::int64_t, N> readFields(const char*& p, const char* end,
        const std::array<const char*, N>& names, const char* layout) const
    {
        std::array<std::int64_t, N> f {};
        for (std::size_t i = 0; i < N; ++i) {
            if (p == end || !nextInt(p, end, f[i]))
                fail(std::string("expected ") + names[i] + " (a number) as field "
                    + std::to_string(i + 2) + layout);
        }
        return f;
    }

    std::filesystem::path m_path;
    std::string m_file;
    TraceSink& m_sink;
    ParaverImportOptions m_options;
    const ProgressFn& m_progress;
    ParaverImportStats m_stats;
    ParaverPcf m_pcf;
    ParaverRow m_row;
    bool m_headerSeen = false;
    std::uint64_t m_lineNumber = 0;

    // Process model: thread index = m_taskBase[appl-1][task-1] + thread-1.
    std::vector<std::vector<std::uint32_t>> m_taskBase;
    std::vector<std::vector<int>> m_taskThreads;
    std::vector<TrackId> m_threadTracks;
    /// Threads of other shares' nodes: their path in the run (node, process, thread),
    /// and their foreign track once a message reached them (kNoTrack before).
    std::vector<TrackPath> m_threadPaths;
    std::vector<TrackId> m_foreignThreads;
    std::vector<std::uint32_t> m_threadSeq;

    std::unordered_map<std::int64_t, std::pair<StringId, Role>> m_stateNames;
    std::unordered_map<std::int64_t, TypeInfo> m_types;  // node-based: pointers stay valid
    std::int64_t m_lastTypeId = -1;
    TypeInfo* m_lastType = nullptr;
    std::vector<std::vector<TrackId>> m_counterTracks;  ///< [thread][type slot]
    std::vector<std::vector<std::vector<OpenEvent>>> m_open;  ///< [thread][type slot]
    StringId m_stateCategory = model::kEmptyString;
    StringId m_messageName = model::kEmptyString;
    TimeNs m_maxTimeNs = 0;
};

/// Appends the warnings of the anomalies `stats` counts, one line per kind.
void addAnomalyWarnings(ParaverImportStats& stats);

}  // namespace strata::storage::paraver_detail
