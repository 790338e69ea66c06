#pragma once
// GzipReader reads a file as a stream of bytes, inflating it on the fly when it starts with
// the gzip magic (1f 8b), so importers read `.json` and `.json.gz` alike without ever holding
// the whole file. Gzip is inflated with zlib (windowBits 15+32: gzip or zlib headers,
// concatenated members are read one after another; bytes after the last member that do not
// start a new member are ignored).
//
// With `prefetch`, a worker thread reads and inflates ahead into a fixed ring of blocks
// (kBlockBytes each, kBlocks of them) while the caller parses the previous ones: on two cores,
// decompression and parsing overlap. Memory is bounded by the ring, whatever the file size.
// Errors met by the worker (unreadable file, corrupt gzip data) are rethrown by read().
//
// A gzip stream that stops before its end (a file cut while being written or copied) is not
// an error: read() returns what could be inflated, then 0, and truncated() turns true.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace strata::storage {

class GzipReader
{
public:
    static constexpr std::size_t kBlockBytes = std::size_t(1) << 20;
    static constexpr int kBlocks = 4;

    /// Opens `path`; throws InputError when it cannot be read. `startAt`: the content starts
    /// at this byte of an uncompressed file (a part of one file read by several processes,
    /// app/mpi/); std::logic_error for a gzip file.
    explicit GzipReader(
        const std::filesystem::path& path, bool prefetch = false, std::uint64_t startAt = 0);
    ~GzipReader();
    GzipReader(const GzipReader&) = delete;
    GzipReader& operator=(const GzipReader&) = delete;

    /// Copies up to `size` bytes of (uncompressed) content into `dst` and returns how many;
    /// returns less than `size` only at the end, and 0 once the end is reached.
    /// Throws InputError on corrupt gzip data (the offset is in the compressed file).
    std::size_t read(char* dst, std::size_t size);

    /// True when the file is gzip-compressed.
    bool compressed() const { return m_compressed; }
    /// Size of the file on disk.
    std::uint64_t fileSizeBytes() const { return m_fileSizeBytes; }
    /// Bytes of the file on disk consumed so far (compressed bytes for gzip): for progress.
    std::uint64_t fileBytesRead() const;
    /// Content bytes returned by read() so far.
    std::uint64_t bytesRead() const { return m_bytesRead; }
    /// True once the end was reached inside a gzip member (the file was cut short).
    bool truncated() const;

    /// The whole content of an uncompressed file, mapped into memory, for a caller that
    /// scans it in place: no read() copies it into a buffer (and no prefetch thread copies
    /// it ahead). Empty when the file is gzip, empty, started at an offset, already read
    /// from, or cannot be mapped: the caller then reads. Valid as long as this reader.
    std::string_view mapContent();
    /// The mapped content before `offset` is done with: its pages leave this process's
    /// memory (they stay in the page cache), and it counts as read (fileBytesRead).
    void releaseMapped(std::uint64_t offset);

private:
    class Source;
    struct Prefetcher;

    std::unique_ptr<Source> m_source;
    bool m_prefetch = false;  ///< read ahead once read() is first called
    std::unique_ptr<Prefetcher> m_prefetcher;
    bool m_compressed = false;
    bool m_startedAtOffset = false;
    std::uint64_t m_fileSizeBytes = 0;
    std::uint64_t m_bytesRead = 0;
    void* m_map = nullptr;  // of m_fileSizeBytes bytes, when mapped
    std::uint64_t m_released = 0;  // mapped bytes before it were released
    std::atomic<std::uint64_t> m_mappedRead { 0 };
};

/// True when the file starts with the gzip magic bytes 1f 8b.
bool isGzipFile(const std::filesystem::path& path);

/// Up to `maxBytes` of the file's content, inflated when it is gzip; a corrupt or cut gzip
/// stream gives what could be inflated. Throws InputError when the file cannot be read.
std::string readFileHead(const std::filesystem::path& path, std::size_t maxBytes);

}  // namespace strata::storage
