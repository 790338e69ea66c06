#include "storage/import/common/line_reader.h"

#include "storage/store/input_error.h"

#include <cstring>

namespace strata::storage {

namespace {
// Small enough that opening many tiny files (tests, fuzzing) costs little; reads of this
// size are still far cheaper than parsing what they bring.
constexpr std::size_t kInitialBytes = std::size_t(64) << 10;
// Below this size a file is read on the caller's thread: starting the prefetch thread
// costs more than it saves.
constexpr std::uintmax_t kPrefetchFromBytes = std::uintmax_t(4) << 20;

bool worthPrefetching(const std::filesystem::path& path)
{
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    return !ec && size >= kPrefetchFromBytes;
}
constexpr std::uint64_t kProgressEveryBytes = std::uint64_t(4) << 20;
} // namespace

LineReader::LineReader(const std::filesystem::path& path, ProgressFn progress)
    : m_reader(path, worthPrefetching(path))
    , m_fileName(path.string())
    , m_progress(std::move(progress))
    , m_buffer(kInitialBytes)
{
}

bool LineReader::fill()
{
    if (m_eof)
        return false;
    // Keep the unread tail, make room after it (growing only for a line longer than the
    // buffer), and read more.
    std::memmove(m_buffer.data(), m_buffer.data() + m_begin, m_end - m_begin);
    m_end -= m_begin;
    m_begin = 0;
    if (m_end == m_buffer.size())
        m_buffer.resize(m_buffer.size() * 2);
    const std::size_t got = m_reader.read(m_buffer.data() + m_end, m_buffer.size() - m_end);
    m_end += got;
    if (got == 0)
        m_eof = true;
    if (m_progress && (m_eof || m_reader.fileBytesRead() - m_lastProgressBytes >= kProgressEveryBytes)) {
        m_lastProgressBytes = m_reader.fileBytesRead();
        if (!m_progress(m_lastProgressBytes, m_reader.fileSizeBytes()))
            throw Cancelled();
    }
    return got > 0;
}

bool LineReader::next(std::string_view& line)
{
    std::size_t scanned = m_begin;
    for (;;) {
        const char* start = m_buffer.data() + scanned;
        const auto* nl = static_cast<const char*>(std::memchr(start, '\n', m_end - scanned));
        if (nl) {
            const std::size_t lineEnd = static_cast<std::size_t>(nl - m_buffer.data());
            line = std::string_view(m_buffer.data() + m_begin, lineEnd - m_begin);
            m_begin = lineEnd + 1;
            m_terminated = true;
            break;
        }
        const std::size_t already = m_end - m_begin;
        if (!fill()) {
            if (m_begin == m_end)
                return false;
            line = std::string_view(m_buffer.data() + m_begin, m_end - m_begin);
            m_begin = m_end;
            m_terminated = false;
            break;
        }
        scanned = m_begin + already;  // fill() moved the unread part to the front
    }
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    ++m_lineNumber;
    return true;
}

} // namespace strata::storage
