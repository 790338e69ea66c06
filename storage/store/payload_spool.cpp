#include "storage/store/payload_spool.h"

#include "storage/store/sqlite_db.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace strata::storage {

PayloadSpool::PayloadSpool(std::filesystem::path folder, std::size_t memoryBytes)
    : m_folder(std::move(folder))
    , m_memoryBytes(memoryBytes)
{}

PayloadSpool::~PayloadSpool()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

PayloadSpool::PayloadSpool(PayloadSpool&& other) noexcept
    : m_folder(std::move(other.m_folder))
    , m_memoryBytes(other.m_memoryBytes)
    , m_memory(std::move(other.m_memory))
    , m_fd(std::exchange(other.m_fd, -1))
    , m_size(std::exchange(other.m_size, 0))
{}

PayloadSpool& PayloadSpool::operator=(PayloadSpool&& other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_folder = std::move(other.m_folder);
        m_memoryBytes = other.m_memoryBytes;
        m_memory = std::move(other.m_memory);
        m_fd = std::exchange(other.m_fd, -1);
        m_size = std::exchange(other.m_size, 0);
    }
    return *this;
}

SpooledPayload PayloadSpool::add(std::string_view payload)
{
    const SpooledPayload at { m_size, payload.size() };
    if (m_fd < 0 && !m_folder.empty() && m_memory.size() + payload.size() > m_memoryBytes) {
        openFile();
        write(view(m_memory), 0);
        Column<char>().swap(m_memory);
    }
    if (m_fd >= 0)
        write(payload, m_size);
    else
        m_memory.append(payload.data(), payload.size());
    m_size += payload.size();
    return at;
}

std::string_view PayloadSpool::read(SpooledPayload payload, std::string& buffer) const
{
    if (m_fd < 0)
        return view(m_memory).substr(payload.offset, payload.size);
    buffer.resize(payload.size);
    for (std::size_t done = 0; done < payload.size;) {
        const ssize_t n = ::pread(m_fd, buffer.data() + done, payload.size - done,
            static_cast<off_t>(payload.offset + done));
        if (n <= 0)
            throw StoreError(m_folder.string()
                + ": cannot read back a tile spool: " + std::strerror(n < 0 ? errno : EIO));
        done += static_cast<std::size_t>(n);
    }
    return buffer;
}

void PayloadSpool::openFile()
{
    m_fd = ::open(m_folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (m_fd < 0) {
        // A file system without O_TMPFILE: a named file, unlinked at once.
        std::string name = (m_folder / ".strata-spool.XXXXXX").string();
        m_fd = ::mkostemp(name.data(), O_CLOEXEC);
        if (m_fd >= 0)
            ::unlink(name.c_str());
    }
    if (m_fd < 0)
        throw StoreError(
            m_folder.string() + ": cannot create a tile spool: " + std::strerror(errno));
}

void PayloadSpool::write(std::string_view bytes, std::uint64_t offset)
{
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::pwrite(
            m_fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
        if (n <= 0)
            throw StoreError(m_folder.string()
                + ": cannot write a tile spool: " + std::strerror(n < 0 ? errno : ENOSPC));
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace strata::storage
