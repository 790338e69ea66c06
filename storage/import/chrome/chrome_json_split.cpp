#include "storage/import/chrome/chrome_json_split.h"

#include "storage/import/chrome/chrome_json_importer_p.h"
#include "storage/import/common/gzip_reader.h"
#include "storage/store/byte_io.h"
#include "storage/store/input_error.h"
#include "storage/store/trace_sink.h"

#include <algorithm>
#include <charconv>

namespace strata::storage {

using namespace chrome;
using model::TimeNs;

namespace {

/// The counts of ImportStats, and its anomaly counts, in one order for the codec.
constexpr std::uint64_t ImportStats::*kCounts[] = { &ImportStats::totalEvents,
    &ImportStats::intervals, &ImportStats::instants, &ImportStats::counterSamples,
    &ImportStats::flows };
constexpr AnomalyCount ImportStats::*kAnomalies[] = { &ImportStats::missingPhases,
    &ImportStats::unknownPhases, &ImportStats::missingTimestamps, &ImportStats::badTimestamps,
    &ImportStats::timestampsOutOfRange, &ImportStats::stringTimestamps, &ImportStats::badDurations,
    &ImportStats::durationsOutOfRange, &ImportStats::stringDurations,
    &ImportStats::completeWithoutDuration, &ImportStats::negativeDurations,
    &ImportStats::endsBeforeBegins, &ImportStats::unmatchedEnds, &ImportStats::unclosedBegins,
    &ImportStats::unmatchedAsyncEnds, &ImportStats::unclosedAsyncBegins,
    &ImportStats::counterWithoutArgs, &ImportStats::nonNumericCounterValues,
    &ImportStats::counterValuesOutOfRange, &ImportStats::flowEndsWithoutStart,
    &ImportStats::flowStartsWithoutEnd, &ImportStats::badIds, &ImportStats::badNames,
    &ImportStats::badArgs };

void putOptional(ByteWriter& out, const std::optional<std::int64_t>& v)
{
    out.u8(v ? 1 : 0);
    if (v)
        out.svarint(*v);
}

std::optional<std::int64_t> takeOptional(ByteReader& in)
{
    if (in.u8() == 0)
        return std::nullopt;
    return in.svarint();
}

/// The converter creates a track (a thread's, or its process's) for this event: the
/// phases and checks of MainPass::event up to its first addTrack.
bool createsTrack(const ChromeEventFields& e, Phase phase, std::vector<JsonField>& fields)
{
    switch (phase) {
    case Phase::Complete:
    case Phase::Begin:
    case Phase::Instant:
    case Phase::FlowStart:
    case Phase::FlowStep:
    case Phase::FlowEnd:
    case Phase::AsyncBegin:
    case Phase::AsyncInstant:
        break;
    case Phase::Counter: {
        // A counter track comes with its first numeric value.
        if (e.args.empty() || e.args.front() != '{')
            return false;
        scanJsonObject(e.args, fields);
        return std::any_of(fields.begin(), fields.end(), [](const JsonField& f) {
            double value = 0;
            const char* last = f.value.data() + f.value.size();
            const auto [ptr, ec] = std::from_chars(f.value.data(), last, value);
            return !f.value.empty() && ec == std::errc() && ptr == last;
        });
    }
    default:
        return false;  // E and e end what a B or b opened; M and unknown phases make none
    }
    if (phase == Phase::Complete) {
        const MicrosValue dur = readMicros(e.dur);
        if (dur.status == MicrosStatus::NotNumber || dur.status == MicrosStatus::OutOfRange)
            return false;
    }
    return true;
}

/// What pass 1 of a part learns besides the layout: who should import which pid. Cheap
/// per event: a lookup of the pid (the last one remembered), of the thread when the
/// event makes a track, and a hash for a flow.
struct RoutingFacts
{
    StringMap<std::uint32_t> pidIndex;
    std::vector<std::string> pids;
    std::vector<std::int64_t> weights;  ///< [pid]: bytes of its events
    StringMap<std::uint64_t> firstUse;  ///< first track-creating event, by "pid\x1ftid"
    std::vector<std::pair<std::uint64_t, std::uint32_t>> flows;  ///< (hash of cat+id, pid)
    std::string lastPid;
    std::uint32_t last = 0;

    std::uint32_t pid(std::string_view text)
    {
        if (!pids.empty() && text == lastPid)
            return last;
        auto it = pidIndex.find(text);
        if (it == pidIndex.end()) {
            it = pidIndex.emplace(std::string(text), static_cast<std::uint32_t>(pids.size())).first;
            pids.emplace_back(text);
            weights.push_back(0);
        }
        lastPid.assign(text);
        last = it->second;
        return last;
    }

    void note(const ChromeEventReader& reader, std::vector<JsonField>& fields, std::string& s1,
        std::string& s2, std::string& key)
    {
        const ChromeEventFields& e = reader.event();
        const std::string_view pidText = idText(e.pid, s1);
        const std::uint32_t p = pid(pidText);
        weights[p] += static_cast<std::int64_t>(reader.position() - reader.eventOffset());
        const auto ph = e.string(e.ph, s2);
        const Phase phase = ph ? classifyPhase(*ph) : Phase::Unknown;
        if (phase == Phase::Metadata || phase == Phase::Unknown || !readMicros(e.ts).usable())
            return;
        if (createsTrack(e, phase, fields)) {
            key.assign(pidText);
            key.push_back('\x1f');
            key.append(idText(e.tid, s2));
            if (firstUse.find(key) == firstUse.end())
                firstUse.emplace(key, reader.eventOffset());
        }
        if (phase == Phase::FlowStart || phase == Phase::FlowStep || phase == Phase::FlowEnd) {
            // The converter's key of a flow: cat, then the id (or id2).
            key.assign(e.string(e.cat, s2).value_or(""));
            key.push_back('\x1f');
            key.append(idText(e.id.empty() ? e.id2 : e.id, s2));
            // A collision only joins more pids: still correct, less balanced.
            flows.emplace_back(std::hash<std::string> {}(key), p);
        }
    }
};

void encodeLayout(ByteWriter& out, const ChromeLayout& layout)
{
    out.varint(layout.processes.size());
    for (const ProcessInfo& p : layout.processes) {
        out.string(p.pid);
        out.string(p.metaName);
        out.u8(static_cast<std::uint8_t>(
            p.metaNameSet | p.cpuWork << 1 | p.gpuWork << 2 | p.hasEvents << 3));
        out.varint(p.labels.size());
        for (const std::string& label : p.labels)
            out.string(label);
        putOptional(out, p.sortIndex);
        putOptional(out, p.device);
    }
    out.varint(layout.threads.size());
    for (const ThreadInfo& t : layout.threads) {
        out.varint(t.process);
        out.string(t.tid);
        out.string(t.metaName);
        out.u8(static_cast<std::uint8_t>(t.metaNameSet | t.cpuWork << 1 | t.gpuWork << 2));
        putOptional(out, t.sortIndex);
        out.svarint(t.maxEndNs);
        out.varint(t.slices);
        out.varint(t.sliceArgBytes);
        out.varint(t.nextSliceFlowNs.size());
        for (const TimeNs ns : t.nextSliceFlowNs)
            out.svarint(ns);
    }
    out.svarint(layout.minTsNs);
    out.svarint(layout.maxEndNs);
    out.varint(layout.counterKeys.size());
    for (const auto& [series, keys] : layout.counterKeys) {
        out.string(series);
        out.varint(keys.size());
        for (const std::string& key : keys)
            out.string(key);
    }
    out.varint(layout.topLevel.size());
    for (const auto& [key, value] : layout.topLevel) {
        out.string(key);
        out.string(value);
    }
}

ChromeLayout decodeLayout(ByteReader& in)
{
    ChromeLayout layout;
    const std::uint64_t processes = in.varint();
    for (std::uint64_t i = 0; i < processes; ++i) {
        ProcessInfo& p = layout.processes[layout.process(in.string())];
        p.metaName = std::string(in.string());
        const std::uint8_t flags = in.u8();
        p.metaNameSet = flags & 1;
        p.cpuWork = flags & 2;
        p.gpuWork = flags & 4;
        p.hasEvents = flags & 8;
        for (std::uint64_t n = in.varint(); n > 0; --n)
            p.labels.emplace_back(in.string());
        p.sortIndex = takeOptional(in);
        p.device = takeOptional(in);
    }
    const std::uint64_t threads = in.varint();
    for (std::uint64_t i = 0; i < threads; ++i) {
        const std::string pid = layout.processes.at(in.varint()).pid;
        ThreadInfo& t = layout.threads[layout.thread(pid, in.string())];
        t.metaName = std::string(in.string());
        const std::uint8_t flags = in.u8();
        t.metaNameSet = flags & 1;
        t.cpuWork = flags & 2;
        t.gpuWork = flags & 4;
        t.sortIndex = takeOptional(in);
        t.maxEndNs = in.svarint();
        t.slices = in.varint();
        t.sliceArgBytes = in.varint();
        for (std::uint64_t n = in.varint(); n > 0; --n)
            t.nextSliceFlowNs.push_back(in.svarint());
    }
    layout.minTsNs = in.svarint();
    layout.maxEndNs = in.svarint();
    for (std::uint64_t n = in.varint(); n > 0; --n) {
        std::vector<std::string>& keys = layout.counterKeys[std::string(in.string())];
        for (std::uint64_t k = in.varint(); k > 0; --k)
            keys.emplace_back(in.string());
    }
    for (std::uint64_t n = in.varint(); n > 0; --n) {
        std::string key(in.string());
        layout.topLevel.emplace_back(std::move(key), std::string(in.string()));
    }
    return layout;
}

}  // namespace

bool chromeBareArray(const std::filesystem::path& path)
{
    const std::string head = readFileHead(path, 4096);
    const std::size_t first = head.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    return first != std::string::npos && head[first] == '[';
}

ChromeChunkScan scanChromeChunk(const std::filesystem::path& path, std::uint64_t from,
    std::uint64_t to, bool bareArray, int threads,
    const std::function<void(std::uint64_t)>& progress)
{
    GzipReader input(path, true, from);
    ChromeEventReader reader(input, path.string(), true);
    if (from > 0)
        reader.startInArray(from, bareArray, 0);
    reader.stopAt(to);
    reader.setScanThreads(threads);
    ChromeChunkScan scan;
    scan.firstEvent = scan.lastEventEnd = from;
    RoutingFacts facts;
    std::vector<JsonField> fields;
    std::string s1, s2, key;
    const ChromeLayout layout = preScan(reader, [&] {
        facts.note(reader, fields, s1, s2, key);
        if (scan.events == 0)
            scan.firstEvent = reader.eventOffset();
        scan.lastEventEnd = reader.position();
        if (++scan.events % 1024 == 0 && progress)
            progress(reader.position() - from);
    });
    scan.stopped = reader.stopped();
    if (scan.stopped) {
        scan.stopOffset = reader.position();
    } else {
        scan.endPosition = reader.position();
        scan.truncation = reader.truncation();
        scan.endNote = reader.endNote();
    }
    ByteWriter out;
    encodeLayout(out, layout);
    out.varint(facts.pids.size());
    for (std::size_t p = 0; p < facts.pids.size(); ++p) {
        out.string(facts.pids[p]);
        out.svarint(facts.weights[p]);
    }
    out.varint(facts.firstUse.size());
    for (const auto& [thread, offset] : facts.firstUse) {
        out.string(thread);
        out.varint(offset);
    }
    std::sort(facts.flows.begin(), facts.flows.end());
    facts.flows.erase(std::unique(facts.flows.begin(), facts.flows.end()), facts.flows.end());
    out.varint(facts.flows.size());
    for (const auto& [hash, pid] : facts.flows) {
        out.varint(hash);
        out.varint(pid);
    }
    scan.facts = std::move(out.bytes());
    return scan;
}

ChromeSplit mergeChromeChunks(const std::vector<std::string>& parts)
{
    auto layout = std::make_shared<ChromeLayout>();
    RoutingFacts all;  // pids and weights of every part
    StringMap<std::uint64_t> firstUse;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> flows;
    std::vector<std::uint32_t> pids;  // [the part's pid] -> all's
    for (const std::string& part : parts) {
        ByteReader in(part);
        layout->append(decodeLayout(in));
        pids.clear();
        for (std::uint64_t n = in.varint(); n > 0; --n) {
            pids.push_back(all.pid(in.string()));
            all.weights[pids.back()] += in.svarint();
        }
        for (std::uint64_t n = in.varint(); n > 0; --n) {
            std::string thread(in.string());
            firstUse.try_emplace(std::move(thread), in.varint());  // the earliest part's
        }
        for (std::uint64_t n = in.varint(); n > 0; --n) {
            const std::uint64_t hash = in.varint();
            flows.emplace_back(hash, pids.at(in.varint()));
        }
    }
    std::sort(flows.begin(), flows.end());

    // The roots as the import makes them (after finalize: a pid's host threads may get a
    // process of their own), ordered by their first track-creating event.
    ChromeLayout final = *layout;
    final.finalize(std::nullopt);
    std::vector<std::uint64_t> rootFirst(final.processes.size(), UINT64_MAX);
    std::string key;
    for (const ThreadInfo& t : final.threads) {
        key.assign(final.processes[t.process].pid);
        key.push_back('\x1f');
        key.append(t.tid);
        if (const auto it = firstUse.find(key); it != firstUse.end())
            rootFirst[t.process] = std::min(rootFirst[t.process], it->second);
    }
    std::vector<std::uint32_t> roots;
    for (std::uint32_t p = 0; p < final.processes.size(); ++p) {
        if (rootFirst[p] != UINT64_MAX)
            roots.push_back(p);
    }
    std::sort(roots.begin(), roots.end(),
        [&](std::uint32_t a, std::uint32_t b) { return rootFirst[a] < rootFirst[b]; });

    ChromeSplit split;
    split.prescan.layout = layout;
    if (layout->minTsNs != kNoTime)
        split.prescan.originNs = layout->baseTimeNs.value_or(0) + layout->minTsNs;
    constexpr std::size_t kNoRoot = SIZE_MAX;
    // [pid of all]: its roots' first and last
    std::vector<std::pair<std::size_t, std::size_t>> span(all.pids.size(), { kNoRoot, 0 });
    for (std::size_t i = 0; i < roots.size(); ++i) {
        const std::string& pid = final.processes[roots[i]].pid;
        const auto known = all.pidIndex.find(pid);
        const bool first = known == all.pidIndex.end() || span[known->second].first == kNoRoot;
        if (known != all.pidIndex.end()) {
            auto& range = span[known->second];
            range.first = std::min(range.first, i);
            range.second = i;
        }
        split.rootPids.push_back(pid);
        split.weights.push_back(
            first && known != all.pidIndex.end() ? all.weights[known->second] : 0);
    }
    // No cut inside a pid's roots, nor between the roots of two ends of a flow.
    std::vector<std::int64_t> open(roots.size() + 1, 0);  // +1 at the first, -1 past the last
    const auto join = [&](std::size_t a, std::size_t b) {
        ++open[a + 1];
        --open[b + 1];
    };
    for (const auto& [first, last] : span) {
        if (first != kNoRoot)
            join(first, last);
    }
    for (std::size_t at = 0; at < flows.size();) {  // runs of one hash
        std::size_t lo = kNoRoot, hi = 0;
        const std::uint64_t hash = flows[at].first;
        for (; at < flows.size() && flows[at].first == hash; ++at) {
            const auto& range = span[flows[at].second];
            if (range.first != kNoRoot) {
                lo = std::min(lo, range.first);
                hi = std::max(hi, range.second);
            }
        }
        if (lo != kNoRoot && lo < hi)
            join(lo, hi);
    }
    split.cuttable.assign(roots.size() + 1, true);
    std::int64_t inside = 0;
    for (std::size_t c = 1; c < roots.size(); ++c) {
        inside += open[c];
        split.cuttable[c] = inside == 0;
    }
    return split;
}

void forEachChromeEvent(std::string_view text, std::uint64_t base, const std::string& file,
    const std::function<void(std::uint64_t, std::string_view, std::string_view)>& fn)
{
    std::vector<JsonField> fields;
    ChromeEventFields event;
    std::string scratch;
    std::size_t at = 0;
    for (;;) {
        at = text.find_first_not_of(" \t\r\n,", at);
        if (at == std::string_view::npos)
            return;
        std::size_t n = 0;
        try {
            n = text[at] == '{' ? scanJsonObject(text.substr(at), fields) : 0;
        } catch (const JsonSyntaxError& e) {
            throw InputError::atByte(file, base + at + e.offset, e.what);
        }
        if (n == 0)
            throw InputError::atByte(file, base + at, "expected an event object");
        classifyChromeFields(fields, event);
        fn(base + at, text.substr(at, n), idText(event.pid, scratch));
        at += n;
    }
}

namespace chrome {

TimeNs settleLayout(
    ChromeLayout& layout, TraceSink& sink, const ChromeImportOptions& options, ImportStats& stats)
{
    const std::optional<std::int64_t> rank =
        options.rank >= 0 ? std::optional<std::int64_t>(options.rank) : layout.rank;
    layout.finalize(rank);

    const TimeNs base = layout.baseTimeNs.value_or(0);
    const TimeNs minTs = layout.minTsNs == kNoTime ? 0 : layout.minTsNs;
    const TimeNs originAbs = options.originNs ? *options.originNs : base + minTs;
    stats.originNs = originAbs;
    stats.endNs = layout.maxEndNs == kNoTime ? 0 : layout.maxEndNs + base - originAbs;
    sink.setMeta("origin_ns", std::to_string(originAbs));
    if (rank)
        sink.setMeta("rank", std::to_string(*rank));
    if (layout.worldSize)
        sink.setMeta("world_size", std::to_string(*layout.worldSize));
    if (!layout.deviceProperties.empty())
        sink.setMeta("device_properties", layout.deviceProperties);
    return originAbs - base;
}

}  // namespace chrome

struct ChromeEventImporter::State
{
    ChromeLayout layout;
    ImportStats stats;
    std::string fileName;
    std::unique_ptr<ChromeJsonConverter> converter;
    std::vector<JsonField> fields;
    ChromeEventFields event;
};

ChromeEventImporter::ChromeEventImporter(const ChromePrescan& prescan, TraceSink& sink,
    const ChromeImportOptions& options, std::string fileName)
    : m_state(std::make_unique<State>())
{
    State& s = *m_state;
    s.fileName = std::move(fileName);
    s.layout = *prescan.layout;  // a copy: pass 2 writes into its own
    const TimeNs offsetNs = settleLayout(s.layout, sink, options, s.stats);
    s.converter = std::make_unique<ChromeJsonConverter>(s.layout, sink, s.stats, offsetNs);
}

ChromeEventImporter::~ChromeEventImporter() = default;

void ChromeEventImporter::event(std::string_view text, std::uint64_t offset, std::uint64_t index)
{
    State& s = *m_state;
    try {
        if (scanJsonObject(text, s.fields) != text.size())
            throw InputError::atByte(s.fileName, offset, "expected one event");
    } catch (const JsonSyntaxError& e) {
        throw InputError::atByte(s.fileName, offset + e.offset, e.what);
    }
    classifyChromeFields(s.fields, s.event);
    s.event.notePlain(text);
    s.converter->event(s.event, offset, index);
}

void ChromeEventImporter::event(const ChromeEventReader& reader)
{
    m_state->converter->event(reader);
}

ImportStats ChromeEventImporter::finish()
{
    m_state->converter->finish();
    return m_state->stats;
}

std::string encodeChromeStats(const ImportStats& stats)
{
    ByteWriter out;
    for (const auto field : kCounts)
        out.varint(stats.*field);
    for (const auto field : kAnomalies) {
        out.varint((stats.*field).count);
        out.varint((stats.*field).first);
    }
    out.varint(stats.eventsByPhase.size());
    for (const auto& [ph, n] : stats.eventsByPhase) {
        out.string(ph);
        out.varint(n);
    }
    out.svarint(stats.originNs);
    out.svarint(stats.endNs);
    return std::move(out.bytes());
}

ImportStats decodeChromeStats(std::string_view bytes)
{
    ByteReader in(bytes);
    ImportStats stats;
    for (const auto field : kCounts)
        stats.*field = in.varint();
    for (const auto field : kAnomalies) {
        (stats.*field).count = in.varint();
        (stats.*field).first = in.varint();
    }
    for (std::uint64_t n = in.varint(); n > 0; --n) {
        std::string ph(in.string());
        stats.eventsByPhase[ph] = in.varint();
    }
    stats.originNs = in.svarint();
    stats.endNs = in.svarint();
    return stats;
}

void addChromeStats(ImportStats& into, const ImportStats& part)
{
    for (const auto field : kCounts)
        into.*field += part.*field;
    for (const auto field : kAnomalies) {
        if ((part.*field).count > 0)
            (into.*field).add((part.*field).first, (part.*field).count);
    }
    for (const auto& [ph, n] : part.eventsByPhase)
        into.eventsByPhase[ph] += n;
}

void finishChromeStats(ImportStats& stats, const std::string& truncation,
    const std::string& gzipTruncation, const std::string& endNote)
{
    describeUnknownPhases(stats);
    if (!truncation.empty()) {
        stats.truncated = true;
        stats.warnings.push_back("truncated: " + truncation + "; read "
            + std::to_string(stats.totalEvents) + " events up to the last whole one");
    }
    if (!gzipTruncation.empty()) {
        stats.truncated = true;
        stats.warnings.push_back("truncated: " + gzipTruncation);
    }
    if (!endNote.empty())
        stats.warnings.push_back(endNote);
    for (std::string& line : anomalyWarnings(stats.rows(), "byte"))
        stats.warnings.push_back(std::move(line));
}

}  // namespace strata::storage
