#include "storage/import/common/gzip_reader.h"

#include "storage/store/input_error.h"

#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace strata::storage {

namespace {

constexpr std::size_t kInputChunkBytes = std::size_t(256) << 10;

std::string displayName(const std::filesystem::path& path)
{
    return path.string();
}

}  // namespace

// The synchronous part: the file, and zlib's state when the file is gzip.
class GzipReader::Source
{
public:
    explicit Source(const std::filesystem::path& path)
        : m_name(displayName(path))
    {
        m_file = std::fopen(path.c_str(), "rb");
        if (!m_file)
            throw InputError(m_name + ": cannot open: " + std::strerror(errno));
        std::setvbuf(m_file, nullptr, _IONBF, 0);
        std::error_code ec;
        m_fileSize = std::filesystem::file_size(path, ec);
        if (ec)
            m_fileSize = 0;
        m_in.resize(kInputChunkBytes);
        refillInput();
        m_compressed = m_inLen >= 2 && static_cast<unsigned char>(m_in[0]) == 0x1f
            && static_cast<unsigned char>(m_in[1]) == 0x8b;
        if (m_compressed) {
            std::memset(&m_zs, 0, sizeof(m_zs));
            if (inflateInit2(&m_zs, 15 + 32) != Z_OK)
                throw std::runtime_error("zlib: inflateInit2 failed");
            m_zlibReady = true;
            m_inMember = true;
        }
    }

    ~Source()
    {
        if (m_zlibReady)
            inflateEnd(&m_zs);
        if (m_file)
            std::fclose(m_file);
    }

    Source(const Source&) = delete;
    Source& operator=(const Source&) = delete;

    /// Moves an uncompressed file's stream to byte `offset` (before anything is produced).
    void seek(std::uint64_t offset)
    {
        if (m_compressed)
            throw std::logic_error("GzipReader: a gzip stream cannot start at an offset");
        if (fseeko(m_file, static_cast<off_t>(offset), SEEK_SET) != 0)
            throw InputError::atByte(m_name, offset, "cannot be read");
        m_inputEof = false;
        refillInput();
    }

    bool compressed() const { return m_compressed; }
    std::uint64_t fileSize() const { return m_fileSize; }
    int fd() const { return ::fileno(m_file); }
    std::uint64_t fileBytesRead() const { return m_fileBytesRead.load(std::memory_order_relaxed); }
    bool truncated() const { return m_truncated.load(std::memory_order_relaxed); }

    /// Fills `dst` with up to `size` content bytes; fewer only at the end.
    std::size_t produce(char* dst, std::size_t size)
    {
        return m_compressed ? inflateInto(dst, size) : copyInto(dst, size);
    }

private:
    void refillInput()
    {
        m_inPos = 0;
        m_inLen = 0;
        if (m_inputEof)
            return;
        m_inLen = std::fread(m_in.data(), 1, m_in.size(), m_file);
        if (m_inLen < m_in.size()) {
            if (std::ferror(m_file))
                throw InputError(m_name + ": read error: " + std::strerror(errno));
            m_inputEof = true;
        }
        m_fileBytesRead.fetch_add(m_inLen, std::memory_order_relaxed);
    }

    std::size_t copyInto(char* dst, std::size_t size)
    {
        std::size_t done = 0;
        while (done < size) {
            if (m_inPos == m_inLen) {
                if (m_inputEof)
                    break;
                // Large reads go straight to the caller's buffer.
                if (size - done >= m_in.size()) {
                    std::size_t n = std::fread(dst + done, 1, size - done, m_file);
                    if (n < size - done) {
                        if (std::ferror(m_file))
                            throw InputError(m_name + ": read error: " + std::strerror(errno));
                        m_inputEof = true;
                    }
                    m_fileBytesRead.fetch_add(n, std::memory_order_relaxed);
                    done += n;
                    continue;
                }
                refillInput();
                continue;
            }
            std::size_t n = std::min(size - done, m_inLen - m_inPos);
            std::memcpy(dst + done, m_in.data() + m_inPos, n);
            m_inPos += n;
            done += n;
        }
        return done;
    }

    std::size_t inflateInto(char* dst, std::size_t size)
    {
        m_zs.next_out = reinterpret_cast<Bytef*>(dst);
        m_zs.avail_out = static_cast<uInt>(size);
        while (m_zs.avail_out > 0 && !m_done) {
            if (m_inPos == m_inLen) {
                refillInput();
                if (m_inLen == 0) {
                    // The file ended: inside a member means it was cut short.
                    if (m_inMember)
                        m_truncated.store(true, std::memory_order_relaxed);
                    m_done = true;
                    break;
                }
            }
            m_zs.next_in = reinterpret_cast<Bytef*>(m_in.data() + m_inPos);
            m_zs.avail_in = static_cast<uInt>(m_inLen - m_inPos);
            int rc = inflate(&m_zs, Z_NO_FLUSH);
            std::size_t consumed = (m_inLen - m_inPos) - m_zs.avail_in;
            std::uint64_t errorOffset = m_fileBytesRead.load() - (m_inLen - m_inPos);
            m_inPos += consumed;
            if (rc == Z_STREAM_END) {
                m_inMember = false;
                startNextMember();
            } else if (rc == Z_BUF_ERROR) {
                // No progress: only possible when the input chunk is used up; loop refills.
                if (m_inPos != m_inLen && m_zs.avail_out > 0)
                    throw InputError::atByte(m_name, errorOffset, "corrupt gzip data");
            } else if (rc != Z_OK) {
                std::string what = m_zs.msg ? m_zs.msg : "inflate failed";
                throw InputError::atByte(
                    m_name, errorOffset + consumed, "corrupt gzip data (" + what + ")");
            }
        }
        return size - m_zs.avail_out;
    }

    // After a member's end: another member follows only if the next bytes are the magic.
    void startNextMember()
    {
        if (m_inPos == m_inLen)
            refillInput();
        if (m_inLen - m_inPos < 2 && !m_inputEof) {
            // Keep the unread byte and read on, so the magic check sees two bytes.
            std::memmove(m_in.data(), m_in.data() + m_inPos, m_inLen - m_inPos);
            m_inLen -= m_inPos;
            m_inPos = 0;
            std::size_t n = std::fread(m_in.data() + m_inLen, 1, m_in.size() - m_inLen, m_file);
            if (n < m_in.size() - m_inLen)
                m_inputEof = true;
            m_fileBytesRead.fetch_add(n, std::memory_order_relaxed);
            m_inLen += n;
        }
        bool magic = m_inLen - m_inPos >= 2 && static_cast<unsigned char>(m_in[m_inPos]) == 0x1f
            && static_cast<unsigned char>(m_in[m_inPos + 1]) == 0x8b;
        if (!magic) {
            m_done = true;  // end of data, or padding after the last member: ignored
            return;
        }
        inflateReset(&m_zs);
        m_inMember = true;
    }

    std::string m_name;
    std::FILE* m_file = nullptr;
    std::uint64_t m_fileSize = 0;
    std::vector<char> m_in;
    std::size_t m_inPos = 0;
    std::size_t m_inLen = 0;
    bool m_inputEof = false;
    bool m_compressed = false;
    bool m_zlibReady = false;
    bool m_inMember = false;
    bool m_done = false;
    z_stream m_zs {};
    std::atomic<std::uint64_t> m_fileBytesRead { 0 };
    std::atomic<bool> m_truncated { false };
};

// The read-ahead worker: fills free blocks from the Source and queues them in order.
struct GzipReader::Prefetcher
{
    struct Block
    {
        std::vector<char> data;
        std::size_t size = 0;
        std::size_t pos = 0;
    };

    explicit Prefetcher(Source& source)
        : m_source(source)
    {
        for (int i = 0; i < kBlocks; ++i) {
            m_blocks.emplace_back();
            m_blocks.back().data.resize(kBlockBytes);
            m_free.push_back(&m_blocks.back());
        }
        m_thread = std::jthread([this](std::stop_token stop) { run(stop); });
    }

    ~Prefetcher()
    {
        m_thread.request_stop();
        {
            std::lock_guard lock(m_mutex);
            m_cv.notify_all();
        }
    }

    void run(const std::stop_token& stop)
    {
        try {
            for (;;) {
                Block* block = nullptr;
                {
                    std::unique_lock lock(m_mutex);
                    m_cv.wait(lock, [&] { return stop.stop_requested() || !m_free.empty(); });
                    if (stop.stop_requested())
                        return;
                    block = m_free.front();
                    m_free.pop_front();
                }
                block->size = m_source.produce(block->data.data(), block->data.size());
                block->pos = 0;
                std::lock_guard lock(m_mutex);
                if (block->size == 0) {
                    m_free.push_back(block);
                    m_finished = true;
                    m_cv.notify_all();
                    return;
                }
                m_ready.push_back(block);
                m_cv.notify_all();
            }
        } catch (...) {
            std::lock_guard lock(m_mutex);
            m_error = std::current_exception();
            m_finished = true;
            m_cv.notify_all();
        }
    }

    std::size_t read(char* dst, std::size_t size)
    {
        std::size_t done = 0;
        while (done < size) {
            if (!m_current) {
                std::unique_lock lock(m_mutex);
                m_cv.wait(lock, [&] { return !m_ready.empty() || m_finished; });
                if (m_ready.empty()) {
                    if (m_error)
                        std::rethrow_exception(m_error);
                    break;
                }
                m_current = m_ready.front();
                m_ready.pop_front();
            }
            std::size_t n = std::min(size - done, m_current->size - m_current->pos);
            std::memcpy(dst + done, m_current->data.data() + m_current->pos, n);
            m_current->pos += n;
            done += n;
            if (m_current->pos == m_current->size) {
                std::lock_guard lock(m_mutex);
                m_free.push_back(m_current);
                m_current = nullptr;
                m_cv.notify_all();
            }
        }
        return done;
    }

    Source& m_source;
    std::deque<Block> m_blocks;  // deque: stable addresses
    std::deque<Block*> m_free;
    std::deque<Block*> m_ready;
    Block* m_current = nullptr;
    bool m_finished = false;
    std::exception_ptr m_error;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::jthread m_thread;  // last: joined first on destruction, before the blocks go
};

GzipReader::GzipReader(const std::filesystem::path& path, bool prefetch, std::uint64_t startAt)
    : m_source(std::make_unique<Source>(path))
{
    m_compressed = m_source->compressed();
    m_fileSizeBytes = m_source->fileSize();
    m_startedAtOffset = startAt > 0;
    if (startAt > 0)
        m_source->seek(startAt);
    // The prefetching thread starts at the first read: a file mapped (mapContent) needs
    // none, and its blocks and thread cost most of a small file's import.
    m_prefetch = prefetch;
}

GzipReader::~GzipReader()
{
    m_prefetcher.reset();  // stops and joins the worker before the source goes
    if (m_map)
        ::munmap(m_map, m_fileSizeBytes);
}

std::string_view GzipReader::mapContent()
{
    if (!m_map) {
        if (m_compressed || m_startedAtOffset || m_bytesRead > 0 || m_fileSizeBytes == 0)
            return {};
        void* map = ::mmap(nullptr, m_fileSizeBytes, PROT_READ, MAP_PRIVATE, m_source->fd(), 0);
        if (map == MAP_FAILED)
            return {};
        ::madvise(map, m_fileSizeBytes, MADV_SEQUENTIAL);
        m_prefetcher.reset();  // what it read ahead is not needed
        m_map = map;
    }
    return std::string_view(static_cast<const char*>(m_map), m_fileSizeBytes);
}

void GzipReader::releaseMapped(std::uint64_t offset)
{
    offset = std::min(offset, m_fileSizeBytes);
    m_mappedRead.store(offset, std::memory_order_relaxed);
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t end = offset / page * page;
    if (!m_map || end <= m_released)
        return;
    ::madvise(static_cast<char*>(m_map) + m_released, end - m_released, MADV_DONTNEED);
    m_released = end;
}

std::size_t GzipReader::read(char* dst, std::size_t size)
{
    if (m_prefetch && !m_prefetcher && !m_map)
        m_prefetcher = std::make_unique<Prefetcher>(*m_source);
    std::size_t n = m_prefetcher ? m_prefetcher->read(dst, size) : m_source->produce(dst, size);
    m_bytesRead += n;
    return n;
}

std::uint64_t GzipReader::fileBytesRead() const
{
    return m_map ? m_mappedRead.load(std::memory_order_relaxed) : m_source->fileBytesRead();
}

bool GzipReader::truncated() const
{
    return m_source->truncated();
}

bool isGzipFile(const std::filesystem::path& path)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        return false;
    unsigned char magic[2] = { 0, 0 };
    std::size_t n = std::fread(magic, 1, 2, f);
    std::fclose(f);
    return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

std::string readFileHead(const std::filesystem::path& path, std::size_t maxBytes)
{
    GzipReader reader(path);
    std::string head(maxBytes, '\0');
    std::size_t n = 0;
    try {
        // Small steps, so that a corrupt stream still gives the part before the damage.
        constexpr std::size_t kStep = 16 << 10;
        while (n < maxBytes) {
            std::size_t got = reader.read(head.data() + n, std::min(kStep, maxBytes - n));
            if (got == 0)
                break;
            n += got;
        }
    } catch (const InputError&) {}
    head.resize(n);
    return head;
}

}  // namespace strata::storage
