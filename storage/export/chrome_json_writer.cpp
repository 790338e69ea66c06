#include "storage/export/chrome_json_writer.h"

#include "storage/export/writer_text.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <system_error>

namespace strata::storage {

using model::ResourceKind;
using model::TrackId;
using namespace writer_text;

namespace {

constexpr std::size_t kBufferBytes = std::size_t(1) << 20;
constexpr std::size_t kDeflateChunkBytes = std::size_t(256) << 10;

}  // namespace

// ---- Output: the bytes to a file, optionally through gzip ------------------------------

class ChromeJsonWriter::Output
{
public:
    Output(const std::filesystem::path& path, bool gzip, int level)
        : m_name(path.string())
        , m_gzip(gzip)
    {
        m_file = std::fopen(m_name.c_str(), "wb");
        if (!m_file)
            throwIoError(m_name, "cannot create file", errno);
        if (!m_gzip)
            return;
        // windowBits 15 + 16: a gzip wrapper. The explicit header pins mtime 0 and the OS
        // byte, so the same trace gives the same bytes on every machine.
        if (deflateInit2(
                &m_stream, std::clamp(level, 1, 9), Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)
            != Z_OK) {
            std::fclose(m_file);
            throwIoError(m_name, "cannot initialise zlib", 0);
        }
        m_streamOpen = true;
        m_header.time = 0;
        m_header.os = 3;  // Unix, as gzip(1) writes on Linux
        deflateSetHeader(&m_stream, &m_header);
        m_chunk.resize(kDeflateChunkBytes);
    }

    ~Output()
    {
        if (m_streamOpen)
            deflateEnd(&m_stream);
        if (m_file)
            std::fclose(m_file);
    }

    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;

    void write(std::string_view bytes)
    {
        if (!m_gzip) {
            writeFile(bytes.data(), bytes.size());
            return;
        }
        while (!bytes.empty()) {
            const std::size_t piece =
                std::min<std::size_t>(bytes.size(), std::numeric_limits<uInt>::max());
            m_stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
            m_stream.avail_in = static_cast<uInt>(piece);
            deflateAll(Z_NO_FLUSH);
            bytes.remove_prefix(piece);
        }
    }

    /// Finishes the gzip stream and closes the file, reporting any error.
    void close()
    {
        if (m_gzip) {
            m_stream.next_in = nullptr;
            m_stream.avail_in = 0;
            deflateAll(Z_FINISH);
            deflateEnd(&m_stream);
            m_streamOpen = false;
        }
        std::FILE* file = m_file;
        m_file = nullptr;
        const bool flushed = std::fflush(file) == 0 && std::ferror(file) == 0;
        const int flushError = errno;
        if (std::fclose(file) != 0 || !flushed)
            throwIoError(m_name, "cannot write file", flushed ? errno : flushError);
    }

private:
    void deflateAll(int flush)
    {
        for (;;) {
            m_stream.next_out = m_chunk.data();
            m_stream.avail_out = static_cast<uInt>(m_chunk.size());
            const int status = deflate(&m_stream, flush);
            if (status == Z_STREAM_ERROR)
                throwIoError(m_name, "zlib deflate failed", 0);
            writeFile(m_chunk.data(), m_chunk.size() - m_stream.avail_out);
            if (flush == Z_FINISH ? status == Z_STREAM_END : m_stream.avail_out != 0)
                return;
        }
    }

    void writeFile(const void* data, std::size_t size)
    {
        if (size != 0 && std::fwrite(data, 1, size, m_file) != size)
            throwIoError(m_name, "cannot write file", errno);
    }

    std::string m_name;
    std::FILE* m_file = nullptr;
    bool m_gzip = false;
    z_stream m_stream {};
    gz_header m_header {};
    bool m_streamOpen = false;
    std::vector<unsigned char> m_chunk;
};

// ---- ChromeJsonWriter --------------------------------------------------------------------

ChromeJsonWriter::ChromeJsonWriter(std::filesystem::path path, int gzipLevel)
    : m_path(std::move(path))
{
    m_tmpPath = m_path;
    m_tmpPath += ".tmp";
    const std::string name = m_path.filename().string();
    const bool gzip = name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0;
    m_out = std::make_unique<Output>(m_tmpPath, gzip, gzipLevel);
    m_buffer.reserve(kBufferBytes + (std::size_t(64) << 10));
}

ChromeJsonWriter::~ChromeJsonWriter()
{
    if (m_finished)
        return;
    m_out.reset();
    std::error_code ignored;
    std::filesystem::remove(m_tmpPath, ignored);
}

const ChromeJsonWriter::TrackState& ChromeJsonWriter::trackAt(TrackId id) const
{
    if (id >= m_tracks.size())
        throw std::out_of_range("ChromeJsonWriter: unknown track " + std::to_string(id));
    return m_tracks[id];
}

void ChromeJsonWriter::ensureOpen()
{
    if (m_finished)
        throw std::logic_error("ChromeJsonWriter: used after finish()");
    if (!m_headerWritten)
        writeHeader();
}

void ChromeJsonWriter::writeHeader()
{
    m_headerWritten = true;
    m_buffer += "{\"schemaVersion\":1,\"deviceProperties\":[]";
    const auto origin = m_meta.find("origin_ns");
    if (origin != m_meta.end()) {
        if (const auto ns = parseInteger(origin->second)) {
            m_buffer += ",\"baseTimeNanoseconds\":";
            appendInt(m_buffer, *ns);
            m_originInHeader = true;
        }
    }
    m_buffer += ",\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
}

void ChromeJsonWriter::beginEvent()
{
    m_buffer += m_eventsWritten == 0 ? "\n" : ",\n";
    ++m_eventsWritten;
}

void ChromeJsonWriter::flushIfFull()
{
    if (m_buffer.size() < kBufferBytes)
        return;
    m_out->write(m_buffer);
    m_buffer.clear();
}

const std::string& ChromeJsonWriter::escaped(model::StringId id)
{
    if (id >= m_strings.size())
        throw std::out_of_range("ChromeJsonWriter: unknown string " + std::to_string(id));
    if (id >= m_escaped.size()) {
        m_escaped.resize(m_strings.size());
        m_escapedReady.resize(m_strings.size());
    }
    if (!m_escapedReady[id]) {
        m_escaped[id] = escapeJson(m_strings.text(id));
        m_escapedReady[id] = true;
    }
    return m_escaped[id];
}

TrackId ChromeJsonWriter::addTrack(
    TrackId parent, ResourceKind kind, std::string name, std::int64_t sortKey, std::string /*unit*/)
{
    if (parent != model::kNoTrack)
        trackAt(parent);
    ensureOpen();
    const auto id = static_cast<TrackId>(m_tracks.size());
    TrackState track;
    track.parent = parent;
    track.kind = kind;
    track.escapedName = escapeJson(name);
    track.sortKey = sortKey;
    track.trailingNumber = trailingNumber(name);
    m_tracks.push_back(std::move(track));
    switch (kind) {
    case ResourceKind::Process:
        assignProcessPid(id, false);
        break;
    case ResourceKind::Gpu:
        assignProcessPid(id, true);
        break;
    case ResourceKind::Thread:
    case ResourceKind::Stream:
        locate(id);
        break;
    case ResourceKind::Node:
    case ResourceKind::Group:
    case ResourceKind::Counter:
        break;  // no pid or tid of their own; located if events land on them
    }
    flushIfFull();
    return id;
}

std::int64_t ChromeJsonWriter::assignProcessPid(TrackId id, bool gpu)
{
    TrackState& track = m_tracks[id];
    std::int64_t pid = 0;
    if (gpu) {
        // Kineto's GPU pid is the device index; take it from the name when free.
        const std::int64_t wanted = track.trailingNumber;
        if (wanted >= 0 && wanted < 1000 && !m_usedPids.count(wanted)) {
            pid = wanted;
        } else {
            while (m_usedPids.count(pid))
                ++pid;
        }
    } else {
        while (m_usedPids.count(m_nextProcessPid))
            ++m_nextProcessPid;
        pid = m_nextProcessPid++;
    }
    m_usedPids.insert(pid);
    track.pid = pid;
    writeProcessMeta(track);
    return pid;
}

std::int64_t ChromeJsonWriter::pidFor(TrackId id)
{
    TrackId root = id;
    for (TrackId a = m_tracks[id].parent; a != model::kNoTrack; a = m_tracks[a].parent) {
        if (m_tracks[a].pid >= 0)
            return m_tracks[a].pid;
        root = a;
    }
    // No process or GPU above: the root stands in for one.
    if (m_tracks[root].pid < 0)
        assignProcessPid(root, false);
    return m_tracks[root].pid;
}

void ChromeJsonWriter::locate(TrackId id)
{
    TrackState& track = m_tracks[id];
    if (track.tid >= 0)
        return;
    const bool isProcess = track.kind == ResourceKind::Process || track.kind == ResourceKind::Gpu;
    const std::int64_t pid = isProcess ? track.pid : pidFor(id);
    std::set<std::int64_t>& used = m_usedTids[pid];
    std::int64_t tid = track.trailingNumber;
    if (tid < 0 || used.count(tid)) {
        tid = 1;
        while (used.count(tid))
            ++tid;
    }
    used.insert(tid);
    track.eventPid = pid;
    track.tid = tid;
    writeThreadMeta(pid, tid, track.escapedName, track.sortKey);
}

void ChromeJsonWriter::writeProcessMeta(const TrackState& track)
{
    beginEvent();
    m_buffer += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":";
    appendInt(m_buffer, track.pid);
    m_buffer += ",\"tid\":0,\"ts\":0,\"args\":{\"name\":\"";
    m_buffer += track.escapedName;
    m_buffer += "\"}}";
    beginEvent();
    m_buffer += "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":";
    appendInt(m_buffer, track.pid);
    m_buffer += ",\"tid\":0,\"ts\":0,\"args\":{\"sort_index\":";
    appendInt(m_buffer, m_processSortIndex++);
    m_buffer += "}}";
}

void ChromeJsonWriter::writeThreadMeta(
    std::int64_t pid, std::int64_t tid, const std::string& escapedName, std::int64_t sortIndex)
{
    beginEvent();
    m_buffer += "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":";
    appendInt(m_buffer, pid);
    m_buffer += ",\"tid\":";
    appendInt(m_buffer, tid);
    m_buffer += ",\"ts\":0,\"args\":{\"name\":\"";
    m_buffer += escapedName;
    m_buffer += "\"}}";
    beginEvent();
    m_buffer += "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":";
    appendInt(m_buffer, pid);
    m_buffer += ",\"tid\":";
    appendInt(m_buffer, tid);
    m_buffer += ",\"ts\":0,\"args\":{\"sort_index\":";
    appendInt(m_buffer, sortIndex);
    m_buffer += "}}";
}

void ChromeJsonWriter::writePidTid(const TrackState& track)
{
    m_buffer += ",\"pid\":";
    appendInt(m_buffer, track.eventPid);
    m_buffer += ",\"tid\":";
    appendInt(m_buffer, track.tid);
}

void ChromeJsonWriter::writeArgs(std::string_view args)
{
    args = trimmed(args);
    if (args.empty())
        return;
    if (args.front() == '{' && args.back() == '}') {
        m_buffer += ",\"args\":";
        m_buffer += args;
        return;
    }
    m_buffer += ",\"args\":{\"value\":\"";
    m_buffer += escapeJson(args);
    m_buffer += "\"}";
}

void ChromeJsonWriter::setMeta(std::string key, std::string value)
{
    if (m_finished)
        throw std::logic_error("ChromeJsonWriter: used after finish()");
    m_meta[std::move(key)] = std::move(value);
}

void ChromeJsonWriter::beginSlice(
    TrackId track, std::string_view phase, model::StringId category, model::StringId name, model::TimeNs tsNs)
{
    trackAt(track);
    ensureOpen();
    locate(track);
    const std::string& escapedCategory = escaped(category);
    const std::string& escapedName = escaped(name);
    beginEvent();
    m_buffer += "{\"ph\":";
    m_buffer += phase;
    m_buffer += ",\"cat\":\"";
    m_buffer += escapedCategory;
    m_buffer += "\",\"name\":\"";
    m_buffer += escapedName;
    m_buffer += '"';
    writePidTid(m_tracks[track]);
    m_buffer += ",\"ts\":";
    appendMicros(m_buffer, tsNs);
}

void ChromeJsonWriter::addInterval(
    TrackId track, const model::Interval& interval, std::string_view args)
{
    beginSlice(track, "\"X\"", interval.category, interval.name, interval.startNs);
    m_buffer += ",\"dur\":";
    appendMicros(m_buffer, std::max<model::TimeNs>(0, interval.endNs - interval.startNs));
    writeArgs(args);
    m_buffer += '}';
    flushIfFull();
}

void ChromeJsonWriter::addInstant(
    TrackId track, const model::Instant& instant, std::string_view args)
{
    beginSlice(track, "\"i\",\"s\":\"t\"", instant.category, instant.name, instant.timeNs);
    writeArgs(args);
    m_buffer += '}';
    flushIfFull();
}

void ChromeJsonWriter::addCounterSample(TrackId track, const model::CounterSample& sample)
{
    trackAt(track);
    ensureOpen();
    if (!std::isfinite(sample.value)) {
        ++m_skippedCounterValues;
        return;
    }
    const TrackState& t = m_tracks[track];
    const bool isProcess = t.kind == ResourceKind::Process || t.kind == ResourceKind::Gpu;
    const std::int64_t pid = isProcess ? t.pid : pidFor(track);
    char value[32];
    const auto result = std::to_chars(value, value + sizeof value, sample.value);
    const std::string& name = m_tracks[track].escapedName;
    beginEvent();
    m_buffer += "{\"ph\":\"C\",\"name\":\"";
    m_buffer += name;
    m_buffer += "\",\"pid\":";
    appendInt(m_buffer, pid);
    m_buffer += ",\"ts\":";
    appendMicros(m_buffer, sample.timeNs);
    m_buffer += ",\"args\":{\"";
    m_buffer += name;
    m_buffer += "\":";
    m_buffer.append(value, result.ptr);
    m_buffer += "}}";
    flushIfFull();
}

void ChromeJsonWriter::addFlow(TrackId fromTrack, const model::Flow& flow)
{
    trackAt(fromTrack);
    trackAt(flow.toTrack);
    ensureOpen();
    locate(fromTrack);
    locate(flow.toTrack);
    const std::string name = flow.name == model::kEmptyString ? "ac2g" : escaped(flow.name);
    const std::uint64_t id = m_nextFlowId++;
    const auto writeEnd = [&](const char* phase, TrackId track, model::TimeNs timeNs) {
        beginEvent();
        m_buffer += "{\"ph\":\"";
        m_buffer += phase;
        m_buffer += "\",\"id\":";
        appendUnsigned(m_buffer, id);
        writePidTid(m_tracks[track]);
        m_buffer += ",\"ts\":";
        appendMicros(m_buffer, timeNs);
        m_buffer += ",\"cat\":\"";
        m_buffer += name;
        m_buffer += "\",\"name\":\"";
        m_buffer += name;
        m_buffer += '"';
    };
    writeEnd("s", fromTrack, flow.fromNs);
    m_buffer += '}';
    writeEnd("f", flow.toTrack, flow.toNs);
    m_buffer += ",\"bp\":\"e\"}";
    flushIfFull();
}

model::StackId ChromeJsonWriter::internStack(model::StackId parent, model::StringId frame)
{
    if (parent > m_stacks.size())
        throw std::out_of_range("ChromeJsonWriter::internStack: unknown parent stack");
    const auto next = static_cast<model::StackId>(m_stacks.size() + 1);
    return m_stacks.try_emplace({ parent, frame }, next).first->second;
}

void ChromeJsonWriter::addStackSample(TrackId track, const model::StackSample& /*sample*/)
{
    trackAt(track);
    ++m_skippedSamples;
}

void ChromeJsonWriter::finish()
{
    ensureOpen();
    try {
        m_buffer += "\n]";
        const auto origin = m_meta.find("origin_ns");
        if (!m_originInHeader && origin != m_meta.end()) {
            if (const auto ns = parseInteger(origin->second)) {
                m_buffer += ",\"baseTimeNanoseconds\":";
                appendInt(m_buffer, *ns);
            }
        }
        if (!m_meta.empty()) {
            m_buffer += ",\"otherData\":{";
            bool first = true;
            for (const auto& [key, value] : m_meta) {
                m_buffer += first ? "\"" : ",\"";
                first = false;
                m_buffer += escapeJson(key);
                m_buffer += "\":\"";
                m_buffer += escapeJson(value);
                m_buffer += '"';
            }
            m_buffer += '}';
        }
        m_buffer += "}\n";
        m_out->write(m_buffer);
        m_buffer.clear();
        m_out->close();
        m_out.reset();
        std::filesystem::rename(m_tmpPath, m_path);
        m_finished = true;
    } catch (...) {
        m_finished = true;
        m_out.reset();
        std::error_code ignored;
        std::filesystem::remove(m_tmpPath, ignored);
        throw;
    }
}

}  // namespace strata::storage
