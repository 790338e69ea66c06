// Pass 2 of the Chrome JSON importer: converts each event and hands it to the sink.

#include "model/role.h"
#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/import/chrome/chrome_json_importer_p.h"
#include "storage/store/trace_sink.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <unordered_map>

namespace strata::storage::chrome {

using model::TimeNs;
using model::TrackId;

namespace {

// The event being converted: its members, its offset in the file and its index in the
// array (a ChromeEventReader's current event, or one sent by another process).
struct EventRef
{
    const ChromeEventFields& fields;
    std::uint64_t offset = 0;
    std::uint64_t index = 0;
    const ChromeEventFields& event() const { return fields; }
    std::uint64_t eventOffset() const { return offset; }
    std::uint64_t eventIndex() const { return index; }
};

// One end of a flow arrow.
struct FlowPoint
{
    std::uint64_t offset = 0;  // of the event, for the import report
    TrackId track = model::kNoTrack;
    TimeNs ns = 0;  // relative
    model::StringId name = model::kEmptyString;
    std::uint32_t thread = 0;
    bool bindsNextSlice = false;
    TimeNs absNs = 0;
};

struct PendingFlow
{
    bool hasFrom = false;
    FlowPoint from;
    std::vector<FlowPoint> endsBeforeStart;  // f met before its s (unsorted files)
};

// A flow whose end binds to the next slice on its thread, known only at the end.
struct DeferredFlow
{
    TrackId fromTrack = model::kNoTrack;
    model::Flow flow;
    std::uint32_t thread = 0;
    TimeNs endAbsNs = 0;
};

struct OpenAsync
{
    std::uint64_t offset = 0;  // of the b/S event, for the import report
    TimeNs startNs = 0;
    model::StringId name = model::kEmptyString;
    model::StringId category = model::kEmptyString;
    std::uint32_t seq = 0;
    TrackId track = model::kNoTrack;
    std::string args;
};

// The state of pass 2: per-thread B stacks (in ThreadInfo), open async events, pending
// flows, and the tracks created so far. Tracks are created on first use, so only pids and
// tids with events get one, parents always before children.
class MainPass
{
public:
    MainPass(ChromeLayout& layout, TraceSink& sink, ImportStats& stats, TimeNs offsetNs, bool late)
        : m_layout(layout)
        , m_sink(sink)
        , m_stats(stats)
        , m_offsetNs(offsetNs)
        , m_late(late)
    {
        m_phaseCounts.fill(0);
    }

    void event(const EventRef& reader, const EventFacts* facts = nullptr);
    void finish();
    bool needsLayoutFirst() const { return m_needsLayoutFirst; }
    void describeTracks(RevisableSink& sink) const;

private:
    TimeNs rel(TimeNs absNs) const { return absNs - m_offsetNs; }
    model::StringId intern(std::string_view text);
    TrackId processTrack(std::uint32_t p);
    TrackId threadTrack(std::uint32_t t);
    std::string_view args(const EventRef& reader);
    model::Role role(model::StringId name, model::StringId category);
    void emitInterval(TrackId track, std::uint32_t thread, const model::Interval& interval,
        std::string_view args);
    void complete(const EventRef& reader, std::uint32_t thread, TimeNs ts, MicrosValue dur);
    void checkTypes(const EventRef& reader, Phase phase);
    void begin(const EventRef& reader, std::uint32_t thread, TimeNs ts);
    void end(const EventRef& reader, std::uint32_t thread, TimeNs ts);
    void counter(const EventRef& reader, std::string_view pid, std::uint32_t process, TimeNs ts);
    void flow(const EventRef& reader, Phase phase, std::uint32_t thread, TimeNs ts, TimeNs absTs);
    void emitFlow(const FlowPoint& from, const FlowPoint& to);
    void async(const EventRef& reader, Phase phase, std::string_view pid, std::uint32_t process,
        TimeNs ts);

    ChromeLayout& m_layout;
    TraceSink& m_sink;
    ImportStats& m_stats;
    TimeNs m_offsetNs = 0;  // absolute trace-clock time of time 0
    // Late layout (ChromeJsonConverter::LateLayout): tracks are made before the layout is
    // final, and described at the end; what the layout must say before an event is emitted
    // (an X's end at its thread's end, a flow to the next slice) makes the import read the
    // file again, layout first.
    const bool m_late = false;
    bool m_needsLayoutFirst = false;
    // Late layout: each counter track's series (pid\x1fname) and key, for its final name.
    struct CounterSeries
    {
        TrackId track = model::kNoTrack;
        std::string series;
        std::string base;
        std::string key;
        std::int64_t sortKey = 0;
    };
    std::vector<CounterSeries> m_counterSeries;
    std::array<std::uint64_t, 128> m_phaseCounts {};
    std::map<std::string, std::uint64_t> m_otherPhases;
    std::unordered_map<std::uint64_t, model::Role> m_roles;
    // The roles looked up lately, by a hash of (name, category): a cache before m_roles.
    struct RecentRole
    {
        std::uint64_t key = 0;
        model::Role role = model::Role::Useful;
        bool used = false;
    };
    std::array<RecentRole, 256> m_recentRoles;
    StringMap<TrackId> m_counterTracks;
    StringMap<TrackId> m_asyncTracks;
    // Sort keys of a process's counter and group tracks: their order among the process's
    // own, so that a process's tracks do not depend on the other processes (one file
    // imported by several processes, each owning some pids, gives the same tracks).
    std::unordered_map<std::uint32_t, std::int64_t> m_counterTracksOf;
    std::unordered_map<std::uint32_t, std::int64_t> m_asyncTracksOf;
    StringMap<std::vector<OpenAsync>> m_openAsync;
    StringMap<PendingFlow> m_flows;
    // The last flow start whose id had nothing pending, held out of m_flows until the next
    // flow event: Kineto writes each "s" right before its "f", and a pair met so costs no
    // entry (an entry made, found and erased, its key hashed each time: 1.2 % of a
    // synthetic Kineto ingest's instructions). The next flow event that is not its end
    // puts it in m_flows, as flow() would have.
    struct HeldStart
    {
        bool held = false;
        std::string key;
        FlowPoint point;
    } m_heldStart;
    void releaseHeldStart();
    std::vector<DeferredFlow> m_deferredFlows;
    std::string m_argsScratch;
    std::string m_s1, m_s2, m_s3, m_s4, m_key;
    std::vector<JsonField> m_argFields;
    // Strings interned lately, by quickHash(): names and categories repeat, and comparing
    // with the cached text costs less than the table's hash of the whole text.
    struct InternedText
    {
        std::string text;
        model::StringId id = model::kEmptyString;
        bool used = false;
    };
    std::array<InternedText, 256> m_interned;
};

model::StringId MainPass::intern(std::string_view text)
{
    InternedText& slot = m_interned[quickHash(text) >> 56];
    if (!slot.used || slot.text != text) {
        slot.id = m_sink.intern(text);
        slot.text.assign(text);
        slot.used = true;
    }
    return slot.id;
}

TrackId MainPass::processTrack(std::uint32_t p)
{
    ProcessInfo& info = m_layout.processes[p];
    if (info.track == model::kNoTrack)
        info.track = m_sink.addTrack(model::kNoTrack, info.kind, info.name, info.sortKey);
    return info.track;
}

TrackId MainPass::threadTrack(std::uint32_t t)
{
    ThreadInfo& info = m_layout.threads[t];
    if (info.track == model::kNoTrack) {
        TrackId parent = processTrack(info.process);
        info.track = m_sink.addTrack(parent, info.kind, info.name, info.sortKey);
        if (!m_late)  // the counts are the whole file's after pass 1 only
            m_sink.expectIntervals(info.track, info.slices, info.sliceArgBytes);
    }
    return info.track;
}

std::string_view MainPass::args(const EventRef& reader)
{
    std::string_view raw = reader.event().args;
    if (raw.size() < 2 || raw.front() != '{')
        return {};
    if (!reader.event().minified && !isMinifiedJson(raw)) {  // compact args are taken as they are
        minifyJson(raw, m_argsScratch);
        raw = m_argsScratch;
    }
    return raw == "{}" ? std::string_view() : raw;
}

model::Role MainPass::role(model::StringId name, model::StringId category)
{
    const std::uint64_t key = (std::uint64_t(name) << 32) | category;
    RecentRole& recent = m_recentRoles[(key * 0x9E3779B97F4A7C15ull) >> 56];
    if (recent.used && recent.key == key)
        return recent.role;
    auto it = m_roles.find(key);
    if (it == m_roles.end()) {
        it = m_roles
                 .emplace(key,
                     model::classifyRole(
                         m_sink.strings().text(name), m_sink.strings().text(category)))
                 .first;
    }
    recent = { key, it->second, true };
    return it->second;
}

void MainPass::emitInterval(
    TrackId track, std::uint32_t thread, const model::Interval& interval, std::string_view argsText)
{
    m_sink.addInterval(track, interval, argsText);
    ++m_stats.intervals;
    // Flow ends that bind to the next slice on this thread: note the earliest candidate.
    ThreadInfo& t = m_layout.threads[thread];
    if (!t.nextSliceFlowNs.empty() && !m_late) {
        const TimeNs startAbs = interval.startNs + m_offsetNs;
        auto it = std::upper_bound(t.nextSliceFlowNs.begin(), t.nextSliceFlowNs.end(), startAbs);
        if (it != t.nextSliceFlowNs.begin()) {
            TimeNs& best =
                t.nextSliceStartNs[static_cast<std::size_t>(it - t.nextSliceFlowNs.begin() - 1)];
            if (best == kNoTime || startAbs < best)
                best = startAbs;
        }
    }
}

void MainPass::complete(const EventRef& reader, std::uint32_t thread, TimeNs ts, MicrosValue dur)
{
    model::Interval interval;
    interval.startNs = ts;
    if (dur.status == MicrosStatus::Absent) {
        // Still running when the trace was written: it lasts until its thread's end.
        m_needsLayoutFirst = m_needsLayoutFirst || m_late;
        m_stats.completeWithoutDuration.add(reader.eventOffset());
        interval.endNs = std::max(ts, rel(m_layout.threads[thread].maxEndNs));
    } else if (dur.ns < 0) {
        m_stats.negativeDurations.add(reader.eventOffset());
        interval.endNs = ts;
    } else {
        interval.endNs = ts + dur.ns;
    }
    interval.name = intern(reader.event().string(reader.event().name, m_s1).value_or(""));
    interval.category = intern(reader.event().string(reader.event().cat, m_s2).value_or(""));
    interval.depth = model::kAutoDepth;
    interval.role = role(interval.name, interval.category);
    interval.seq = static_cast<std::uint32_t>(reader.eventIndex());
    emitInterval(threadTrack(thread), thread, interval, args(reader));
}

void MainPass::begin(const EventRef& reader, std::uint32_t thread, TimeNs ts)
{
    OpenSlice slice;
    slice.offset = reader.eventOffset();
    slice.startNs = ts;
    slice.name = intern(reader.event().string(reader.event().name, m_s1).value_or(""));
    slice.category = intern(reader.event().string(reader.event().cat, m_s2).value_or(""));
    slice.seq = static_cast<std::uint32_t>(reader.eventIndex());
    slice.args = std::string(args(reader));
    threadTrack(thread);  // the track exists from the B on, in file order
    m_layout.threads[thread].open.push_back(std::move(slice));
}

void MainPass::end(const EventRef& reader, std::uint32_t thread, TimeNs ts)
{
    ThreadInfo& t = m_layout.threads[thread];
    if (t.open.empty()) {
        m_stats.unmatchedEnds.add(reader.eventOffset());
        return;
    }
    OpenSlice slice = std::move(t.open.back());
    t.open.pop_back();
    if (ts < slice.startNs)
        m_stats.endsBeforeBegins.add(reader.eventOffset());
    model::Interval interval;
    interval.startNs = slice.startNs;
    interval.endNs = std::max(ts, slice.startNs);
    interval.name = slice.name;
    if (interval.name == model::kEmptyString)
        interval.name = intern(reader.event().string(reader.event().name, m_s1).value_or(""));
    interval.category = slice.category;
    if (interval.category == model::kEmptyString)
        interval.category = intern(reader.event().string(reader.event().cat, m_s2).value_or(""));
    interval.depth = model::kAutoDepth;
    interval.role = role(interval.name, interval.category);
    interval.seq = slice.seq;
    std::string_view argsText = slice.args;
    if (argsText.empty())
        argsText = args(reader);  // E may carry the args (Chrome merges them)
    emitInterval(threadTrack(thread), thread, interval, argsText);
}

void MainPass::counter(
    const EventRef& reader, std::string_view pid, std::uint32_t process, TimeNs ts)
{
    std::string_view argsRaw = reader.event().args;
    if (argsRaw.empty() || argsRaw.front() != '{') {
        m_stats.counterWithoutArgs.add(reader.eventOffset());
        return;
    }
    scanJsonObject(argsRaw, m_argFields);
    if (m_argFields.empty()) {
        m_stats.counterWithoutArgs.add(reader.eventOffset());
        return;
    }
    std::string base(reader.event().string(reader.event().name, m_s1).value_or(""));
    if (std::string_view id = reader.event().id; !id.empty())
        base += " " + std::string(idText(id, m_s2));
    m_key.assign(pid);
    m_key.push_back('\x1f');
    m_key.append(base);
    const std::size_t keyCount = [&] {
        auto it = m_layout.counterKeys.find(m_key);
        return it == m_layout.counterKeys.end() ? std::size_t(1) : it->second.size();
    }();
    const std::size_t baseKeyLength = m_key.size();
    for (const JsonField& f : m_argFields) {
        double value = 0;
        const char* first = f.value.data();
        const char* last = first + f.value.size();
        auto [ptr, ec] = std::from_chars(first, last, value);
        if (f.value.empty() || ec != std::errc() || ptr != last) {
            // from_chars reads any JSON number; one it cannot hold is beyond a double.
            const bool number = ec == std::errc::result_out_of_range && ptr == last;
            (number ? m_stats.counterValuesOutOfRange : m_stats.nonNumericCounterValues)
                .add(reader.eventOffset());
            continue;
        }
        m_key.resize(baseKeyLength);
        m_key.push_back('\x1f');
        m_key.append(f.key);
        auto it = m_counterTracks.find(m_key);
        if (it == m_counterTracks.end()) {
            std::string series = keyCount == 1 ? base : base + "." + std::string(f.key);
            const std::int64_t sortKey = m_counterTracksOf[process]++;
            TrackId track = m_sink.addTrack(
                processTrack(process), model::ResourceKind::Counter, series, sortKey);
            it = m_counterTracks.emplace(m_key, track).first;
            if (m_late) {
                m_counterSeries.push_back(
                    { track, m_key.substr(0, baseKeyLength), base, std::string(f.key), sortKey });
            }
        }
        m_sink.addCounterSample(it->second, model::CounterSample { ts, value });
        ++m_stats.counterSamples;
    }
}

void MainPass::emitFlow(const FlowPoint& from, const FlowPoint& to)
{
    model::Flow f;
    f.fromNs = from.ns;
    f.toTrack = to.track;
    f.toNs = to.ns;
    f.name = from.name != model::kEmptyString ? from.name : to.name;
    if (to.bindsNextSlice) {
        m_deferredFlows.push_back({ from.track, f, to.thread, to.absNs });
        return;
    }
    m_sink.addFlow(from.track, f);
    ++m_stats.flows;
}

void MainPass::flow(
    const EventRef& reader, Phase phase, std::uint32_t thread, TimeNs ts, TimeNs absTs)
{
    FlowPoint point;
    point.offset = reader.eventOffset();
    point.track = threadTrack(thread);
    point.ns = ts;
    point.thread = thread;
    point.absNs = absTs;
    std::string_view name = reader.event().string(reader.event().name, m_s1).value_or("");
    std::string_view cat = reader.event().string(reader.event().cat, m_s2).value_or("");
    point.name = intern(name.empty() ? cat : name);
    if (phase == Phase::FlowEnd) {
        auto bp = reader.event().string(reader.event().bp, m_s3);
        point.bindsNextSlice = !bp || *bp != "e";
        m_needsLayoutFirst = m_needsLayoutFirst || (m_late && point.bindsNextSlice);
    }
    std::string_view id = reader.event().id;
    if (id.empty())
        id = reader.event().id2;
    m_key.assign(cat);
    m_key.push_back('\x1f');
    m_key.append(idText(id, m_s4));
    if (m_heldStart.held) {
        if (phase == Phase::FlowEnd && m_key == m_heldStart.key) {
            emitFlow(m_heldStart.point, point);  // as from m_flows, its entry then erased
            m_heldStart.held = false;
            return;
        }
        releaseHeldStart();
    }
    if (phase == Phase::FlowStart && (m_flows.empty() || !m_flows.contains(m_key))) {
        m_heldStart.held = true;
        m_heldStart.key.assign(m_key);
        m_heldStart.point = point;
        return;
    }
    auto it = m_flows.find(m_key);
    if (it == m_flows.end())
        it = m_flows.emplace(m_key, PendingFlow {}).first;
    PendingFlow& pending = it->second;

    switch (phase) {
    case Phase::FlowStart:
        if (pending.hasFrom)  // an earlier s with this id never finished
            m_stats.flowStartsWithoutEnd.add(pending.from.offset);
        if (!pending.endsBeforeStart.empty()) {
            emitFlow(point, pending.endsBeforeStart.front());
            pending.endsBeforeStart.erase(pending.endsBeforeStart.begin());
            pending.hasFrom = false;
        } else {
            pending.hasFrom = true;
            pending.from = point;
        }
        break;
    case Phase::FlowStep:
        if (pending.hasFrom)
            emitFlow(pending.from, point);
        else
            m_stats.flowEndsWithoutStart.add(point.offset);
        pending.hasFrom = true;
        pending.from = point;
        break;
    default:  // FlowEnd
        if (pending.hasFrom) {
            emitFlow(pending.from, point);
            pending.hasFrom = false;
        } else {
            pending.endsBeforeStart.push_back(point);
        }
        break;
    }
    if (!pending.hasFrom && pending.endsBeforeStart.empty())
        m_flows.erase(it);
}

void MainPass::releaseHeldStart()
{
    if (!m_heldStart.held)
        return;
    m_flows.emplace(m_heldStart.key, PendingFlow { true, m_heldStart.point, {} });
    m_heldStart.held = false;
}

void MainPass::async(
    const EventRef& reader, Phase phase, std::string_view pid, std::uint32_t process, TimeNs ts)
{
    std::string_view name = reader.event().string(reader.event().name, m_s1).value_or("");
    std::string_view cat = reader.event().string(reader.event().cat, m_s2).value_or("");
    std::string_view id = reader.event().id;
    if (id.empty())
        id = reader.event().id2;
    m_key.assign(pid);
    m_key.push_back('\x1f');
    m_key.append(cat);
    m_key.push_back('\x1f');
    m_key.append(idText(id, m_s3));
    const auto openIt = m_openAsync.try_emplace(m_key).first;
    std::vector<OpenAsync>& stack = openIt->second;
    // Ids come and go: drop an id's entry once nothing of it is open.
    auto dropIfDone = [&] {
        if (stack.empty())
            m_openAsync.erase(openIt);
    };

    auto groupTrack = [&] {
        m_key.assign(pid);
        m_key.push_back('\x1f');
        m_key.append(cat);
        m_key.push_back('\x1f');
        m_key.append(name);
        auto it = m_asyncTracks.find(m_key);
        if (it == m_asyncTracks.end()) {
            TrackId track = m_sink.addTrack(processTrack(process), model::ResourceKind::Group,
                std::string(name.empty() ? "async" : name), m_asyncTracksOf[process]++);
            it = m_asyncTracks.emplace(m_key, track).first;
        }
        return it->second;
    };

    if (phase == Phase::AsyncBegin) {
        OpenAsync open;
        open.offset = reader.eventOffset();
        open.startNs = ts;
        open.name = intern(name);
        open.category = intern(cat);
        open.seq = static_cast<std::uint32_t>(reader.eventIndex());
        open.track = stack.empty() ? groupTrack() : stack.front().track;
        open.args = std::string(args(reader));
        stack.push_back(std::move(open));
        return;
    }
    if (phase == Phase::AsyncInstant) {
        model::Instant instant { ts, intern(name), intern(cat) };
        TrackId track = stack.empty() ? groupTrack() : stack.front().track;
        m_sink.addInstant(track, instant, args(reader));
        ++m_stats.instants;
        dropIfDone();
        return;
    }
    // AsyncEnd: the innermost open event of this id, or the innermost with this name.
    auto match = stack.rbegin();
    if (!name.empty()) {
        const model::StringId nameId = intern(name);
        auto named = std::find_if(
            stack.rbegin(), stack.rend(), [&](const OpenAsync& o) { return o.name == nameId; });
        if (named != stack.rend())
            match = named;
    }
    if (match == stack.rend()) {
        m_stats.unmatchedAsyncEnds.add(reader.eventOffset());
        dropIfDone();
        return;
    }
    if (ts < match->startNs)
        m_stats.endsBeforeBegins.add(reader.eventOffset());
    OpenAsync open = std::move(*match);
    stack.erase(std::next(match).base());
    dropIfDone();
    model::Interval interval { open.startNs, std::max(ts, open.startNs), open.name, open.category,
        model::kAutoDepth, role(open.name, open.category), open.seq };
    std::string_view argsText = open.args;
    if (argsText.empty())
        argsText = args(reader);
    m_sink.addInterval(open.track, interval, argsText);
    ++m_stats.intervals;
}

// Members of the wrong type that the event is imported without: its name left empty, its
// args ignored, a pid or tid named by its JSON text ("null", "{...}"). A number or string
// is right for a pid or tid.
void MainPass::checkTypes(const EventRef& reader, Phase phase)
{
    const ChromeEventFields& e = reader.event();
    auto notString = [](std::string_view raw) {
        return !raw.empty() && raw.front() != '"';
    };
    auto notId = [](std::string_view raw) {
        return !raw.empty() && raw.front() != '"' && raw.front() != '-'
            && (raw.front() < '0' || raw.front() > '9');
    };
    if (notString(e.name) || notString(e.cat))
        m_stats.badNames.add(reader.eventOffset());
    if (!e.args.empty() && e.args.front() != '{' && phase != Phase::Counter)
        m_stats.badArgs.add(reader.eventOffset());
    if (notId(e.pid) || notId(e.tid))
        m_stats.badIds.add(reader.eventOffset());
}

void MainPass::event(const EventRef& reader, const EventFacts* facts)
{
    ++m_stats.totalEvents;
    auto ph = reader.event().string(reader.event().ph, m_s1);
    if (!ph || ph->empty()) {
        ++m_otherPhases["(none)"];
    } else if (ph->size() == 1 && static_cast<unsigned char>((*ph)[0]) < 128) {
        ++m_phaseCounts[static_cast<unsigned char>((*ph)[0])];
    } else {
        ++m_otherPhases[std::string(*ph)];
    }
    const Phase phase = facts ? facts->phase : ph ? classifyPhase(*ph) : Phase::Unknown;
    if (phase == Phase::Metadata)
        return;
    const std::uint64_t offset = reader.eventOffset();
    if (phase == Phase::Unknown) {
        (!ph || ph->empty() ? m_stats.missingPhases : m_stats.unknownPhases).add(offset);
        return;
    }
    const MicrosValue absTs = facts ? facts->ts : readMicros(reader.event().ts);
    if (!absTs.usable()) {
        (absTs.status == MicrosStatus::Absent             ? m_stats.missingTimestamps
                : absTs.status == MicrosStatus::NotNumber ? m_stats.badTimestamps
                                                          : m_stats.timestampsOutOfRange)
            .add(offset);
        return;
    }
    MicrosValue dur;
    if (phase == Phase::Complete) {
        dur = facts ? facts->dur : readMicros(reader.event().dur);
        if (dur.status == MicrosStatus::NotNumber || dur.status == MicrosStatus::OutOfRange) {
            (dur.status == MicrosStatus::NotNumber ? m_stats.badDurations
                                                   : m_stats.durationsOutOfRange)
                .add(offset);
            return;
        }
        if (dur.status == MicrosStatus::String)
            m_stats.stringDurations.add(offset);
    }
    if (absTs.status == MicrosStatus::String)
        m_stats.stringTimestamps.add(offset);
    checkTypes(reader, phase);
    const TimeNs ts = rel(absTs.ns);
    std::string pid(idText(reader.event().pid, m_s2));
    const std::uint32_t thread = facts && facts->thread != EventFacts::kNoThread
        ? facts->thread
        : m_layout.thread(pid, idText(reader.event().tid, m_s3));
    const std::uint32_t process = m_layout.threads[thread].process;

    switch (phase) {
    case Phase::Complete:
        complete(reader, thread, ts, dur);
        break;
    case Phase::Begin:
        begin(reader, thread, ts);
        break;
    case Phase::End:
        end(reader, thread, ts);
        break;
    case Phase::Instant: {
        model::Instant instant { ts,
            intern(reader.event().string(reader.event().name, m_s1).value_or("")),
            intern(reader.event().string(reader.event().cat, m_s4).value_or("")) };
        m_sink.addInstant(threadTrack(thread), instant, args(reader));
        ++m_stats.instants;
        break;
    }
    case Phase::Counter:
        counter(reader, pid, process, ts);
        break;
    case Phase::FlowStart:
    case Phase::FlowStep:
    case Phase::FlowEnd:
        flow(reader, phase, thread, ts, absTs.ns);
        break;
    case Phase::AsyncBegin:
    case Phase::AsyncEnd:
    case Phase::AsyncInstant:
        async(reader, phase, pid, process, ts);
        break;
    case Phase::Metadata:
    case Phase::Unknown:
        break;
    }
}

void MainPass::describeTracks(RevisableSink& sink) const
{
    for (const ProcessInfo& p : m_layout.processes) {
        if (p.track != model::kNoTrack)
            sink.describeTrack(p.track, p.kind, p.name, p.sortKey);
    }
    for (const ThreadInfo& t : m_layout.threads) {
        if (t.track != model::kNoTrack)
            sink.describeTrack(t.track, t.kind, t.name, t.sortKey);
    }
    for (const CounterSeries& c : m_counterSeries) {
        auto it = m_layout.counterKeys.find(c.series);
        const std::size_t keyCount = it == m_layout.counterKeys.end() ? 1 : it->second.size();
        sink.describeTrack(c.track, model::ResourceKind::Counter,
            keyCount == 1 ? c.base : c.base + "." + c.key, c.sortKey);
    }
}

void MainPass::finish()
{
    // B without E: closed at their thread's last time, outermost last.
    for (std::uint32_t t = 0; t < m_layout.threads.size(); ++t) {
        ThreadInfo& info = m_layout.threads[t];
        while (!info.open.empty()) {
            OpenSlice slice = std::move(info.open.back());
            info.open.pop_back();
            model::Interval interval { slice.startNs, std::max(slice.startNs, rel(info.maxEndNs)),
                slice.name, slice.category, model::kAutoDepth, role(slice.name, slice.category),
                slice.seq };
            emitInterval(threadTrack(t), t, interval, slice.args);
            m_stats.unclosedBegins.add(slice.offset);
        }
    }
    // Async events never ended: closed at the trace's end.
    for (auto& [key, stack] : m_openAsync) {
        for (OpenAsync& open : stack) {
            model::Interval interval { open.startNs, std::max(open.startNs, rel(m_layout.maxEndNs)),
                open.name, open.category, model::kAutoDepth, role(open.name, open.category),
                open.seq };
            m_sink.addInterval(open.track, interval, open.args);
            ++m_stats.intervals;
            m_stats.unclosedAsyncBegins.add(open.offset);
        }
    }
    // Flows left half-done.
    releaseHeldStart();
    for (auto& [key, pending] : m_flows) {
        if (pending.hasFrom)
            m_stats.flowStartsWithoutEnd.add(pending.from.offset);
        for (const FlowPoint& end : pending.endsBeforeStart)
            m_stats.flowEndsWithoutStart.add(end.offset);
    }
    // Flow ends bound to the next slice: the first slice starting at or after them.
    for (DeferredFlow& d : m_deferredFlows) {
        const ThreadInfo& t = m_layout.threads[d.thread];
        auto it = std::lower_bound(t.nextSliceFlowNs.begin(), t.nextSliceFlowNs.end(), d.endAbsNs);
        for (auto j = static_cast<std::size_t>(it - t.nextSliceFlowNs.begin());
             j < t.nextSliceStartNs.size(); ++j) {
            if (t.nextSliceStartNs[j] != kNoTime) {
                d.flow.toNs = rel(t.nextSliceStartNs[j]);
                break;
            }
        }
        m_sink.addFlow(d.fromTrack, d.flow);
        ++m_stats.flows;
    }
    for (std::size_t c = 0; c < m_phaseCounts.size(); ++c) {
        if (m_phaseCounts[c] > 0)
            m_stats.eventsByPhase[std::string(1, static_cast<char>(c))] = m_phaseCounts[c];
    }
    for (const auto& [ph, n] : m_otherPhases)
        m_stats.eventsByPhase[ph] += n;
    describeUnknownPhases(m_stats);
}

}  // namespace

void describeUnknownPhases(ImportStats& stats)
{
    stats.unknownPhasesText.clear();
    if (stats.unknownPhases.count > 0) {
        std::string& text = stats.unknownPhasesText;
        text = "phases Strata does not import (";
        int listed = 0;
        for (const auto& [ph, n] : stats.eventsByPhase) {
            const bool printable = ph.size() <= 8 && std::all_of(ph.begin(), ph.end(), [](char c) {
                return c >= ' ' && c <= '~' && c != '"';
            });
            if (ph == "(none)" || classifyPhase(ph) != Phase::Unknown || !printable)
                continue;
            if (++listed > 8) {
                text += ", ...";
                break;
            }
            text += (listed == 1 ? "\"" : ", \"") + ph + '"';
        }
        text = listed == 0 ? std::string() : text + ')';
    }
}

struct ChromeJsonConverter::State
{
    State(ChromeLayout& layout, TraceSink& sink, ImportStats& stats, TimeNs offsetNs, bool late)
        : pass(layout, sink, stats, offsetNs, late)
    {}
    MainPass pass;
};

ChromeJsonConverter::ChromeJsonConverter(
    ChromeLayout& layout, TraceSink& sink, ImportStats& stats, model::TimeNs offsetNs)
    : m_state(std::make_unique<State>(layout, sink, stats, offsetNs, false))
{}

ChromeJsonConverter::ChromeJsonConverter(
    LateLayout, ChromeLayout& layout, TraceSink& sink, ImportStats& stats)
    : m_state(std::make_unique<State>(layout, sink, stats, 0, true))
{}

bool ChromeJsonConverter::needsLayoutFirst() const
{
    return m_state->pass.needsLayoutFirst();
}

void ChromeJsonConverter::describeTracks(RevisableSink& sink) const
{
    m_state->pass.describeTracks(sink);
}

ChromeJsonConverter::~ChromeJsonConverter() = default;

void ChromeJsonConverter::event(const ChromeEventReader& reader)
{
    m_state->pass.event({ reader.event(), reader.eventOffset(), reader.eventIndex() });
}

void ChromeJsonConverter::event(const ChromeEventReader& reader, const EventFacts& facts)
{
    m_state->pass.event({ reader.event(), reader.eventOffset(), reader.eventIndex() }, &facts);
}

void ChromeJsonConverter::event(
    const ChromeEventFields& event, std::uint64_t offset, std::uint64_t index)
{
    m_state->pass.event({ event, offset, index });
}

void ChromeJsonConverter::finish()
{
    m_state->pass.finish();
}

}  // namespace strata::storage::chrome
