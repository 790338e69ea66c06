#pragma once
// ChromeJsonWriter is a TraceSink that writes Chrome Trace Event JSON the way Kineto
// (torch.profiler) does, so that Perfetto, chrome://tracing, TensorBoard and Strata's own
// importer read it:
//
//   {"schemaVersion":1,"deviceProperties":[],"baseTimeNanoseconds":<origin_ns>,
//    "displayTimeUnit":"ms","traceEvents":[
//   {"ph":"M","name":"process_name","pid":1000,"tid":0,"ts":0,"args":{"name":"rank 0"}},
//   {"ph":"X","cat":"kernel","name":"...","pid":0,"tid":7,"ts":12.345,"dur":6.7,"args":{...}},
//   ...
//   ],"otherData":{<every setMeta pair>}}
//
// Mapping: a Process track is a pid (1000, 1001, ... in creation order) and a Gpu track
// a pid of its own (the number its name ends with, e.g. "GPU 3" -> 3, when free; else the
// smallest free number), each announced by process_name/process_sort_index `M` events.
// Their Thread and Stream tracks are tids (a name's trailing number when free in that pid,
// e.g. "stream 7" -> 7; else the smallest free number from 1) with thread_name /
// thread_sort_index. Node and Group tracks are not emitted; tracks without a Process or
// Gpu ancestor live in a pid made for their root. Intervals are `X`, instants `i` with
// "s":"t", counter samples `C` events named after their counter with args {name: value}
// under the pid of the counter's process or GPU, flows a Kineto "s"/"f" pair (the "f"
// with "bp":"e", binding to the kernel that starts there) with ids 1, 2, ... Stack
// samples have no Kineto form: they are skipped and counted (skippedSamples()).
//
// Times are integer ns printed as exact decimal microseconds (12345678 -> 12345.678,
// 1500 -> 1.5), never through a double. Strings are escaped, with invalid UTF-8 replaced
// by U+FFFD; `args` text that looks like a JSON object is copied as is, anything else is
// wrapped as {"value":"<text>"}.
//
// Output is streamed through a 1 MiB buffer (the trace may hold 10^8 events) into
// path + ".tmp", gzip-compressed by zlib when the path ends in ".gz" (header mtime 0, so
// equal input gives equal bytes); finish() completes the JSON and renames the file into
// place. Destroying the writer without finish() removes the temporary file: no partial
// output is ever left at `path`. Memory: O(tracks + distinct strings).

#include "storage/store/trace_sink.h"

#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace strata::storage {

class ChromeJsonWriter : public TraceSink
{
public:
    /// Opens path + ".tmp" for writing; throws std::runtime_error if it cannot. `gzipLevel`
    /// (1..9) applies when the path ends in ".gz".
    explicit ChromeJsonWriter(std::filesystem::path path, int gzipLevel = 6);
    ~ChromeJsonWriter() override;
    ChromeJsonWriter(const ChromeJsonWriter&) = delete;
    ChromeJsonWriter& operator=(const ChromeJsonWriter&) = delete;

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

    /// Writes the closing part, flushes, closes and renames the file into place. Throws
    /// std::runtime_error on an I/O error (then no file is left at the path). Call once.
    void finish();

    /// Stack samples dropped (Chrome JSON from Kineto has no form for them).
    std::uint64_t skippedSamples() const { return m_skippedSamples; }
    /// Counter samples dropped because their value was NaN or infinite (not JSON).
    std::uint64_t skippedCounterValues() const { return m_skippedCounterValues; }
    /// Objects written into "traceEvents" so far, `M` events included.
    std::uint64_t eventsWritten() const { return m_eventsWritten; }

private:
    class Output;
    struct TrackState
    {
        model::TrackId parent = model::kNoTrack;
        model::ResourceKind kind = model::ResourceKind::Thread;
        std::string escapedName;
        std::int64_t sortKey = 0;
        std::int64_t pid = -1;  ///< Process/Gpu (or fallback root): its own pid
        std::int64_t eventPid = -1;  ///< where its events go, once located
        std::int64_t tid = -1;
        std::int64_t trailingNumber = -1;  ///< the number the name ends with, if any
    };

    const TrackState& trackAt(model::TrackId id) const;
    void ensureOpen();
    void beginEvent();
    void flushIfFull();
    void writeHeader();
    std::int64_t assignProcessPid(model::TrackId id, bool gpu);
    std::int64_t pidFor(model::TrackId id);
    void locate(model::TrackId id);
    void writeProcessMeta(const TrackState& track);
    void writeThreadMeta(
        std::int64_t pid, std::int64_t tid, const std::string& escapedName, std::int64_t sortIndex);
    void writePidTid(const TrackState& track);
    /// Opens an X or i event: `{"ph":PHASE,"cat":..,"name":..,"pid":..,"tid":..,"ts":..`.
    void beginSlice(model::TrackId track, std::string_view phase, model::StringId category,
        model::StringId name, model::TimeNs tsNs);
    void writeArgs(std::string_view args);
    const std::string& escaped(model::StringId id);

    std::filesystem::path m_path;
    std::filesystem::path m_tmpPath;
    std::unique_ptr<Output> m_out;
    std::string m_buffer;
    model::StringTable m_strings;
    std::vector<TrackState> m_tracks;
    /// Escaped text per StringId, filled on first use; a deque, so that references stay
    /// valid while it grows.
    std::deque<std::string> m_escaped;
    std::vector<bool> m_escapedReady;
    std::map<std::string, std::string> m_meta;
    std::map<std::int64_t, std::set<std::int64_t>> m_usedTids;  ///< per pid
    std::set<std::int64_t> m_usedPids;
    std::int64_t m_nextProcessPid = 1000;
    std::int64_t m_processSortIndex = 0;
    std::map<std::pair<model::StackId, model::StringId>, model::StackId> m_stacks;
    std::uint64_t m_nextFlowId = 1;
    std::uint64_t m_skippedSamples = 0;
    std::uint64_t m_skippedCounterValues = 0;
    std::uint64_t m_eventsWritten = 0;
    bool m_headerWritten = false;
    bool m_originInHeader = false;
    bool m_finished = false;
};

}  // namespace strata::storage
