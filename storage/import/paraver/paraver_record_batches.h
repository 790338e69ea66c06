#pragma once
// The first half of a Paraver import: the .prv's text cut into lines and the numbers of its
// well-formed records parsed, a batch (about a MB of text) at a time. The importer
// (paraver_importer.cpp) then gives each line its meaning, in file order.
//
//   GzipReader ──> RecordBatchReader ──batches──> Importer
//   (inflate)      lines, numbers of             threads, stacks, names,
//                  1:, 2:, 3: records            the sink's calls
//
// With threads >= 2 the reader runs on a thread of its own, a few batches ahead of the
// importer: on two cores the numbers are parsed while the previous batch is imported.
// The importer makes the same calls in the same order either way, so the store is the same.
//
// Only lines the importer's own parser accepts with the same values are parsed here
// (digits only, no sign, at most 18 digits, the record's exact layout, event values that
// are integers); every other line (the header, comments, communicator lines, empty lines,
// anything malformed) is passed as text (LineKind::Text) and the importer reads it as it
// reads any line (handleLine), so its errors and counts stay what they were.
//
// Memory: at most kQueuedBatches batches, each about GzipReader::kBlockBytes of text plus
// its numbers (a few bytes of numbers per byte of text at most).

#include "storage/store/progress.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
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
    TextBuffer text;
    std::vector<BatchLine> lines;
    std::vector<std::int64_t> numbers;
    /// The file's last line had no '\n': it is lines.back(), to be read with feedLast().
    bool unterminatedLast = false;
    bool last = false;  ///< nothing follows this batch
    bool truncated = false;  ///< (last batch) the compressed file ended early
    std::uint64_t fileBytesRead = 0;  ///< for progress
    std::uint64_t bytesRead = 0;  ///< uncompressed bytes up to the end of this batch
    std::exception_ptr error;  ///< reading failed after the lines of this batch
};

/// Parses one line (without '\n') into `batch`; bytes up to `limit` (the end of the text
/// the line lies in, which ends it with a '\n' unless it is the text's last) may be read.
void parseLine(const char* begin, const char* end, const char* limit, RecordBatch& batch);

class RecordBatchReader
{
public:
    static constexpr std::size_t kQueuedBatches = 3;

    /// Opens `prv` (InputError when it cannot be read). `threads` >= 2: reads ahead on a
    /// thread of its own.
    RecordBatchReader(const std::filesystem::path& prv, int threads);
    ~RecordBatchReader();
    RecordBatchReader(const RecordBatchReader&) = delete;
    RecordBatchReader& operator=(const RecordBatchReader&) = delete;

    std::uint64_t fileSizeBytes() const { return m_fileSizeBytes; }
    /// The next batch; the previous one is recycled. Rethrows nothing: an error rides on
    /// the batch (RecordBatch::error), after its lines.
    const RecordBatch& next();

private:
    void fill(RecordBatch& batch);
    void produce();

    std::unique_ptr<GzipReader> m_reader;
    std::uint64_t m_fileSizeBytes = 0;
    TextBuffer m_carry;  ///< the start of a line cut by the end of the last read
    bool m_done = false;  ///< the last batch was made
    std::unique_ptr<RecordBatch> m_current;
    // Read-ahead (threads >= 2): batches made, batches free, and the thread making them.
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<std::unique_ptr<RecordBatch>> m_ready;
    std::vector<std::unique_ptr<RecordBatch>> m_free;
    bool m_stop = false;
    std::thread m_thread;
};

}  // namespace strata::storage::paraver_detail
