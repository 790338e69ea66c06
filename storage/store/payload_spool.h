#pragma once
// PayloadSpool holds the encoded tiles and flame buckets of one track between the worker
// that encodes them and the writer that stores them (store_builder.h), so that a worker
// does not keep a whole track's output in memory: the first few MB stay in memory (most
// tracks are small), the rest goes to a temporary file in the store's folder that has no
// name (O_TMPFILE, or unlinked at once), so nothing is left behind by a crash or kill -9,
// and its disk space goes when the spool does. The memory is a Column (column.h): past
// 1 MB it grows without copying, in a mapping that earlier tracks' columns left in the
// pool (mapping_pool.h), so that its pages are not faulted in afresh for every track.
//
// Not thread-safe: one worker adds, then the writer reads after the handover.

#include "storage/store/column.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace strata::storage {

/// Where one payload lies in its spool.
struct SpooledPayload
{
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
};

class PayloadSpool
{
public:
    /// A spool that keeps `memoryBytes` in memory and the rest in a file in `folder`; an
    /// empty folder keeps everything in memory.
    explicit PayloadSpool(std::filesystem::path folder = {}, std::size_t memoryBytes = 0);
    ~PayloadSpool();
    PayloadSpool(PayloadSpool&& other) noexcept;
    PayloadSpool& operator=(PayloadSpool&& other) noexcept;
    PayloadSpool(const PayloadSpool&) = delete;
    PayloadSpool& operator=(const PayloadSpool&) = delete;

    /// Throws StoreError when the file cannot be created or written (a full disk).
    SpooledPayload add(std::string_view payload);
    /// The payload's bytes, valid until the next read (`buffer` holds them when they
    /// come from the file).
    std::string_view read(SpooledPayload payload, std::string& buffer) const;
    /// Bytes added in all.
    std::uint64_t bytes() const { return m_size; }
    /// Whether the spool has moved to a file.
    bool onDisk() const { return m_fd >= 0; }
    /// Bytes held in memory (none once the spool has moved to a file).
    std::size_t memoryBytes() const { return m_memory.capacity(); }

private:
    void openFile();
    void write(std::string_view bytes, std::uint64_t offset);

    std::filesystem::path m_folder;
    std::size_t m_memoryBytes = 0;
    Column<char> m_memory;  ///< bytes [0, m_size) while no file is open
    int m_fd = -1;
    std::uint64_t m_size = 0;
};

}  // namespace strata::storage
