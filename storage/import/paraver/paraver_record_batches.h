#pragma once
// The first half of a Paraver import: the .prv's text cut into lines and the numbers of its
// well-formed records parsed, a batch (about a MB of text) at a time. The importer
// (paraver_importer.cpp) then gives each line its meaning, in file order.
//
//   GzipReader ──> RecordBatchReader ──batches──> Importer
//   (inflate)      lines, numbers of             threads, stacks, names,
//                  1:, 2:, 3: records            the sink's calls
//
// With threads >= 2, threads - 1 threads read (in turns) and parse (side by side) batches
// ahead of the importer: on two cores the numbers are parsed while the previous batch is
// imported. Not `threads` of them: the import now takes longer than the parse, and a
// second parsing thread only took the importer's core from it when both ran (t2m.prv:
// 1.02 -> 0.95 s with one, 2026-11-27).
// The importer makes the same calls in the same order either way, so the store is the same.
//
// Only lines the importer's own parser accepts with the same values are parsed here
// (digits only, no sign, at most 18 digits, the record's exact layout, event values that
// are integers); every other line (the header, comments, communicator lines, empty lines,
// anything malformed) is passed as text (LineKind::Text) and the importer reads it as it
// reads any line (handleLine), so its errors and counts stay what they were.
//
// A plain .prv is mapped (GzipReader::mapContent): a batch's text is then a stretch of the
// mapping, cut after a '\n', not a copy, and no prefetch thread copies the file ahead;
// the pages of the batches imported are given back.
//
// Memory: at most kQueuedBatches batches, each about GzipReader::kBlockBytes of text plus
// its numbers (room for 4 bytes of numbers per byte of text is allocated, uncleared: only
// what the numbers fill, a few bytes per byte of text at most, is touched).

#include "storage/store/progress.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace strata::storage {
class GzipReader;
}

namespace strata::storage::paraver_detail {

enum class LineKind : std::uint8_t { Text, State, Event, Communication };

/// One line of a batch: its text (without the '\n'; a '\r' before it kept) and, for a
/// parsed record, where its numbers start in RecordBatch::numbers: the 7 fields after
/// "1:", the 14 after "3:", or the 5 after "2:" then `pairs` type:value pairs.
struct BatchLine
{
    const char* begin = nullptr;
    const char* end = nullptr;
    std::uint32_t firstNumber = 0;
    std::uint32_t pairs = 0;
    LineKind kind = LineKind::Text;
};

/// Leaves what it allocates uninitialized: a batch's text is read into at once (value
/// initialization cleared a MB of each batch before its read).
template<typename T>
struct UninitializedAllocator : std::allocator<T>
{
    template<typename U>
    struct rebind
    {
        using other = UninitializedAllocator<U>;
    };
    template<typename U, typename... Args>
    void construct(U* p, Args&&... args)
    {
        if constexpr (sizeof...(Args) == 0)
            ::new (static_cast<void*>(p)) U;
        else
            ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
using TextBuffer = std::vector<char, UninitializedAllocator<char>>;

struct RecordBatch
{
    TextBuffer text;  ///< the text read (empty when it lies in the mapped file)
    const char* data = nullptr;  ///< the batch's text: text's, or the mapped file's
    std::size_t size = 0;
    std::uint64_t offset = 0;  ///< of data[0] in the file (a mapped file)
    std::vector<BatchLine> lines;
    std::vector<std::int64_t, UninitializedAllocator<std::int64_t>> numbers;
    /// The file's last line had no '\n': it is lines.back(), to be read with feedLast().
    bool unterminatedLast = false;
    std::size_t lineEnd = 0;  ///< text before it: whole lines; after it: the last line
    bool last = false;  ///< nothing follows this batch
    bool truncated = false;  ///< (last batch) the compressed file ended early
    std::uint64_t fileBytesRead = 0;  ///< for progress
    std::uint64_t bytesRead = 0;  ///< uncompressed bytes up to the end of this batch
    std::exception_ptr error;  ///< reading failed after the lines of this batch
};

/// Parses one line (without '\n') into `batch`, its numbers at `out` (in batch.numbers,
/// with room for them) and `out` moved past them; bytes up to `limit` (the end of the
/// text the line lies in, which ends it with a '\n' unless it is the text's last) may be
/// read.
void parseLine(
    const char* begin, const char* end, const char* limit, RecordBatch& batch, std::int64_t*& out);

class RecordBatchReader
{
public:
    /// Batches read or parsed ahead of the importer, at most.
    static constexpr std::size_t kQueuedBatches = 4;

    /// Opens `prv` (InputError when it cannot be read). `threads` >= 2: threads - 1
    /// threads read and parse batches ahead (in turns for the reading, side by side for
    /// the parsing); the batches still come out in file order.
    RecordBatchReader(const std::filesystem::path& prv, int threads);
    ~RecordBatchReader();
    RecordBatchReader(const RecordBatchReader&) = delete;
    RecordBatchReader& operator=(const RecordBatchReader&) = delete;

    std::uint64_t fileSizeBytes() const { return m_fileSizeBytes; }
    /// The next batch; the previous one is recycled. Rethrows nothing: an error rides on
    /// the batch (RecordBatch::error), after its lines.
    const RecordBatch& next();

private:
    /// Reads the batch's text: the carried start of a line, then up to the last '\n' of a
    /// read (or to the end). Called in file order (under m_readMutex with threads).
    void read(RecordBatch& batch);
    void work();

    std::unique_ptr<GzipReader> m_reader;
    std::uint64_t m_fileSizeBytes = 0;
    std::string_view m_mapped;  ///< the whole file, when mapped
    std::size_t m_mappedPos = 0;  ///< where the next batch starts in it
    /// The mapping before it is imported: given back by the thread that reads next.
    std::atomic<std::uint64_t> m_importedTo { 0 };
    TextBuffer m_carry;  ///< the start of a line cut by the end of the last read
    bool m_done = false;  ///< the last batch was handed out
    std::unique_ptr<RecordBatch> m_current;
    // Read-ahead (threads >= 2).
    std::mutex m_readMutex;  ///< the reader, m_carry, m_nextRead, m_readEnded
    std::uint64_t m_nextRead = 0;  ///< the number of the next batch read
    bool m_readEnded = false;  ///< the last batch was read
    std::mutex m_mutex;  ///< the rest
    std::condition_variable m_cv;
    std::map<std::uint64_t, std::unique_ptr<RecordBatch>> m_ready;  ///< by number
    std::vector<std::unique_ptr<RecordBatch>> m_free;
    std::uint64_t m_nextOut = 0;  ///< the number of the next batch next() hands out
    bool m_stop = false;
    std::vector<std::thread> m_threads;
};

}  // namespace strata::storage::paraver_detail
