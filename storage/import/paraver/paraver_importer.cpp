#include "storage/import/paraver/paraver_importer.h"

#include "storage/import/paraver/paraver_importer_p.h"
#include "storage/import/paraver/paraver_record_batches.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace strata::storage {

namespace paraver_detail {
void Importer::start()
{
    readSideFiles();
    m_stateCategory = m_sink.intern("state");
    m_messageName = m_sink.intern("message");
}

void Importer::feed(const char* begin, const char* end, std::uint64_t lineNumber)
{
    m_lineNumber = lineNumber;
    if (end > begin && end[-1] == '\r')
        --end;
    handleLine(begin, end);
}

void Importer::feedLast(
    const char* begin, const char* end, std::uint64_t lineNumber, bool compressedTruncated)
{
    // The last line has no newline: a record cut short, or just a missing newline.
    m_lineNumber = lineNumber;
    if (end > begin && end[-1] == '\r')
        --end;
    const std::string cut = recordsWarning(1, AnomalyEffect::Dropped,
        compressedTruncated ? "the compressed file ends early, inside this record"
                            : "the file ends inside this record",
        m_lineNumber);
    if (compressedTruncated || !m_headerSeen) {
        if (!m_headerSeen)
            handleLine(begin, end);  // a header alone: parse it (errors are real)
        else {
            m_stats.truncated = true;
            m_stats.warnings.push_back(cut);
        }
    } else {
        try {
            handleLine(begin, end);
        } catch (const InputError&) {
            m_stats.truncated = true;
            m_stats.warnings.push_back(cut);
        }
    }
}

ParaverImportStats Importer::run()
{
    start();
    RecordBatchReader reader(m_path, m_options.threads);
    const std::uint64_t total = reader.fileSizeBytes();
    bool truncated = false;
    for (bool last = false; !last;) {
        const RecordBatch& batch = reader.next();
        const std::size_t lines = batch.lines.size();
        for (std::size_t i = 0; i < lines; ++i) {
            const BatchLine& line = batch.lines[i];
            if (line.kind != LineKind::Text && m_headerSeen) {
                ++m_lineNumber;
                handleRecord(line, batch.numbers.data() + line.firstNumber);
            } else if (batch.unterminatedLast && i + 1 == lines) {
                feedLast(line.begin, line.end, m_lineNumber + 1, batch.truncated);
            } else {
                feed(line.begin, line.end, m_lineNumber + 1);
            }
        }
        if (batch.error)
            std::rethrow_exception(batch.error);
        if (m_progress && !m_progress(batch.fileBytesRead, total))
            throw Cancelled();
        last = batch.last;
        truncated = batch.truncated;
        m_stats.bytes = batch.bytesRead;
    }
    if (truncated && !m_stats.truncated) {
        m_stats.truncated = true;
        m_stats.warnings.push_back("the compressed file ends early; records up to line "
            + std::to_string(m_lineNumber) + " were read");
    }
    if (!m_headerSeen)
        throw InputError::atLine(m_file, 1, "expected a Paraver header '#Paraver (DATE):...'");
    m_stats.lines = m_lineNumber;
    closeOpenEvents(std::max(m_stats.header.endNs, m_maxTimeNs));
    addAnomalyWarnings(m_stats);
    return std::move(m_stats);
}

void Importer::handleRecord(const BatchLine& line, const std::int64_t* numbers)
{
    switch (line.kind) {
    case LineKind::State:
        ++m_stats.states;
        stateRecord(numbers);
        return;
    case LineKind::Event: {
        ++m_stats.eventLines;
        const std::uint32_t thread = threadIndex(numbers[1], numbers[2], numbers[3]);
        const TimeNs time = toNs(numbers[4], "event time");
        for (std::uint32_t k = 0; k < line.pairs; ++k) {
            const std::int64_t value = numbers[6 + 2 * k];
            ++m_stats.eventPairs;
            addEventPair(thread, time, numbers[5 + 2 * k], double(value), value, true);
        }
        return;
    }
    case LineKind::Communication:
        ++m_stats.communications;
        communicationRecord(numbers);
        return;
    case LineKind::Text:
        break;
    }
}

void Importer::handleLine(const char* begin, const char* end)
{
    if (!m_headerSeen) {
        std::string_view line(begin, std::size_t(end - begin));
        if (m_lineNumber == 1 && line == "new format")
            return;
        if (line.substr(0, 8) != "#Paraver")
            fail("expected a Paraver header '#Paraver (DATE):END_UNIT:NODES:NAPPL:...'");
        handleHeader(line);
        return;
    }
    if (begin == end) {
        ++m_stats.emptyLines;
        return;
    }
    const char c0 = *begin;
    if (begin + 1 < end && begin[1] == ':') {
        switch (c0) {
        case '1':
            ++m_stats.states;
            handleState(begin + 2, end);
            return;
        case '2':
            ++m_stats.eventLines;
            handleEvent(begin + 2, end);
            return;
        case '3':
            ++m_stats.communications;
            handleCommunication(begin + 2, end);
            return;
        case '4':
            ++m_stats.globalOps;
            return;
        case 'c':
        case 'C':
        case 'i':
        case 'I':
            ++m_stats.communicatorLines;
            return;
        default:
            break;
        }
    }
    if (c0 == '#') {
        ++m_stats.commentLines;
        return;
    }
    std::string_view shown(begin, std::min<std::size_t>(std::size_t(end - begin), 20));
    fail("expected a record '1:' (state), '2:' (event), '3:' (communication), '4:' or a "
         "communicator line 'c:', not '"
        + std::string(shown) + "'");
}

void Importer::badTime(std::int64_t t, const char* what) const
{
    fail(
        std::string("expected a non-negative ") + what + " within range, not " + std::to_string(t));
}

void Importer::handleState(const char* p, const char* end)
{
    static constexpr const char* kLayout =
        " of a state record 1:cpu:appl:task:thread:begin:end:state";
    static constexpr std::array<const char*, 7> kNames = { "cpu", "appl", "task", "thread", "begin",
        "end", "state" };
    const auto f = readFields(p, end, kNames, kLayout);
    if (p != end || end[-1] == ':')
        fail(std::string("expected 8 fields") + kLayout);
    stateRecord(f.data());
}

void Importer::stateRecord(const std::int64_t* f)
{
    const std::uint32_t thread = threadIndex(f[1], f[2], f[3]);
    if (f[5] < f[4])
        fail("expected end >= begin in a state record, not " + std::to_string(f[5]) + " < "
            + std::to_string(f[4]));
    const TimeNs begin = toNs(f[4], "begin time");
    const TimeNs stop = toNs(f[5], "end time");
    auto it = m_stateNames.find(f[6]);
    if (it == m_stateNames.end()) {
        std::string name;
        auto pcfName = m_pcf.states.find(f[6]);
        Role role = Role::Useful;
        if (pcfName != m_pcf.states.end()) {
            name = pcfName->second;
            role = paraverStateRole(name);
        } else {
            name = "state " + std::to_string(f[6]);
            if (m_pcf.states.empty())
                role = paraverStateRole(paraverDefaultStateName(f[6]));
        }
        it = m_stateNames.emplace(f[6], std::make_pair(m_sink.intern(name), role)).first;
    }
    model::Interval interval;
    interval.startNs = begin;
    interval.endNs = stop;
    interval.name = it->second.first;
    interval.category = m_stateCategory;
    interval.depth = 0;
    interval.role = it->second.second;
    interval.seq = m_threadSeq[thread]++;
    m_sink.addInterval(m_threadTracks[thread], interval);
    ++m_stats.intervals;
}

void Importer::handleEvent(const char* p, const char* end)
{
    static constexpr const char* kLayout =
        " of an event record 2:cpu:appl:task:thread:time:type:value[:type:value...]";
    static constexpr std::array<const char*, 5> kNames = { "cpu", "appl", "task", "thread",
        "time" };
    const auto f = readFields(p, end, kNames, kLayout);
    const std::uint32_t thread = threadIndex(f[1], f[2], f[3]);
    const TimeNs time = toNs(f[4], "event time");
    if (p == end)
        fail(std::string("expected at least one type:value pair") + kLayout);
    while (p != end) {
        std::int64_t type = 0;
        if (!nextInt(p, end, type) || type < 0 || type >= (std::int64_t(1) << 40))
            fail(std::string("expected an event type (a number) in a type:value pair") + kLayout);
        if (p == end || p[-1] != ':')
            fail("expected a value after event type " + std::to_string(type) + kLayout);
        const char* q = p;
        std::int64_t intValue = 0;
        double value = 0;
        bool isInt = nextInt(q, end, intValue);
        if (isInt) {
            p = q;
            value = double(intValue);
        } else if (!nextValue(p, end, value)) {
            fail("expected a value (a number) after event type " + std::to_string(type) + kLayout);
        }
        if (p == end && end[-1] == ':')
            fail(std::string("expected another type:value pair after the last ':'") + kLayout);
        ++m_stats.eventPairs;
        addEventPair(thread, time, type, value, intValue, isInt);
    }
}

TypeInfo& Importer::findType(std::int64_t type)
{
    auto it = m_types.find(type);
    if (it != m_types.end()) {
        m_lastTypeId = type;
        m_lastType = &it->second;
        return it->second;
    }
    TypeInfo info;
    auto decl = m_pcf.eventTypes.find(type);
    if (decl != m_pcf.eventTypes.end()) {
        info.declaration = &decl->second;
        info.label = decl->second.label;
    }
    if (info.label.empty())
        info.label = "type " + std::to_string(type);
    if (info.declaration && !info.declaration->values.empty()) {
        bool status = false;
        for (const auto& [value, name] : info.declaration->values)
            status = status || lowered(name).find("status") != std::string::npos;
        if (isToolStateType(type))
            info.kind = TypeKind::ToolState;
        else if (isAnnotationType(type, info.label))
            info.kind = TypeKind::Sample;
        else if (info.declaration->values.count(0) && !status)
            info.kind = TypeKind::Stack;
        else
            info.kind = TypeKind::Replace;
        info.role = info.label.find("MPI") != std::string::npos ? Role::Comm : Role::Useful;
        info.category = m_sink.intern(info.label);
    }
    info.slot = std::uint32_t(m_types.size());
    return m_types.emplace(type, std::move(info)).first->second;
}

StringId Importer::valueName(TypeInfo& info, std::int64_t value)
{
    auto it = info.valueNames.find(value);
    if (it != info.valueNames.end())
        return it->second;
    auto label = info.declaration->values.find(value);
    std::string name = label != info.declaration->values.end() && !label->second.empty()
        ? label->second
        : info.label + " " + std::to_string(value);
    return info.valueNames.emplace(value, m_sink.intern(name)).first->second;
}

void Importer::closeOpen(
    std::uint32_t thread, const TypeInfo& info, const OpenEvent& open, TimeNs end)
{
    model::Interval interval;
    interval.startNs = open.startNs;
    interval.endNs = end;
    if (end < open.startNs) {
        interval.endNs = open.startNs;
        if (m_stats.endsBeforeBegin++ == 0)
            m_stats.firstEndBeforeBeginLine = m_lineNumber;
    }
    interval.name = open.name;
    interval.category = info.category;
    interval.depth = model::kAutoDepth;
    interval.role = info.role;
    interval.seq = open.seq;
    m_sink.addInterval(m_threadTracks[thread], interval);
    ++m_stats.intervals;
    ++m_stats.eventIntervals;
}

void Importer::addEventPair(std::uint32_t thread, TimeNs time, std::int64_t type, double value,
    std::int64_t intValue, bool isInt)
{
    TypeInfo& info = typeInfo(type);
    if (info.kind == TypeKind::Counter || !isInt) {
        std::vector<TrackId>& tracks = m_counterTracks[thread];
        if (tracks.size() <= info.slot)
            tracks.resize(info.slot + 1, model::kNoTrack);
        if (tracks[info.slot] == model::kNoTrack) {
            tracks[info.slot] = m_sink.addTrack(
                m_threadTracks[thread], model::ResourceKind::Counter, info.label, type);
            ++m_stats.counterTracks;
        }
        m_sink.addCounterSample(tracks[info.slot], model::CounterSample { time, value });
        ++m_stats.counterSamples;
        return;
    }
    if (info.kind == TypeKind::Sample || info.kind == TypeKind::ToolState) {
        if (intValue != 0 || info.kind == TypeKind::ToolState) {
            m_sink.addInstant(m_threadTracks[thread],
                model::Instant { time, valueName(info, intValue), info.category });
            ++m_stats.instants;
        }
        return;
    }
    // Per thread, by the type's slot: a hash lookup per pair was a tenth of the import.
    std::vector<std::vector<OpenEvent>>& stacks = m_open[thread];
    if (stacks.size() <= info.slot)
        stacks.resize(info.slot + 1);
    std::vector<OpenEvent>& stack = stacks[info.slot];
    if (info.kind == TypeKind::Replace) {
        if (!stack.empty()) {
            closeOpen(thread, info, stack.back(), time);
            stack.pop_back();
        }
        if (intValue == 0)
            return;
    } else if (intValue == 0) {
        if (stack.empty()) {
            if (m_stats.unmatchedEnds++ == 0)
                m_stats.firstUnmatchedEndLine = m_lineNumber;
        } else {
            closeOpen(thread, info, stack.back(), time);
            stack.pop_back();
        }
        return;
    }
    if (stack.size() >= kMaxOpenDepth) {
        closeOpen(thread, info, stack.front(), time);
        stack.erase(stack.begin());
        if (m_stats.depthOverflows++ == 0)
            m_stats.firstDepthOverflowLine = m_lineNumber;
    }
    stack.push_back(
        OpenEvent { time, valueName(info, intValue), m_threadSeq[thread]++, m_lineNumber });
}

void Importer::closeOpenEvents(TimeNs endNs)
{
    m_stats.endNs = endNs;
    // By (thread, type).
    std::vector<std::int64_t> slotTypes(m_types.size());
    for (const auto& [type, info] : m_types)
        slotTypes[info.slot] = type;
    std::vector<std::uint64_t> keys;
    for (std::size_t thread = 0; thread < m_open.size(); ++thread) {
        for (std::size_t slot = 0; slot < m_open[thread].size(); ++slot) {
            if (!m_open[thread][slot].empty())
                keys.push_back((std::uint64_t(thread) << 40) | std::uint64_t(slotTypes[slot]));
        }
    }
    std::sort(keys.begin(), keys.end());
    for (std::uint64_t key : keys) {
        const auto thread = std::uint32_t(key >> 40);
        const auto type = std::int64_t(key & ((std::uint64_t(1) << 40) - 1));
        const TypeInfo& info = m_types.at(type);
        for (const OpenEvent& open : m_open[thread][info.slot]) {
            closeOpen(thread, info, open, m_stats.endNs);
            ++m_stats.unclosedBegins;
            if (m_stats.firstUnclosedLine == 0 || open.line < m_stats.firstUnclosedLine)
                m_stats.firstUnclosedLine = open.line;
        }
    }
    for (auto& stacks : m_open)
        stacks.clear();
}

void addAnomalyWarnings(ParaverImportStats& stats)
{
    if (stats.unmatchedEnds > 0) {
        stats.warnings.push_back(recordsWarning(stats.unmatchedEnds, AnomalyEffect::Dropped,
            "event ends (value 0) with no open event of their type on their thread",
            stats.firstUnmatchedEndLine));
    }
    if (stats.unclosedBegins > 0) {
        stats.warnings.push_back(recordsWarning(stats.unclosedBegins, AnomalyEffect::Altered,
            "events that never end, closed at the trace's end", stats.firstUnclosedLine));
    }
    if (stats.endsBeforeBegin > 0) {
        stats.warnings.push_back(recordsWarning(stats.endsBeforeBegin, AnomalyEffect::Altered,
            "events that end before they begin, made empty", stats.firstEndBeforeBeginLine));
    }
    if (stats.depthOverflows > 0) {
        stats.warnings.push_back(recordsWarning(stats.depthOverflows, AnomalyEffect::Altered,
            "events closed early, more than " + std::to_string(kMaxOpenDepth)
                + " open of one type on a thread",
            stats.firstDepthOverflowLine));
    }
}

void Importer::handleCommunication(const char* p, const char* end)
{
    static constexpr const char* kLayout = " of a communication record 3:cpu:appl:task:thread:"
                                           "lsend:psend:cpu:appl:task:thread:lrecv:precv:size:tag";
    static constexpr std::array<const char*, 14> kNames = { "cpu", "appl", "task", "thread",
        "logical send", "physical send", "cpu", "appl", "task", "thread", "logical receive",
        "physical receive", "size", "tag" };
    const auto f = readFields(p, end, kNames, kLayout);
    if (p != end || end[-1] == ':')
        fail(std::string("expected 15 fields") + kLayout);
    communicationRecord(f.data());
}

void Importer::communicationRecord(const std::int64_t* f)
{
    const std::uint32_t from = threadIndex(f[1], f[2], f[3]);
    const std::uint32_t to = threadIndex(f[7], f[8], f[9], false);
    toNs(f[4], "logical send time");
    toNs(f[10], "logical receive time");
    model::Flow flow;
    flow.fromNs = toNs(f[5], "physical send time");
    flow.toTrack = receiverTrack(to);
    flow.toNs = toNs(f[11], "physical receive time");
    flow.name = m_messageName;
    flow.sizeBytes = f[12] < 0 ? 0 : std::uint64_t(f[12]);
    flow.tag = f[13];
    m_sink.addFlow(m_threadTracks[from], flow);
    ++m_stats.flows;
}

}  // namespace paraver_detail

using namespace paraver_detail;

Role paraverStateRole(std::string_view name)
{
    const std::string s = lowered(name);
    if (s == "running")
        return Role::Useful;
    if (containsAny(s, { "idle", "not created", "outside", "tracing disabled" }))
        return Role::Idle;
    if (containsAny(
            s, { "sync", "wait", "block", "barrier", "probe", "locking", "memory ordering" }))
        return Role::Sync;
    if (containsAny(s,
            { "send", "recv", "receive", "comm", "group", "collective", "mpi", "one-sided",
                "remote memory", "atomic memory", "rtt" }))
        return Role::Comm;
    if (containsAny(s, { "memory transfer", "data copy" }))
        return Role::Transfer;
    // "I/O" and "Others" are not the application computing (BSC's modelfactors counts only
    // Running as useful); in Extrae traces they are mostly the tool itself: a buffer flush
    // is I/O, its initialization Others.
    if (containsAny(s,
            { "sched", "fork", "join", "overhead", "profiling", "on-line", "startup", "allocating",
                "freeing", "i/o", "others" }))
        return Role::Runtime;
    return Role::Useful;
}

ParaverRootMap::ParaverRootMap(const ParaverHeader& header)
    : m_roots(header.nodes)
    , m_tasks(header.applications)
{
    for (const auto& appl : header.applications) {
        for (const ParaverTask& task : appl)
            m_roots = std::max(m_roots, task.node);
    }
}

ParaverLineImporter::ParaverLineImporter(
    const std::filesystem::path& prv, TraceSink& sink, const ParaverImportOptions& options)
    : m_importer(std::make_unique<Importer>(prv, sink, options, m_noProgress))
{
    m_importer->start();
}

ParaverLineImporter::~ParaverLineImporter() = default;

void ParaverLineImporter::line(std::string_view text, std::uint64_t number)
{
    m_importer->feed(text.data(), text.data() + text.size(), number);
}

void ParaverLineImporter::lastLine(std::string_view text, std::uint64_t number)
{
    m_importer->feedLast(text.data(), text.data() + text.size(), number, false);
}

const ParaverHeader* ParaverLineImporter::header() const
{
    return m_importer->headerSeen() ? &m_importer->stats().header : nullptr;
}

model::TimeNs ParaverLineImporter::maxTimeNs() const
{
    return m_importer->maxTimeNs();
}

ParaverImportStats ParaverLineImporter::finish(model::TimeNs endNs)
{
    m_importer->closeOpenEvents(endNs);
    return std::move(m_importer->stats());
}

ParaverImportStats mergeParaverShares(
    const std::vector<ParaverImportStats>& shares, std::uint64_t lines, std::uint64_t bytes)
{
    ParaverImportStats total = shares.at(0);
    total.warnings.clear();
    forEachParaverCount(total, [](const char*, std::uint64_t& v) { v = 0; });
    const auto earliest = [](std::uint64_t& line, std::uint64_t other) {
        if (other > 0 && (line == 0 || other < line))
            line = other;
    };
    for (const ParaverImportStats& share : shares) {
        // Field by field in the same order on both: add each count of the share.
        std::vector<std::uint64_t> counts;
        forEachParaverCount(
            share, [&](const char*, const std::uint64_t& v) { counts.push_back(v); });
        std::size_t i = 0;
        forEachParaverCount(total, [&](const char*, std::uint64_t& v) { v += counts[i++]; });
        earliest(total.firstUnmatchedEndLine, share.firstUnmatchedEndLine);
        earliest(total.firstUnclosedLine, share.firstUnclosedLine);
        earliest(total.firstEndBeforeBeginLine, share.firstEndBeforeBeginLine);
        earliest(total.firstDepthOverflowLine, share.firstDepthOverflowLine);
        total.endNs = std::max(total.endNs, share.endNs);
        total.truncated = total.truncated || share.truncated;
        for (const std::string& w : share.warnings) {
            if (std::find(total.warnings.begin(), total.warnings.end(), w) == total.warnings.end())
                total.warnings.push_back(w);
        }
    }
    total.lines = lines;
    total.bytes = bytes;
    addAnomalyWarnings(total);
    return total;
}

ParaverImportStats importParaver(
    const std::filesystem::path& prv, TraceSink& sink, const ProgressFn& progress)
{
    return importParaver(prv, sink, ParaverImportOptions {}, progress);
}

ParaverImportStats importParaver(const std::filesystem::path& prv, TraceSink& sink,
    const ParaverImportOptions& options, const ProgressFn& progress)
{
    Importer importer(prv, sink, options, progress);
    return importer.run();
}

}  // namespace strata::storage
