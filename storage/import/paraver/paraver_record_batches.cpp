#include "storage/import/paraver/paraver_record_batches.h"

#include "storage/import/common/gzip_reader.h"

#include <bit>
#include <cstring>

namespace strata::storage::paraver_detail {

namespace {

constexpr std::uint64_t kPow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
    100000000 };

/// The value of the first `n` (1..8) decimal digits of the 8 bytes `chunk` (the first
/// character in the lowest byte), eight at once: shifted so that they end the word, the
/// bytes before them count as leading zeros (Lemire's parse_eight_digits_unrolled).
inline std::uint64_t digitsValue(std::uint64_t chunk, int n)
{
    std::uint64_t v = (chunk - 0x3030303030303030ULL) << (8 * (8 - n));
    v = (v * 10) + (v >> 8);
    return (((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32)))
               + (((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32))))
        >> 32;
}

/// The high bit of each byte of `chunk` that is not a decimal digit. A byte b is a digit
/// when (b ^ '0') < 10: then neither it nor b ^ '0' + 0x76 has its high bit. A carry out
/// of a non-digit's byte only spoils the bytes after it.
inline std::uint64_t nonDigits(std::uint64_t chunk)
{
    const std::uint64_t x = chunk ^ 0x3030303030303030ULL;
    return ((x + 0x7676767676767676ULL) | x) & 0x8080808080808080ULL;
}

/// digits() past its first 8 bytes, or near `limit`: 8 bytes at a time while they last
/// (a line ends in '\n', no digit), then one by one. A digit at a time was most of the
/// parse (7 instructions a character).
[[gnu::noinline]] bool longDigits(const char*& p, const char* limit, std::int64_t& value)
{
    std::uint64_t v = 0;
    int total = 0;
    while (limit - p >= 8) {
        std::uint64_t chunk;
        std::memcpy(&chunk, p, 8);
        const std::uint64_t other = nonDigits(chunk);
        const int n = other == 0 ? 8 : std::countr_zero(other) / 8;
        if (n > 0) {
            v = v * kPow10[n] + digitsValue(chunk, n);
            total += n;
            p += n;
        }
        if (n < 8 || total > 18)
            return total > 0 && total <= 18 && (value = static_cast<std::int64_t>(v), true);
    }
    while (p != limit && static_cast<unsigned>(*p - '0') < 10 && total <= 18) {
        v = v * 10 + static_cast<unsigned>(*p - '0');
        ++p;
        ++total;
    }
    if (total == 0 || total > 18)  // 18 digits never overflow
        return false;
    value = static_cast<std::int64_t>(v);
    return true;
}

/// Reads a number of 1 to 18 digits (no sign: a '-' is left to the importer's parser,
/// which says what it expected) and moves `p` past it. Bytes up to `limit` may be read
/// beyond the number. The numbers of a trace mostly have up to 15 digits (ids, times, event
/// types of 8, values): those are read from one or two 8-byte loads, and a single digit
/// (the ids, most values) without the multiplications; longer ones, and numbers near
/// `limit`, are longDigits'. (A loop for all was ~64 instructions a number, the largest
/// item of the parse.) `Near`: `limit` may lie within 16 bytes of `p`; lines further from
/// it (all but a batch's last) skip the check.
template<bool Near>
[[gnu::always_inline]] inline bool digits(const char*& p, const char* limit, std::int64_t& value)
{
    if (!Near || limit - p >= 16) [[likely]] {
        std::uint64_t chunk;
        std::memcpy(&chunk, p, 8);
        if (const std::uint64_t other = nonDigits(chunk); other != 0) {
            const int n = std::countr_zero(other) / 8;
            if (n == 0)
                return false;
            // ('0'..'9' are 0x30..0x39: a digit's low nibble is its value.)
            value = static_cast<std::int64_t>(n == 1 ? (chunk & 0xF) : digitsValue(chunk, n));
            p += n;
            return true;
        }
        std::uint64_t next;
        std::memcpy(&next, p + 8, 8);
        if (const std::uint64_t other = nonDigits(next); other != 0) {
            const int n = std::countr_zero(other) / 8;
            const std::uint64_t high = digitsValue(chunk, 8);
            value =
                static_cast<std::int64_t>(n == 0 ? high : high * kPow10[n] + digitsValue(next, n));
            p += 8 + n;
            return true;
        }
    }
    return longDigits(p, limit, value);
}

/// `Count` numbers separated by ':', the last one ending the line, written at `out`.
template<int Count, bool Near>
bool fieldsToEnd(const char* p, const char* end, const char* limit, std::int64_t*& out)
{
    for (int i = 0; i < Count; ++i) {
        if (!digits<Near>(p, limit, *out))
            return false;
        ++out;
        if (i + 1 < Count) {
            if (p == end || *p != ':')
                return false;
            ++p;
        }
    }
    return p == end;
}

/// 2:cpu:appl:task:thread:time:type:value[:type:value...] with integer values and types
/// below 2^40 (handleEvent's limit), written at `out`.
template<bool Near>
bool eventFields(
    const char* p, const char* end, const char* limit, std::int64_t*& out, std::uint32_t& pairs)
{
    for (int i = 0; i < 5; ++i) {
        if (!digits<Near>(p, limit, *out) || p == end || *p != ':')
            return false;
        ++out;
        ++p;
    }
    pairs = 0;
    for (;;) {
        if (!digits<Near>(p, limit, out[0]) || out[0] >= (std::int64_t(1) << 40) || p == end
            || *p != ':')
            return false;
        ++p;
        if (!digits<Near>(p, limit, out[1]))
            return false;
        out += 2;
        ++pairs;
        if (p == end)
            return true;
        if (*p != ':' || ++p == end)
            return false;  // a trailing ':' is an error the importer words
    }
}

/// The numbers of a record, by its kind.
template<bool Near>
bool recordFields(LineKind kind, const char* p, const char* end, const char* limit,
    std::int64_t*& out, std::uint32_t& pairs)
{
    switch (kind) {
    case LineKind::State:
        return fieldsToEnd<7, Near>(p, end, limit, out);
    case LineKind::Event:
        return eventFields<Near>(p, end, limit, out, pairs);
    case LineKind::Communication:
        return fieldsToEnd<14, Near>(p, end, limit, out);
    case LineKind::Text:
        break;
    }
    return false;
}

}  // namespace

void parseLine(
    const char* begin, const char* end, const char* limit, RecordBatch& batch, std::int64_t*& out)
{
    BatchLine& line = batch.lines.emplace_back();
    line.begin = begin;
    line.end = end;
    if (end > begin && end[-1] == '\r')
        --end;
    if (end - begin < 2 || begin[1] != ':')
        return;
    std::int64_t* const first = out;
    line.firstNumber = static_cast<std::uint32_t>(first - batch.numbers.data());
    switch (*begin) {
    case '1':
        line.kind = LineKind::State;
        break;
    case '2':
        line.kind = LineKind::Event;
        break;
    case '3':
        line.kind = LineKind::Communication;
        break;
    default:
        return;
    }
    // Numbers are read from `end` at most (a non-digit ends the line): with 16 bytes of
    // text after it, every 16-byte read of them lies in the text.
    const bool parsed = limit - end >= 16
        ? recordFields<false>(line.kind, begin + 2, end, limit, out, line.pairs)
        : recordFields<true>(line.kind, begin + 2, end, limit, out, line.pairs);
    if (!parsed) {
        line.kind = LineKind::Text;
        line.pairs = 0;
        out = first;
    }
}

RecordBatchReader::RecordBatchReader(const std::filesystem::path& prv, int threads)
    : m_reader(std::make_unique<GzipReader>(prv, true))
    , m_fileSizeBytes(m_reader->fileSizeBytes())
    , m_mapped(m_reader->mapContent())
{
    if (threads < 2)
        return;
    for (std::size_t i = 0; i < kQueuedBatches; ++i)
        m_free.push_back(std::make_unique<RecordBatch>());
    // The importer's thread is the slower side: one thread fewer parses ahead, so that
    // the parsing never takes a core from it.
    for (int i = 0; i < threads - 1; ++i)
        m_threads.emplace_back([this] { work(); });
}

RecordBatchReader::~RecordBatchReader()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_cv.notify_all();
    for (std::thread& t : m_threads)
        t.join();
}

void RecordBatchReader::read(RecordBatch& batch)
{
    batch.lines.clear();
    batch.numbers.clear();
    batch.unterminatedLast = false;
    batch.truncated = false;
    batch.error = nullptr;
    if (!m_mapped.empty()) {
        // A block's worth of the mapping, to its last '\n' (or on, for a longer line).
        // The batch that reaches the end takes the file's last line, '\n' or not.
        const std::string_view rest = m_mapped.substr(m_mappedPos);
        std::size_t size = std::min(rest.size(), GzipReader::kBlockBytes);
        std::size_t lineEnd = 0;
        for (;;) {
            const void* nl = memrchr(rest.data(), '\n', size);
            lineEnd =
                nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - rest.data()) + 1 : 0;
            if (size == rest.size())
                break;
            if (nl) {
                size = lineEnd;  // whole lines; the rest starts the next batch
                break;
            }
            size = std::min(rest.size(), size + GzipReader::kBlockBytes);
        }
        batch.last = m_mappedPos + size == m_mapped.size();
        batch.text.clear();
        batch.data = rest.data();
        batch.size = size;
        batch.lineEnd = lineEnd;
        batch.offset = m_mappedPos;
        m_mappedPos += size;
        batch.fileBytesRead = m_mappedPos;
        batch.bytesRead = m_mappedPos;
        return;
    }
    batch.text.assign(m_carry.begin(), m_carry.end());
    m_carry.clear();
    bool eof = false;
    std::size_t lineEnd = 0;  // just past the batch's last '\n'
    try {
        for (;;) {
            const std::size_t old = batch.text.size();
            batch.text.resize(old + GzipReader::kBlockBytes);
            const std::size_t got =
                m_reader->read(batch.text.data() + old, GzipReader::kBlockBytes);
            batch.text.resize(old + got);
            if (got == 0) {
                eof = true;
                break;
            }
            if (const void* nl = memrchr(batch.text.data() + old, '\n', got)) {
                lineEnd =
                    static_cast<std::size_t>(static_cast<const char*>(nl) - batch.text.data()) + 1;
                break;
            }
            // No '\n' yet: a line longer than a block; read on.
        }
    } catch (...) {
        batch.error = std::current_exception();
    }
    batch.lineEnd = lineEnd;
    batch.last = eof || batch.error;
    if (batch.last) {
        // What follows the last '\n' is the file's last line (parseLines), unless reading
        // failed: then it is dropped, as a line cut short.
        if (batch.error)
            batch.text.resize(lineEnd);
        else
            batch.truncated = m_reader->truncated();
    } else {
        m_carry.assign(batch.text.begin() + static_cast<std::ptrdiff_t>(lineEnd), batch.text.end());
        batch.text.resize(lineEnd);  // no reallocation: the text stays where it is
    }
    batch.fileBytesRead = m_reader->fileBytesRead();
    batch.bytesRead = m_reader->bytesRead();
    batch.data = batch.text.data();
    batch.size = batch.text.size();
}

namespace {

/// Cuts a batch's text into lines and parses them.
void parseLines(RecordBatch& batch)
{
    const char* line = batch.data;
    const char* stop = line + batch.lineEnd;
    const char* end = batch.data + batch.size;
    // Room for every number the text can hold (a digit and a ':' or the line's end
    // each), so that they are stored without a capacity check each; not cleared first.
    batch.numbers.resize(batch.size / 2 + 1);
    std::int64_t* out = batch.numbers.data();
    while (line < stop) {
        const char* nl =
            static_cast<const char*>(std::memchr(line, '\n', std::size_t(stop - line)));
        parseLine(line, nl, end, batch, out);
        line = nl + 1;
    }
    if (line < end) {
        parseLine(line, end, end, batch, out);
        batch.lines.back().kind = LineKind::Text;  // read by feedLast, which may drop it
        batch.unterminatedLast = true;
    }
    batch.numbers.resize(static_cast<std::size_t>(out - batch.numbers.data()));
}

}  // namespace

void RecordBatchReader::work()
{
    for (;;) {
        std::unique_ptr<RecordBatch> batch;
        {
            std::unique_lock lock(m_mutex);
            m_cv.wait(lock, [&] { return m_stop || !m_free.empty(); });
            if (m_stop)
                return;
            batch = std::move(m_free.back());
            m_free.pop_back();
        }
        std::uint64_t number = 0;
        {
            std::lock_guard lock(m_readMutex);
            if (m_readEnded)
                return;  // (the batch is not needed any more)
            number = m_nextRead++;
            if (!m_mapped.empty())  // what was imported, given back off the importer's thread
                m_reader->releaseMapped(m_importedTo.load(std::memory_order_relaxed));
            read(*batch);
            m_readEnded = batch->last;
        }
        parseLines(*batch);
        {
            std::lock_guard lock(m_mutex);
            m_ready.emplace(number, std::move(batch));
        }
        m_cv.notify_all();
    }
}

const RecordBatch& RecordBatchReader::next()
{
    if (m_done)
        throw std::logic_error("RecordBatchReader::next after the last batch");
    if (m_threads.empty()) {
        if (!m_current)
            m_current = std::make_unique<RecordBatch>();
        read(*m_current);
        parseLines(*m_current);
    } else {
        std::unique_lock lock(m_mutex);
        if (m_current)
            m_free.push_back(std::move(m_current));
        m_cv.notify_all();
        m_cv.wait(lock, [&] { return m_ready.count(m_nextOut) > 0; });
        auto it = m_ready.find(m_nextOut++);
        m_current = std::move(it->second);
        m_ready.erase(it);
    }
    m_done = m_current->last;
    if (!m_mapped.empty()) {  // the batches before this one are imported
        if (m_threads.empty())
            m_reader->releaseMapped(m_current->offset);
        else
            m_importedTo.store(m_current->offset, std::memory_order_relaxed);
    }
    return *m_current;
}

}  // namespace strata::storage::paraver_detail
