#pragma once
// ParaverWriter is a TraceSink that writes a Paraver trace (BSC's format, as mpi2prv and
// nsys2prv write it): `X.prv` (records), `X.pcf` (names and colors) and `X.row` (labels),
// the side files named after the .prv's stem. Paraver and Strata's own importer
// (storage/import/paraver/paraver_importer.h) read it.
//
// Process model: one application (appl 1). Each Process track is a task, and so is each
// Gpu track (its streams become the task's threads, as nsys2prv does); Thread and Stream
// tracks are the threads of their nearest Process/Gpu ancestor (tracks without one share
// a task made for their topmost non-Node ancestor). Events on a track that is not a
// thread (a Process, a Gpu, a counter hanging off a Gpu) go to an extra thread of its
// task named after the task, created on first use; a task without threads gets one too.
// Node tracks are nodes; tasks without a Node ancestor share one extra node "node". An
// empty trace gets one task "(empty)" with one thread (Paraver needs a task).
// The .row gives LEVEL NODE / TASK / THREAD labels (the tracks' names, newlines turned
// into spaces, "(unnamed)" for empty names). The CPU field of the records is the
// thread's 1-based global number (Strata traces carry no CPU placement); the header
// gives each node as many CPUs as it has threads.
//
// Records (times in ns; the header says `_ns` and the .pcf UNITS NANOSEC):
//  - every interval -> a begin/end event pair on its thread: `2:cpu:1:task:thread:start:
//    TYPE:value` followed at once by `2:...:end:TYPE:0`, one type per interval category
//    (60000000 + category index in order of first use), labelled with the category, with
//    VALUES 0 "End" and 1 + name index (per type, in order of first use) -> the name;
//  - intervals of depth 0 (not kAutoDepth) also -> a state record `1:cpu:1:task:thread:
//    start:end:state` by role: Useful -> 1 Running, Idle -> 0 Idle, Sync -> 5
//    Synchronization, Comm -> 13 Group Communication, Transfer -> 17 Memory transfer,
//    Runtime -> 24 Overhead (standard Paraver states, written in the .pcf STATES with
//    their usual colors; the importer maps those names back to the same roles);
//  - instants -> a punctual event `2:...:time:TYPE:value`, one type per instant category
//    (30000000 + category index: the range Paraver tools and the importer treat as
//    sampled annotations), VALUES = 1 + name index (no 0);
//  - counter samples -> a numeric event `2:...:time:TYPE:value` without VALUES, one type
//    per counter name (90000000 + index; a second track of that name on the same thread
//    gets a type of its own), labelled with the name (plus " (xSCALE)" when scaled).
//    Paraver values are integers: the value is multiplied by options.counterScale
//    (default 1) and rounded to the nearest integer; NaN/infinite values are skipped and
//    counted; the counter's unit is not kept;
//  - flows -> communication records `3:...:send:send:...:recv:recv:size:tag` (logical
//    time = physical time), from the flow's track to its target track (names are lost:
//    the importer calls them "message");
//  - stack samples have no Paraver form: skipped and counted. Meta is not written except
//    "paraver_date" (the header's date; default "01/01/1970 at 00:00", so that equal
//    input gives equal bytes).
// Negative times are written as 0 (counted). The end time in the header is the largest
// time written.
//
// Streaming: records are written, unsorted (in arrival order; Paraver and the importer
// accept that, and writing begin/end pairs adjacently keeps the importer's per-type
// begin/end matching right whatever the order), through a 1 MiB buffer into
// X.prv.body.tmp, because the header needs the end time and the final thread layout.
// finish() writes X.prv.tmp = header + the body copied in 1 MiB chunks (one extra
// sequential pass over the body; no record is held in memory), then X.pcf.tmp and
// X.row.tmp, and renames .pcf, .row and finally .prv into place. Destroying the writer
// without finish() removes every temporary file: no partial output is left. Memory:
// O(tracks + distinct categories and names).

#include "storage/store/trace_sink.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace strata::storage {

struct ParaverWriterOptions
{
    /// Counter values are multiplied by this and rounded to integers (Paraver values are
    /// integers); with a factor other than 1 the type's label says " (xFACTOR)".
    double counterScale = 1.0;
};

class ParaverWriter : public TraceSink
{
public:
    /// `prvPath` is the .prv to write (the .pcf and .row get its stem). Opens
    /// prvPath + ".body.tmp"; throws std::runtime_error if it cannot.
    explicit ParaverWriter(std::filesystem::path prvPath, ParaverWriterOptions options = {});
    ~ParaverWriter() override;
    ParaverWriter(const ParaverWriter&) = delete;
    ParaverWriter& operator=(const ParaverWriter&) = delete;

    model::StringTable& strings() override { return m_strings; }
    model::TrackId addTrack(model::TrackId parent, model::ResourceKind kind, std::string name,
        std::int64_t sortKey = 0, std::string unit = {}) override;
    void setMeta(std::string key, std::string value) override;
    void addInterval(
        model::TrackId track, const model::Interval& interval, std::string_view args = {}) override;
    void addInstant(
        model::TrackId track, const model::Instant& instant, std::string_view args = {}) override;
    void addCounterSample(model::TrackId track, const model::CounterSample& sample) override;
    void addFlow(model::TrackId fromTrack, const model::Flow& flow) override;
    model::StackId internStack(model::StackId parent, model::StringId frame) override;
    void addStackSample(model::TrackId track, const model::StackSample& sample) override;

    /// Writes the .prv (header + records), .pcf and .row and renames them into place.
    /// Throws std::runtime_error on an I/O error (then none of the three is left). Call once.
    void finish();

    std::filesystem::path prvPath() const { return m_prvPath; }
    std::filesystem::path pcfPath() const { return m_pcfPath; }
    std::filesystem::path rowPath() const { return m_rowPath; }

    std::uint64_t stateRecords() const { return m_stateRecords; }
    std::uint64_t eventRecords() const { return m_eventRecords; }  ///< type 2 lines
    std::uint64_t communicationRecords() const { return m_communicationRecords; }
    std::uint64_t skippedSamples() const { return m_skippedSamples; }  ///< stack samples
    std::uint64_t skippedCounterValues() const { return m_skippedCounterValues; }  ///< NaN/inf
    std::uint64_t clampedTimes() const { return m_clampedTimes; }  ///< negative -> 0

private:
    struct TrackState
    {
        model::TrackId parent = model::kNoTrack;
        model::ResourceKind kind = model::ResourceKind::Thread;
        std::string name;
        std::int32_t ownTask = -1;  ///< Process/Gpu: its task
        std::int32_t ownThread = -1;  ///< Thread/Stream: its thread
        std::int32_t eventThread = -1;  ///< where its events go, once located
        std::int64_t counterType = -1;  ///< Counter: its event type, once assigned
    };
    struct Task
    {
        std::string name;
        model::TrackId node = model::kNoTrack;  ///< its Node track, or none
        std::vector<std::uint32_t> threads;  ///< global thread indices, in order
        std::int32_t extraThread = -1;  ///< the thread for the task's own events
    };
    struct Thread
    {
        std::uint32_t task = 0;  ///< 0-based
        std::uint32_t local = 0;  ///< 1-based within the task
        std::string name;
        std::string prefix;  ///< "cpu:1:task:thread:"
    };
    struct EventType
    {
        std::string label;
        std::unordered_map<model::StringId, std::int64_t> values;  ///< name -> value
        std::vector<model::StringId> names;  ///< value - 1 -> name
    };

    const TrackState& trackAt(model::TrackId id) const;
    void ensureOpen() const;
    std::int32_t taskFor(model::TrackId id);
    std::int32_t newThread(std::uint32_t task, std::string name);
    const Thread& threadFor(model::TrackId id);
    EventType& categoryType(std::vector<EventType>& types,
        std::unordered_map<model::StringId, std::uint32_t>& index, model::StringId category,
        std::int64_t base, std::int64_t& type);
    std::int64_t valueFor(EventType& type, model::StringId name);
    std::int64_t time(model::TimeNs t);
    void eventLine(const Thread& thread, std::int64_t t, std::int64_t type, std::int64_t value);
    void flushIfFull();
    void flush();
    std::string headerLine() const;
    std::string pcfText() const;
    std::string rowText() const;
    void removeTemporaries() noexcept;

    std::filesystem::path m_prvPath;
    std::filesystem::path m_pcfPath;
    std::filesystem::path m_rowPath;
    std::filesystem::path m_bodyPath;
    ParaverWriterOptions m_options;
    std::FILE* m_body = nullptr;
    std::string m_buffer;
    model::StringTable m_strings;
    std::vector<TrackState> m_tracks;
    std::vector<Task> m_tasks;
    std::vector<Thread> m_threads;
    std::map<model::TrackId, std::uint32_t> m_fallbackTasks;  ///< owner track -> task
    std::vector<EventType> m_intervalTypes;  ///< 60000000 + index
    std::unordered_map<model::StringId, std::uint32_t> m_intervalTypeIndex;
    std::vector<EventType> m_instantTypes;  ///< 30000000 + index
    std::unordered_map<model::StringId, std::uint32_t> m_instantTypeIndex;
    std::vector<std::string> m_counterLabels;  ///< 90000000 + index
    std::map<std::string, std::vector<std::int64_t>> m_counterTypesByName;
    std::map<std::pair<std::int64_t, std::uint32_t>, model::TrackId> m_counterClaims;
    std::map<std::pair<model::StackId, model::StringId>, model::StackId> m_stacks;
    std::string m_date = "01/01/1970 at 00:00";
    std::int64_t m_endNs = 0;
    std::uint64_t m_stateRecords = 0;
    std::uint64_t m_eventRecords = 0;
    std::uint64_t m_communicationRecords = 0;
    std::uint64_t m_skippedSamples = 0;
    std::uint64_t m_skippedCounterValues = 0;
    std::uint64_t m_clampedTimes = 0;
    bool m_finished = false;
};

}  // namespace strata::storage
