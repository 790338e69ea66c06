#include "storage/import/stacks/perf_script_importer.h"

#include "storage/import/common/line_reader.h"
#include "storage/import/common/text_util.h"
#include "storage/import/stacks/perf_script_parser.h"
#include "storage/import/stacks/stack_interner.h"
#include "storage/store/input_error.h"
#include "storage/store/trace_sink.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <memory>
#include <set>
#include <tuple>

namespace strata::storage {

namespace {

constexpr const char* kExpectedHeader
    = "expected a perf sample header 'COMM PID[/TID] [CPU] TIME: [PERIOD] EVENT:'";

constexpr const char* kChangedWhileRead =
    "expected the same samples on the second read of the file (it changed while it was "
    "read, or is a pipe)";

std::string excerpt(std::string_view line)
{
    constexpr std::size_t kMax = 60;
    return "'" + std::string(line.substr(0, kMax)) + (line.size() > kMax ? "...'" : "'");
}

/// True when `text` reads as "ADDRESS SYMBOL...": a sample printed without a call chain
/// carries its ip/sym/dso after the event.
bool looksLikeFrame(std::string_view text)
{
    std::size_t n = 0;
    while (n < text.size() && std::isxdigit(static_cast<unsigned char>(text[n])))
        ++n;
    return n > 0 && n < text.size() && (text[n] == ' ' || text[n] == '\t') && !trim(text.substr(n)).empty();
}

struct Thread
{
    std::int64_t pid = -1;
    std::int64_t tid = -1;
    std::string comm;
    std::size_t process = 0;
};

struct Process
{
    std::int64_t pid = -1;  ///< -1: threads grouped by command
    std::string comm;
};

struct Event
{
    std::string name;
    std::uint64_t withPeriod = 0;
    std::uint64_t samples = 0;
};

/// The sample being read.
struct PendingSample
{
    model::TimeNs timeNs = 0;
    std::uint64_t weight = 1;
    model::StackId stack = 0;
    std::uint32_t thread = 0;
    std::uint32_t event = 0;
};

/// Reads the file twice, holding no sample: the first pass learns its threads, events and
/// time span (tracks are made in (pid, tid) order and times start at the first sample),
/// the second sends each sample as it is read. Holding them until the end took 32 bytes a
/// sample: 1 GB of a 30 M-sample file, ahead of the store builder's bounded buffers.
class Importer
{
public:
    Importer(const std::filesystem::path& path, TraceSink& sink, const ProgressFn& progress)
        : m_file(path)
        , m_progress(progress)
        , m_sink(sink)
        , m_interner(sink)
    {
    }

    PerfImportStats run();

private:
    /// The first pass reads sample headers only; the second reads frames and sends.
    enum class Pass { Layout, Samples };

    [[noreturn]] void fail(const std::string& what) const
    {
        throw InputError::atLine(m_reader->fileName(), m_reader->lineNumber(), what);
    }
    void read(Pass pass);
    void startSample(const PerfSampleHeader& h);
    void finishSample();
    std::uint32_t threadIndex(const PerfSampleHeader& h);
    std::uint32_t eventIndex(std::string_view event);
    /// Between the passes: the meta and the tracks, from what the first pass learnt.
    void makeTracks();

    const std::filesystem::path m_file;
    const ProgressFn m_progress;
    std::unique_ptr<LineReader> m_reader;
    Pass m_pass = Pass::Layout;
    TraceSink& m_sink;
    StackInterner m_interner;
    PerfImportStats m_stats;

    bool m_open = false;  ///< a sample is being read
    PendingSample m_current;
    std::string m_currentRest;
    std::vector<std::string> m_frames;  ///< names of the current sample, leaf first
    std::vector<std::string_view> m_path;  ///< root first

    std::vector<Thread> m_threads;
    std::map<std::tuple<std::int64_t, std::int64_t, std::string>, std::uint32_t> m_threadIndex;
    std::vector<Process> m_processes;
    std::map<std::string, std::size_t> m_processIndex;
    std::vector<Event> m_events;
    /// The first pass's: which (thread, event) pairs have samples, and the time span.
    std::vector<std::vector<bool>> m_used;  ///< by thread, then event
    model::TimeNs m_firstNs = 0;
    model::TimeNs m_lastNs = 0;
    /// The second pass's: a track per (thread, event) with samples, and time 0.
    std::vector<std::vector<model::TrackId>> m_tracks;
    model::TimeNs m_origin = 0;
};

std::uint32_t Importer::eventIndex(std::string_view event)
{
    for (std::size_t i = 0; i < m_events.size(); ++i) {
        if (m_events[i].name == event)
            return static_cast<std::uint32_t>(i);
    }
    m_events.push_back({std::string(event)});
    return static_cast<std::uint32_t>(m_events.size() - 1);
}

std::uint32_t Importer::threadIndex(const PerfSampleHeader& h)
{
    const std::string comm(h.comm);
    const auto [it, inserted] = m_threadIndex.try_emplace({h.pid, h.tid, comm}, static_cast<std::uint32_t>(m_threads.size()));
    if (!inserted)
        return it->second;
    const std::string processKey = h.pid >= 0 ? "pid " + std::to_string(h.pid) : "comm " + comm;
    const auto [p, newProcess] = m_processIndex.try_emplace(processKey, m_processes.size());
    if (newProcess)
        m_processes.push_back({h.pid, comm});
    m_threads.push_back({h.pid, h.tid, comm, p->second});
    return it->second;
}

void Importer::startSample(const PerfSampleHeader& h)
{
    if (h.timeOverflow)
        fail("the sample time does not fit in 64-bit nanoseconds");
    const bool timed = h.timeNs.has_value();
    if (m_stats.samples == 0)
        m_stats.timed = timed;
    else if (timed != m_stats.timed)
        fail(timed ? "a sample with a TIME field after samples without one"
                   : "expected a TIME field ('SECONDS.DECIMALS:') like the samples before");
    m_current = {};
    m_current.timeNs = timed ? *h.timeNs : static_cast<model::TimeNs>(m_stats.samples);
    m_current.weight = h.period.value_or(1);
    m_current.thread = threadIndex(h);
    m_current.event = eventIndex(h.event);
    Event& event = m_events[m_current.event];
    ++event.samples;
    ++m_stats.samplesPerEvent[event.name];
    if (h.period) {
        ++event.withPeriod;
        ++m_stats.samplesWithPeriod;
        m_stats.periodPerEvent[event.name] += *h.period;
    }
    m_currentRest.assign(h.rest);
    m_frames.clear();
    m_open = true;
    ++m_stats.samples;
}

void Importer::finishSample()
{
    if (!m_open)
        return;
    m_open = false;
    if (m_pass == Pass::Layout) {
        const bool first = m_stats.samples == 1;  // counted by startSample()
        if (m_used.size() <= m_current.thread)
            m_used.resize(m_current.thread + 1);
        std::vector<bool>& events = m_used[m_current.thread];
        if (events.size() <= m_current.event)
            events.resize(m_current.event + 1, false);
        events[m_current.event] = true;
        m_firstNs = first ? m_current.timeNs : std::min(m_firstNs, m_current.timeNs);
        m_lastNs = first ? m_current.timeNs : std::max(m_lastNs, m_current.timeNs);
        return;
    }
    if (m_frames.empty() && looksLikeFrame(m_currentRest))
        m_frames.push_back(perfFrameName(parsePerfFrame(m_currentRest)));
    if (m_frames.empty())
        ++m_stats.emptyStacks;
    m_stats.maxDepth = std::max<std::uint64_t>(m_stats.maxDepth, m_frames.size());
    m_path.assign(m_frames.rbegin(), m_frames.rend());
    m_current.stack = m_interner.intern(m_path);
    // A thread or event the first pass did not see: the file changed between the passes.
    const model::TrackId track =
        m_current.thread < m_tracks.size() && m_current.event < m_tracks[m_current.thread].size()
        ? m_tracks[m_current.thread][m_current.event]
        : model::kNoTrack;
    if (track == model::kNoTrack)
        fail(kChangedWhileRead);
    addWeightedSample(
        m_sink, track, m_current.timeNs - m_origin, m_current.stack, m_current.weight);
}

void Importer::read(Pass pass)
{
    m_pass = pass;
    m_reader =
        std::make_unique<LineReader>(m_file, pass == Pass::Samples ? m_progress : ProgressFn {});
    m_open = false;
    std::string_view line;
    while (m_reader->next(line)) {
        ++m_stats.lines;
        if (line.starts_with('#')) {
            ++m_stats.headerLines;
            continue;
        }
        if (trim(line).empty()) {
            finishSample();
            continue;
        }
        if (line.find('\0') != std::string_view::npos)
            fail("expected text, found a NUL byte (binary data: perf.data must go through `perf script` first)");
        const bool indented = line.front() == ' ' || line.front() == '\t';
        if (!m_open || !indented) {
            if (const auto header = parsePerfSampleHeader(line)) {
                finishSample();
                startSample(*header);
                continue;
            }
            if (!m_open)
                fail(std::string(kExpectedHeader) + ", found " + excerpt(line));
        }
        if (pass == Pass::Layout)
            continue;  // a frame: read in the second pass
        const PerfFrame frame = parsePerfFrame(line);
        if (frame.symbol.empty() || frame.symbol == "[unknown]")
            ++m_stats.unknownFrames;
        m_frames.push_back(perfFrameName(frame));
        ++m_stats.frames;
    }
    finishSample();
}

PerfImportStats Importer::run()
{
    read(Pass::Layout);
    if (m_stats.samples == 0)
        throw InputError::atLine(m_reader->fileName(), m_reader->lineNumber() + 1,
            std::string(kExpectedHeader) + ": the file holds no samples");
    makeTracks();
    // The second pass counts again what the first counted.
    PerfImportStats layout = std::move(m_stats);
    m_stats = {};
    for (Event& e : m_events)
        e.samples = e.withPeriod = 0;
    read(Pass::Samples);
    if (m_stats.samples != layout.samples)
        fail(kChangedWhileRead);
    m_stats.firstNs = layout.firstNs;
    m_stats.lastNs = layout.lastNs;
    m_stats.processes = layout.processes;
    m_stats.threads = layout.threads;
    m_stats.threadIds = layout.threadIds;
    m_stats.sampleTracks = layout.sampleTracks;
    if (m_reader->truncated())
        m_stats.warnings.push_back("the compressed file ends early; samples up to line "
            + std::to_string(m_reader->lineNumber()) + " were read");
    return std::move(m_stats);
}

void Importer::makeTracks()
{
    if (m_stats.timed) {
        m_origin = m_firstNs;
        m_stats.firstNs = m_firstNs;
        m_stats.lastNs = m_lastNs;
    }
    m_sink.setMeta("source_format", "perf");
    m_sink.setMeta("origin_ns", std::to_string(m_origin));
    if (m_stats.timed)
        m_sink.setMeta("clock", "perf (seconds since boot, monotonic)");
    else
        m_sink.setMeta("time_axis", "synthetic: sample k at k ns (the file has no TIME fields)");
    std::string events;
    for (const Event& e : m_events)
        events += (events.empty() ? "" : ",") + e.name;
    m_sink.setMeta("perf_events", events);

    std::vector<std::size_t> processOrder(m_processes.size());
    for (std::size_t i = 0; i < processOrder.size(); ++i)
        processOrder[i] = i;
    std::sort(processOrder.begin(), processOrder.end(), [&](std::size_t a, std::size_t b) {
        return std::tie(m_processes[a].pid, m_processes[a].comm) < std::tie(m_processes[b].pid, m_processes[b].comm);
    });
    std::vector<std::uint32_t> threadOrder(m_threads.size());
    for (std::size_t i = 0; i < threadOrder.size(); ++i)
        threadOrder[i] = static_cast<std::uint32_t>(i);
    std::stable_sort(threadOrder.begin(), threadOrder.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return m_threads[a].tid < m_threads[b].tid; });

    std::set<std::pair<std::int64_t, std::int64_t>> ids;
    for (const Thread& thread : m_threads)
        ids.insert({thread.pid, thread.tid});
    m_stats.threadIds = ids.size();

    std::vector<std::vector<model::TrackId>>& tracks = m_tracks;
    tracks.assign(m_threads.size(), std::vector<model::TrackId>(m_events.size(), model::kNoTrack));
    for (std::size_t p : processOrder) {
        const Process& process = m_processes[p];
        const std::string name = process.pid >= 0 ? process.comm + " [" + std::to_string(process.pid) + "]" : process.comm;
        const model::TrackId processTrack = m_sink.addTrack(model::kNoTrack, model::ResourceKind::Process, name, process.pid);
        ++m_stats.processes;
        for (std::uint32_t t : threadOrder) {
            const Thread& thread = m_threads[t];
            if (thread.process != p)
                continue;
            ++m_stats.threads;
            for (std::size_t e = 0; e < m_events.size(); ++e) {
                // A track for each (thread, event) pair with samples.
                if (t >= m_used.size() || e >= m_used[t].size() || !m_used[t][e])
                    continue;
                std::string threadName = thread.comm + " [" + std::to_string(thread.tid) + "]";
                if (m_events.size() > 1)
                    threadName += " " + m_events[e].name;
                const std::string unit = m_events[e].withPeriod > 0 ? m_events[e].name : m_events[e].name + " samples";
                tracks[t][e] = m_sink.addTrack(processTrack, model::ResourceKind::Thread, threadName,
                                               thread.tid * 64 + static_cast<std::int64_t>(e), unit);
                ++m_stats.sampleTracks;
            }
        }
    }
}

} // namespace

PerfImportStats importPerfScript(const std::filesystem::path& path, TraceSink& sink,
                                 const ProgressFn& progress)
{
    return Importer(path, sink, progress).run();
}

} // namespace strata::storage
