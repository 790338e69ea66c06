#include "storage/export/paraver_writer.h"

#include "storage/export/paraver_writer_p.h"

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace strata::storage {

using model::ResourceKind;
using model::Role;
using model::StringId;
using model::TrackId;
using namespace paraver_writer_detail;


ParaverWriter::ParaverWriter(std::filesystem::path prvPath, ParaverWriterOptions options)
    : m_prvPath(std::move(prvPath))
    , m_options(options)
{
    m_pcfPath = std::filesystem::path(m_prvPath).replace_extension(".pcf");
    m_rowPath = std::filesystem::path(m_prvPath).replace_extension(".row");
    m_bodyPath = withSuffix(m_prvPath, ".body.tmp");
    if (!(m_options.counterScale > 0) || !std::isfinite(m_options.counterScale))
        throw std::invalid_argument("ParaverWriter: counterScale must be positive and finite");
    m_body = std::fopen(m_bodyPath.string().c_str(), "wb");
    if (!m_body)
        throwIoError(m_bodyPath.string(), "cannot create file", errno);
    m_buffer.reserve(kFlushBytes + 4096);
}

ParaverWriter::~ParaverWriter()
{
    if (!m_finished)
        removeTemporaries();
}

void ParaverWriter::removeTemporaries() noexcept
{
    if (m_body) {
        std::fclose(m_body);
        m_body = nullptr;
    }
    std::error_code ignored;
    std::filesystem::remove(m_bodyPath, ignored);
    std::filesystem::remove(withSuffix(m_prvPath, ".tmp"), ignored);
    std::filesystem::remove(withSuffix(m_pcfPath, ".tmp"), ignored);
    std::filesystem::remove(withSuffix(m_rowPath, ".tmp"), ignored);
}

const ParaverWriter::TrackState& ParaverWriter::trackAt(TrackId id) const
{
    if (id >= m_tracks.size())
        throw std::out_of_range("ParaverWriter: unknown track " + std::to_string(id));
    return m_tracks[id];
}

void ParaverWriter::ensureOpen() const
{
    if (m_finished)
        throw std::logic_error("ParaverWriter: used after finish()");
}

TrackId ParaverWriter::addTrack(
    TrackId parent, ResourceKind kind, std::string name, std::int64_t, std::string)
{
    ensureOpen();
    if (parent != model::kNoTrack)
        trackAt(parent);
    const auto id = TrackId(m_tracks.size());
    TrackState state;
    state.parent = parent;
    state.kind = kind;
    state.name = label(name);
    m_tracks.push_back(std::move(state));
    if (kind == ResourceKind::Process || kind == ResourceKind::Gpu) {
        Task task;
        task.name = m_tracks[id].name;
        for (TrackId up = parent; up != model::kNoTrack; up = m_tracks[up].parent) {
            if (m_tracks[up].kind == ResourceKind::Node) {
                task.node = up;
                break;
            }
        }
        m_tracks[id].ownTask = std::int32_t(m_tasks.size());
        m_tasks.push_back(std::move(task));
    } else if (kind == ResourceKind::Thread || kind == ResourceKind::Stream) {
        const std::int32_t task = taskFor(parent == model::kNoTrack ? id : parent);
        m_tracks[id].ownThread = newThread(std::uint32_t(task), m_tracks[id].name);
        m_tracks[id].eventThread = m_tracks[id].ownThread;
    }
    return id;
}

std::int32_t ParaverWriter::taskFor(TrackId id)
{
    // The nearest Process/Gpu at or above `id`.
    for (TrackId up = id; up != model::kNoTrack; up = m_tracks[up].parent) {
        if (m_tracks[up].ownTask >= 0)
            return m_tracks[up].ownTask;
    }
    // None: a task for the topmost ancestor that is not a Node (or `id` itself when it
    // hangs directly under a Node or is a Node).
    TrackId owner = id;
    while (m_tracks[owner].kind != ResourceKind::Node && m_tracks[owner].parent != model::kNoTrack
        && m_tracks[m_tracks[owner].parent].kind != ResourceKind::Node)
        owner = m_tracks[owner].parent;
    auto it = m_fallbackTasks.find(owner);
    if (it != m_fallbackTasks.end())
        return std::int32_t(it->second);
    Task task;
    task.name = m_tracks[owner].name;
    for (TrackId up = owner; up != model::kNoTrack; up = m_tracks[up].parent) {
        if (m_tracks[up].kind == ResourceKind::Node) {
            task.node = up;
            break;
        }
    }
    const auto index = std::uint32_t(m_tasks.size());
    m_tasks.push_back(std::move(task));
    m_fallbackTasks.emplace(owner, index);
    return std::int32_t(index);
}

std::int32_t ParaverWriter::newThread(std::uint32_t task, std::string name)
{
    const auto index = std::uint32_t(m_threads.size());
    Thread thread;
    thread.task = task;
    thread.local = std::uint32_t(m_tasks[task].threads.size() + 1);
    thread.name = std::move(name);
    // CPU = the thread's global 1-based number; application 1.
    appendInt(thread.prefix, std::int64_t(index) + 1);
    thread.prefix += ":1:";
    appendInt(thread.prefix, std::int64_t(task) + 1);
    thread.prefix += ':';
    appendInt(thread.prefix, thread.local);
    thread.prefix += ':';
    m_tasks[task].threads.push_back(index);
    m_threads.push_back(std::move(thread));
    return std::int32_t(index);
}

const ParaverWriter::Thread& ParaverWriter::threadFor(TrackId id)
{
    const TrackState& state = trackAt(id);
    if (state.eventThread >= 0)
        return m_threads[std::size_t(state.eventThread)];
    std::int32_t thread = -1;
    for (TrackId up = id; up != model::kNoTrack && thread < 0; up = m_tracks[up].parent)
        thread = m_tracks[up].ownThread;
    if (thread < 0) {
        const std::int32_t task = taskFor(id);
        Task& t = m_tasks[std::size_t(task)];
        if (t.extraThread < 0) {
            const std::int32_t made = newThread(std::uint32_t(task), t.name);
            m_tasks[std::size_t(task)].extraThread = made;
        }
        thread = m_tasks[std::size_t(task)].extraThread;
    }
    m_tracks[id].eventThread = thread;
    return m_threads[std::size_t(thread)];
}

void ParaverWriter::setMeta(std::string key, std::string value)
{
    ensureOpen();
    if (key == "paraver_date" && !value.empty())
        m_date = label(value);
}

ParaverWriter::EventType& ParaverWriter::categoryType(std::vector<EventType>& types,
    std::unordered_map<StringId, std::uint32_t>& index, StringId category, std::int64_t base,
    std::int64_t& type)
{
    auto it = index.find(category);
    if (it == index.end()) {
        if (types.size() >= kMaxTypesPerRange)
            throw std::runtime_error("ParaverWriter: more than 1000000 event categories");
        EventType entry;
        std::string text = category == model::kEmptyString
            ? std::string(base == kInstantTypeBase ? "Instants" : "Intervals")
            : label(m_strings.text(category));
        // Labels starting with these make the importer read a type as annotations.
        if (base == kIntervalTypeBase
            && (text.rfind("Sampled", 0) == 0 || text.rfind("Caller", 0) == 0))
            text = "Category " + text;
        entry.label = std::move(text);
        it = index.emplace(category, std::uint32_t(types.size())).first;
        types.push_back(std::move(entry));
    }
    type = base + std::int64_t(it->second);
    return types[it->second];
}

std::int64_t ParaverWriter::valueFor(EventType& type, StringId name)
{
    auto it = type.values.find(name);
    if (it != type.values.end())
        return it->second;
    type.names.push_back(name);
    const auto value = std::int64_t(type.names.size());
    type.values.emplace(name, value);
    return value;
}

std::int64_t ParaverWriter::time(model::TimeNs t)
{
    if (t < 0) {
        ++m_clampedTimes;
        return 0;
    }
    if (t > m_endNs)
        m_endNs = t;
    return t;
}

void ParaverWriter::eventLine(
    const Thread& thread, std::int64_t t, std::int64_t type, std::int64_t value)
{
    m_buffer += "2:";
    m_buffer += thread.prefix;
    appendInt(m_buffer, t);
    m_buffer += ':';
    appendInt(m_buffer, type);
    m_buffer += ':';
    appendInt(m_buffer, value);
    m_buffer += '\n';
    ++m_eventRecords;
}

void ParaverWriter::addInterval(TrackId track, const model::Interval& interval, std::string_view)
{
    ensureOpen();
    const Thread& thread = threadFor(track);
    const std::int64_t start = time(interval.startNs);
    const std::int64_t end = std::max(start, time(interval.endNs));
    if (interval.depth == 0) {
        const auto role = std::size_t(interval.role) < kRoleStates.size()
            ? std::size_t(interval.role)
            : std::size_t(Role::Useful);
        m_buffer += "1:";
        m_buffer += thread.prefix;
        appendInt(m_buffer, start);
        m_buffer += ':';
        appendInt(m_buffer, end);
        m_buffer += ':';
        appendInt(m_buffer, kRoleStates[role].value);
        m_buffer += '\n';
        ++m_stateRecords;
    }
    std::int64_t type = 0;
    EventType& entry = categoryType(
        m_intervalTypes, m_intervalTypeIndex, interval.category, kIntervalTypeBase, type);
    const std::int64_t value = valueFor(entry, interval.name);
    eventLine(thread, start, type, value);
    eventLine(thread, end, type, 0);
    flushIfFull();
}

void ParaverWriter::addInstant(TrackId track, const model::Instant& instant, std::string_view)
{
    ensureOpen();
    const Thread& thread = threadFor(track);
    std::int64_t type = 0;
    EventType& entry =
        categoryType(m_instantTypes, m_instantTypeIndex, instant.category, kInstantTypeBase, type);
    eventLine(thread, time(instant.timeNs), type, valueFor(entry, instant.name));
    flushIfFull();
}

void ParaverWriter::addCounterSample(TrackId track, const model::CounterSample& sample)
{
    ensureOpen();
    const Thread& thread = threadFor(track);
    const double scaled = sample.value * m_options.counterScale;
    if (!std::isfinite(scaled) || std::fabs(scaled) >= 9.2e18) {
        ++m_skippedCounterValues;
        return;
    }
    TrackState& state = m_tracks[track];
    if (state.counterType < 0) {
        std::string text = state.name;
        if (m_options.counterScale != 1.0)
            text += " (x" + scaleText(m_options.counterScale) + ")";
        const auto threadIndex = std::uint32_t(&thread - m_threads.data());
        std::vector<std::int64_t>& candidates = m_counterTypesByName[text];
        for (std::int64_t type : candidates) {
            if (!m_counterClaims.count({ type, threadIndex })) {
                state.counterType = type;
                break;
            }
        }
        if (state.counterType < 0) {
            if (m_counterLabels.size() >= kMaxTypesPerRange)
                throw std::runtime_error("ParaverWriter: more than 1000000 counter types");
            state.counterType = kCounterTypeBase + std::int64_t(m_counterLabels.size());
            m_counterLabels.push_back(text);
            candidates.push_back(state.counterType);
        }
        m_counterClaims.emplace(std::pair { state.counterType, threadIndex }, track);
    }
    eventLine(thread, time(sample.timeNs), state.counterType, std::llround(scaled));
    flushIfFull();
}

void ParaverWriter::addFlow(TrackId fromTrack, const model::Flow& flow)
{
    ensureOpen();
    // Locate the target first: it may create a thread, which must not move `from`.
    const std::uint32_t to = std::uint32_t(&threadFor(flow.toTrack) - m_threads.data());
    const Thread& from = threadFor(fromTrack);
    const std::int64_t send = time(flow.fromNs);
    const std::int64_t recv = time(flow.toNs);
    m_buffer += "3:";
    m_buffer += from.prefix;
    appendInt(m_buffer, send);
    m_buffer += ':';
    appendInt(m_buffer, send);
    m_buffer += ':';
    m_buffer += m_threads[to].prefix;
    appendInt(m_buffer, recv);
    m_buffer += ':';
    appendInt(m_buffer, recv);
    m_buffer += ':';
    appendInt(m_buffer, std::int64_t(std::min<std::uint64_t>(flow.sizeBytes, INT64_MAX)));
    m_buffer += ':';
    appendInt(m_buffer, flow.tag);
    m_buffer += '\n';
    ++m_communicationRecords;
    flushIfFull();
}

model::StackId ParaverWriter::internStack(model::StackId parent, StringId frame)
{
    auto [it, added] = m_stacks.emplace(std::pair { parent, frame }, model::StackId(0));
    if (added)
        it->second = model::StackId(m_stacks.size());
    return it->second;
}

void ParaverWriter::addStackSample(TrackId track, const model::StackSample&)
{
    ensureOpen();
    trackAt(track);
    ++m_skippedSamples;
}

void ParaverWriter::flushIfFull()
{
    if (m_buffer.size() >= kFlushBytes)
        flush();
}

void ParaverWriter::flush()
{
    if (m_buffer.empty())
        return;
    if (std::fwrite(m_buffer.data(), 1, m_buffer.size(), m_body) != m_buffer.size())
        throwIoError(m_bodyPath.string(), "cannot write", errno);
    m_buffer.clear();
}

}  // namespace strata::storage
