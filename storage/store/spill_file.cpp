#include "storage/store/spill_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace strata::storage {

namespace {

/// A column (Column or vector), as its raw structs.
template<typename Rows>
void put(std::string& out, const Rows& v)
{
    out.append(
        reinterpret_cast<const char*>(v.data()), v.size() * sizeof(typename Rows::value_type));
}

void putArgs(std::string& out, const ArgsColumn& args)
{
    const std::uint64_t counts[2] = {args.ends.size(), args.bytes.size()};
    out.append(reinterpret_cast<const char*>(counts), sizeof counts);
    put(out, args.ends);
    put(out, args.bytes);
}

class Cursor
{
public:
    explicit Cursor(const std::string& bytes)
        : m_bytes(bytes)
    {
    }
    template<typename Rows>
    void take(Rows& out, std::uint64_t n)
    {
        const std::size_t size = n * sizeof(typename Rows::value_type);
        if (m_at + size > m_bytes.size())
            throw std::runtime_error("spill file segment is short");
        const std::size_t old = out.size();
        out.resize(old + n);
        std::memcpy(reinterpret_cast<char*>(out.data() + old), m_bytes.data() + m_at, size);
        m_at += size;
    }
    std::uint64_t u64()
    {
        std::vector<std::uint64_t> v;
        take(v, 1);
        return v[0];
    }
    std::string_view bytes(std::uint64_t n)
    {
        if (m_at + n > m_bytes.size())
            throw std::runtime_error("spill file segment is short");
        std::string_view s(m_bytes.data() + m_at, n);
        m_at += n;
        return s;
    }

private:
    const std::string& m_bytes;
    std::size_t m_at = 0;
};

/// Appends spilled args for rows [firstRow, firstRow + rows) to `args`.
void takeArgs(Cursor& in, ArgsColumn& args, std::size_t firstRow)
{
    const std::uint64_t endCount = in.u64();
    const std::uint64_t byteCount = in.u64();
    std::vector<std::uint64_t> ends;
    in.take(ends, endCount);
    const std::string_view bytes = in.bytes(byteCount);
    std::uint64_t begin = 0;
    for (std::size_t i = 0; i < ends.size(); ++i) {
        args.append(firstRow + i, bytes.substr(begin, ends[i] - begin));
        begin = ends[i];
    }
}

} // namespace

std::size_t bufferedBytes(const StoreBuilder::TrackBuffer& b)
{
    return b.intervals.capacity() * sizeof(model::Interval) + b.intervalArgs.bytes.capacity()
           + b.intervalArgs.ends.capacity() * 8 + b.instants.capacity() * sizeof(model::Instant)
           + b.instantArgs.bytes.capacity() + b.instantArgs.ends.capacity() * 8
           + b.counters.capacity() * sizeof(model::CounterSample) + b.flows.capacity() * sizeof(model::Flow)
           + b.samples.capacity() * sizeof(model::StackSample);
}

SpillFile::SpillFile(std::filesystem::path path)
    : m_path(std::move(path))
{
    m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (m_fd < 0)
        throw std::runtime_error(m_path.string() + ": cannot create spill file: " + std::strerror(errno));
}

SpillFile::~SpillFile()
{
    ::close(m_fd);
    std::error_code ignored;
    std::filesystem::remove(m_path, ignored);
}

void SpillFile::spill(model::TrackId track, StoreBuilder::TrackBuffer& b)
{
    std::string out;
    const std::uint64_t counts[5] = {b.intervals.size(), b.instants.size(), b.counters.size(),
                                     b.flows.size(), b.samples.size()};
    out.append(reinterpret_cast<const char*>(counts), sizeof counts);
    put(out, b.intervals);
    putArgs(out, b.intervalArgs);
    put(out, b.instants);
    putArgs(out, b.instantArgs);
    put(out, b.counters);
    put(out, b.flows);
    put(out, b.samples);
    // zstd's fastest level: raw event structs shrink about fourfold, so the spill costs
    // about as much disk as the store it becomes, for little CPU beside tiling.
    std::string packed(ZSTD_compressBound(out.size()), '\0');
    const std::size_t packedSize = ZSTD_compress(packed.data(), packed.size(), out.data(), out.size(), 1);
    if (ZSTD_isError(packedSize))
        throw std::runtime_error(m_path.string() + ": cannot compress a spill segment");
    packed.resize(packedSize);
    out = std::move(packed);
    for (std::size_t done = 0; done < out.size();) {
        const ssize_t n = ::pwrite(m_fd, out.data() + done, out.size() - done, static_cast<off_t>(m_size + done));
        if (n <= 0)
            throw std::runtime_error(m_path.string() + ": cannot write spill file: " + std::strerror(errno));
        done += static_cast<std::size_t>(n);
    }
    if (m_segments.size() <= track) {
        m_segments.resize(track + 1);
        m_totals.resize(track + 1);
    }
    m_segments[track].push_back({ m_size, out.size(), 0 });
    Totals& t = m_totals[track];
    if (!b.intervalArgs.ends.empty())
        t.intervalArgEnds = t.intervals + b.intervalArgs.ends.size();
    if (!b.instantArgs.ends.empty())
        t.instantArgEnds = t.instants + b.instantArgs.ends.size();
    t.intervalArgBytes += b.intervalArgs.bytes.size();
    t.instantArgBytes += b.instantArgs.bytes.size();
    t.intervals += b.intervals.size();
    t.instants += b.instants.size();
    t.counters += b.counters.size();
    t.flows += b.flows.size();
    t.samples += b.samples.size();
    m_size += out.size();
    // Keep the arrival counters running: seq numbers continue after a spill.
    release(b.intervals);
    release(b.intervalArgs);
    release(b.instants);
    release(b.instantArgs);
    release(b.counters);
    release(b.flows);
    release(b.samples);
}

void SpillFile::readSegment(const Segment& segment, StoreBuilder::TrackBuffer& into) const
{
    std::string packed(segment.size, '\0');
    for (std::size_t done = 0; done < packed.size();) {
        const ssize_t n = ::pread(m_fd, packed.data() + done, packed.size() - done,
            static_cast<off_t>(segment.offset + done));
        if (n <= 0)
            throw std::runtime_error(m_path.string() + ": cannot read spill file");
        done += static_cast<std::size_t>(n);
    }
    const unsigned long long size = ZSTD_getFrameContentSize(packed.data(), packed.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
        throw std::runtime_error(m_path.string() + ": corrupted spill segment");
    std::string bytes(size, '\0');
    if (ZSTD_isError(ZSTD_decompress(bytes.data(), bytes.size(), packed.data(), packed.size())))
        throw std::runtime_error(m_path.string() + ": corrupted spill segment");
    std::string().swap(packed);
    Cursor in(bytes);
    std::uint64_t counts[5];
    for (auto& c : counts)
        c = in.u64();
    const BufferRows first { into.intervals.size(), into.instants.size(), into.counters.size(),
        into.flows.size(), into.samples.size() };
    in.take(into.intervals, counts[0]);
    takeArgs(in, into.intervalArgs, first.intervals);
    in.take(into.instants, counts[1]);
    takeArgs(in, into.instantArgs, first.instants);
    in.take(into.counters, counts[2]);
    in.take(into.flows, counts[3]);
    in.take(into.samples, counts[4]);
    if (segment.shiftNs != 0)
        shiftEvents(into, segment.shiftNs, first);
}

void SpillFile::shiftTrack(model::TrackId track, model::TimeNs deltaNs)
{
    if (track < m_segments.size()) {
        for (Segment& segment : m_segments[track])
            segment.shiftNs += deltaNs;
    }
}

void SpillFile::forgetTracksFrom(model::TrackId first)
{
    if (first < m_segments.size()) {
        m_segments.resize(first);
        m_totals.resize(first);
    }
    // The bytes after the last segment kept are no one's: give them back.
    std::uint64_t end = 0;
    for (const std::vector<Segment>& segments : m_segments) {
        if (!segments.empty())
            end = std::max(end, segments.back().offset + segments.back().size);
    }
    if (end < m_size && ::ftruncate(m_fd, static_cast<off_t>(end)) == 0)
        m_size = end;
}

void SpillFile::forEachSegment(
    model::TrackId track, const std::function<void(StoreBuilder::TrackBuffer& segment)>& take) const
{
    if (track >= m_segments.size())
        return;
    for (const Segment& segment : m_segments[track]) {
        StoreBuilder::TrackBuffer b;
        readSegment(segment, b);
        take(b);
    }
}

std::uint64_t SpillFile::eventBytes(model::TrackId track) const
{
    if (track >= m_totals.size())
        return 0;
    const Totals& t = m_totals[track];
    return t.intervals * sizeof(model::Interval) + t.intervalArgBytes
        + t.instants * sizeof(model::Instant) + t.instantArgBytes
        + t.counters * sizeof(model::CounterSample) + t.flows * sizeof(model::Flow)
        + t.samples * sizeof(model::StackSample);
}

void SpillFile::reload(model::TrackId track, StoreBuilder::TrackBuffer& b) const
{
    if (track >= m_segments.size() || m_segments[track].empty())
        return;
    StoreBuilder::TrackBuffer merged;
    const Totals& t = m_totals[track];
    // Rows appended after a column's first entry all get one (ArgsColumn::append).
    auto argEnds = [](std::size_t spilledEnds, std::size_t spilledRows, const ArgsColumn& args,
                       std::size_t rows) {
        return (spilledEnds > 0 || !args.ends.empty()) && rows > 0 ? spilledRows + rows
                                                                   : spilledEnds;
    };
    merged.intervals.reserve(t.intervals + b.intervals.size());
    merged.intervalArgs.ends.reserve(
        argEnds(t.intervalArgEnds, t.intervals, b.intervalArgs, b.intervals.size()));
    merged.intervalArgs.bytes.reserve(t.intervalArgBytes + b.intervalArgs.bytes.size());
    merged.instants.reserve(t.instants + b.instants.size());
    merged.instantArgs.ends.reserve(
        argEnds(t.instantArgEnds, t.instants, b.instantArgs, b.instants.size()));
    merged.instantArgs.bytes.reserve(t.instantArgBytes + b.instantArgs.bytes.size());
    merged.counters.reserve(t.counters + b.counters.size());
    merged.flows.reserve(t.flows + b.flows.size());
    merged.samples.reserve(t.samples + b.samples.size());
    for (const Segment& segment : m_segments[track])
        readSegment(segment, merged);
    // Then what arrived after the last spill.
    const std::size_t firstInterval = merged.intervals.size();
    merged.intervals.insert(merged.intervals.end(), b.intervals.begin(), b.intervals.end());
    for (std::size_t i = 0; i < b.intervals.size(); ++i)
        merged.intervalArgs.append(firstInterval + i, b.intervalArgs.at(i));
    const std::size_t firstInstant = merged.instants.size();
    merged.instants.insert(merged.instants.end(), b.instants.begin(), b.instants.end());
    for (std::size_t i = 0; i < b.instants.size(); ++i)
        merged.instantArgs.append(firstInstant + i, b.instantArgs.at(i));
    merged.counters.insert(merged.counters.end(), b.counters.begin(), b.counters.end());
    merged.flows.insert(merged.flows.end(), b.flows.begin(), b.flows.end());
    merged.samples.insert(merged.samples.end(), b.samples.begin(), b.samples.end());
    b = std::move(merged);
}

} // namespace strata::storage
