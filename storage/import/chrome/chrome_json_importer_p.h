#pragma once
// Private to the Chrome JSON importer: the layout that pass 1 learns
// (chrome_json_prescan.cpp: processes, threads, time range, counter keys, top-level
// metadata), the event converter of pass 2 (chrome_json_converter.cpp), and the helpers
// both passes share. chrome_json_importer.cpp runs them.

#include "model/events.h"
#include "model/resource_tree.h"
#include "storage/import/chrome/chrome_event_reader.h"

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strata::storage {
class TraceSink;
class RevisableSink;
struct ChromeImportOptions;
struct ImportStats;
}  // namespace strata::storage

namespace strata::storage::chrome {

enum class Phase : std::uint8_t {
    Complete,  // X
    Begin,  // B
    End,  // E
    Instant,  // i, I, R
    Counter,  // C
    FlowStart,  // s
    FlowStep,  // t
    FlowEnd,  // f
    AsyncBegin,  // b, S
    AsyncEnd,  // e, F
    AsyncInstant,  // n
    Metadata,  // M
    Unknown,
};

Phase classifyPhase(std::string_view ph);

/// What a category says about where an event ran (Kineto and the 2021 Kineto names).
enum class Work : std::uint8_t { Neutral, Cpu, Gpu };
Work classifyCategory(std::string_view cat);

/// Times and durations must stay below 2^62 ns (146 years) in magnitude, so that sums and
/// differences of two of them cannot overflow.
constexpr model::TimeNs kMaxMicrosNs = model::TimeNs(1) << 62;

/// How a ts or dur value reads: a number (Ok), a string holding one (String: read as the
/// number), or not usable.
enum class MicrosStatus : std::uint8_t { Ok, String, Absent, NotNumber, OutOfRange };

struct MicrosValue
{
    model::TimeNs ns = 0;
    MicrosStatus status = MicrosStatus::Absent;
    bool usable() const { return status == MicrosStatus::Ok || status == MicrosStatus::String; }
};

/// A ts or dur in decimal microseconds (a JSON number, or a string holding one), in ns;
/// out of range when its magnitude is kMaxMicrosNs or more.
MicrosValue readMicros(std::string_view raw);
/// readMicros()'s value when usable.
std::optional<model::TimeNs> parseMicros(std::string_view raw);

/// The identity of a pid or tid value: a string's text or a number's raw text, so that
/// "25738" and 25738 name the same thread.
std::string_view idText(std::string_view raw, std::string& scratch);

/// An integer JSON value (number, or numeric string).
std::optional<std::int64_t> parseInteger(std::string_view raw);

struct TransparentHash
{
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view> {}(s); }
};
template<class V>
using StringMap = std::unordered_map<std::string, V, TransparentHash, std::equal_to<>>;

/// A hash of `text` that reads at most its first and last 8 bytes and its length: cheap for
/// the long names of kernels, good enough to spread a small cache (a collision only costs
/// a lookup).
std::uint64_t quickHash(std::string_view text);

constexpr model::TimeNs kNoTime = std::numeric_limits<model::TimeNs>::min();

/// A B event waiting for its E.
struct OpenSlice
{
    std::uint64_t offset = 0;  // of the B event, for the import report
    model::TimeNs startNs = 0;
    model::StringId name = model::kEmptyString;
    model::StringId category = model::kEmptyString;
    std::uint32_t seq = 0;
    std::string args;
};

struct ProcessInfo
{
    std::string pid;
    std::string metaName;  // process_name
    bool metaNameSet = false;  // (a later process_name "" clears it)
    std::vector<std::string> labels;  // process_labels
    std::optional<std::int64_t> sortIndex;  // process_sort_index
    bool cpuWork = false;
    bool gpuWork = false;
    bool hasEvents = false;
    std::optional<std::int64_t> device;  // the `device` arg of its GPU work, first seen
    std::uint32_t order = 0;  // first appearance
    // Decided by ChromeLayout::finalize():
    model::ResourceKind kind = model::ResourceKind::Process;
    std::string name;
    std::int64_t sortKey = 0;
    // Main pass:
    model::TrackId track = model::kNoTrack;
};

struct ThreadInfo
{
    std::uint32_t process = 0;
    std::string tid;
    std::string metaName;  // thread_name
    bool metaNameSet = false;
    std::optional<std::int64_t> sortIndex;  // thread_sort_index
    bool cpuWork = false;
    bool gpuWork = false;
    std::uint32_t order = 0;
    model::TimeNs maxEndNs = kNoTime;  // absolute, from the pre-scan
    std::uint64_t slices = 0;  // X and B events, from the pre-scan
    std::uint64_t sliceArgBytes = 0;  // the raw text of their args
    /// Absolute times of flow ends (f without bp:"e") that bind to the next slice, sorted.
    std::vector<model::TimeNs> nextSliceFlowNs;
    // Decided by ChromeLayout::finalize():
    model::ResourceKind kind = model::ResourceKind::Thread;
    std::string name;
    std::int64_t sortKey = 0;
    // Main pass:
    model::TrackId track = model::kNoTrack;
    std::vector<OpenSlice> open;  // B events, innermost last
    /// Per nextSliceFlowNs[j]: the earliest slice start in [t_j, t_j+1), absolute.
    std::vector<model::TimeNs> nextSliceStartNs;
};

/// What the pre-scan learns about a file.
class ChromeLayout
{
public:
    std::vector<ProcessInfo> processes;
    std::vector<ThreadInfo> threads;
    model::TimeNs minTsNs = kNoTime;  // absolute (trace clock), over non-M events
    model::TimeNs maxEndNs = kNoTime;
    /// Keys of each counter series base ("pid\x1fname"), in first-seen order.
    StringMap<std::vector<std::string>> counterKeys;
    std::vector<std::pair<std::string, std::string>> topLevel;
    std::optional<std::int64_t> rank;
    std::optional<std::int64_t> worldSize;
    std::optional<model::TimeNs> baseTimeNs;  // Kineto baseTimeNanoseconds
    std::string deviceProperties;  // raw JSON, minified

    /// The thread (pid, tid), added with its process when new.
    std::uint32_t thread(std::string_view pid, std::string_view tid);
    std::uint32_t process(std::string_view pid);

    /// Adds what pass 1 learnt from the rest of the file after this layout's part (the
    /// events that follow, then the top-level members after them): the result is the
    /// layout of both parts read as one.
    void append(const ChromeLayout& later);

    /// Decides kinds, names and sort keys of all tracks (a pid holding both GPU streams and
    /// host threads becomes a GPU and a process); `rank` names the processes.
    void finalize(std::optional<std::int64_t> rankToShow);
    /// Whether finalize() will give a pid's host threads a process of their own (the pid
    /// also holds GPU streams).
    bool splitsHostThreads() const;

private:
    StringMap<std::uint32_t> m_threadIndex;
    StringMap<std::uint32_t> m_processIndex;
    std::string m_key;
    // The threads looked up lately, by a hash of pid and tid: events alternate between a
    // few threads (a CPU thread, its GPU stream), and comparing the ids costs less than
    // building the map's key and hashing it. Ids of up to 8 bytes (nearly all) are compared
    // as words: two std::string compares were two calls of memcmp an event (~1 % of a JSON
    // ingest).
    struct RecentThread
    {
        std::uint64_t pidWord = 0;  ///< packedId() of pid, when both ids are short
        std::uint64_t tidWord = 0;
        std::uint32_t pidSize = 0;
        std::uint32_t tidSize = 0;
        std::string pid;  ///< the ids when one of them is longer than 8 bytes
        std::string tid;
        std::uint32_t index = 0;
        bool used = false;
    };
    std::array<RecentThread, 64> m_recent;
};

/// What LayoutScanner::event() read of an event, so that the converter beside it (a single
/// pass) does not read it again.
struct EventFacts
{
    static constexpr std::uint32_t kNoThread = std::numeric_limits<std::uint32_t>::max();
    Phase phase = Phase::Unknown;
    MicrosValue ts;
    MicrosValue dur;  ///< X only
    std::uint32_t thread = kNoThread;  ///< of a timed event of a known phase
};

/// Learns a file's layout one event at a time (pass 1, or beside the converter in a
/// single pass); finish() takes the top-level members read after the last event.
class LayoutScanner
{
public:
    explicit LayoutScanner(ChromeLayout& layout)
        : m_layout(layout)
    {}
    const EventFacts& event(const ChromeEventFields& event);
    void finish(std::vector<std::pair<std::string, std::string>> topLevel);

private:
    ChromeLayout& m_layout;
    EventFacts m_facts;
    std::string m_phScratch, m_pidScratch, m_tidScratch, m_catScratch, m_nameScratch, m_scratch;
    std::vector<JsonField> m_args;
    std::string m_lastCat;
    Work m_lastWork = Work::Neutral;
};

/// Pass 2: converts events (in file order) and emits them to the sink; finish() closes
/// what is still open and resolves flows bound to a later slice.
class ChromeJsonConverter
{
public:
    /// `offsetNs`: the trace-clock time that becomes time 0.
    ChromeJsonConverter(
        ChromeLayout& layout, TraceSink& sink, ImportStats& stats, model::TimeNs offsetNs);
    /// Late layout, for a single pass: `layout` is learnt as the events come (a
    /// LayoutScanner sees each event first), times are the trace clock's, and the tracks
    /// are made with what the layout says so far. Then, unless needsLayoutFirst():
    /// layout.finalize(), finish(), describeTracks(), and the sink shifts the tracks to
    /// time 0.
    struct LateLayout
    {};
    ChromeJsonConverter(LateLayout, ChromeLayout& layout, TraceSink& sink, ImportStats& stats);
    ~ChromeJsonConverter();
    ChromeJsonConverter(const ChromeJsonConverter&) = delete;
    ChromeJsonConverter& operator=(const ChromeJsonConverter&) = delete;

    void event(const ChromeEventReader& reader);
    /// The reader's event, with what a LayoutScanner read of it.
    void event(const ChromeEventReader& reader, const EventFacts& facts);
    /// An event read elsewhere: its members, its offset in the file, its index in the array.
    void event(const ChromeEventFields& event, std::uint64_t offset, std::uint64_t index);
    void finish();
    /// Late layout: whether an event needed the layout before it could be emitted (an X
    /// without dur, a flow end bound to the next slice): the file must then be read twice.
    bool needsLayoutFirst() const;
    /// Late layout: gives the tracks made their final kinds, names and sort keys.
    void describeTracks(RevisableSink& sink) const;

private:
    struct State;
    std::unique_ptr<State> m_state;
};

/// Finalizes `layout` (with options.rank, else the file's), fills the stats' origin and
/// end, and writes the file's meta (origin, rank, ...) to `sink`. Returns the trace-clock
/// time that becomes time 0.
model::TimeNs settleLayout(
    ChromeLayout& layout, TraceSink& sink, const ChromeImportOptions& options, ImportStats& stats);

/// Sets stats.unknownPhasesText from stats.eventsByPhase (when unknownPhases has events).
void describeUnknownPhases(ImportStats& stats);

/// Pass 1 over `reader` (which keeps the top-level members). `onEvent` is called after
/// each event, for progress.
ChromeLayout preScan(ChromeEventReader& reader, const std::function<void()>& onEvent);

}  // namespace strata::storage::chrome
