#include "storage/import/chrome/chrome_event_batch.h"

#include "storage/import/common/gzip_reader.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace strata::storage {

namespace {

/// Text each scanning thread gets per batch: large enough that starting the threads
/// costs nothing next to the scan (about 30 k Kineto events).
constexpr std::size_t kBatchBytesPerThread = std::size_t(4) << 20;

inline bool isSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::size_t skipSpace(std::string_view text, std::size_t pos)
{
    while (pos < text.size() && isSpace(text[pos]))
        ++pos;
    return pos;
}

/// The events of one range into `out`: from `start` (an event's '{', or a guess of one)
/// while events start before `limit`. Returns where the next event starts once the range
/// is done (after "," and white space), or npos when it stopped early (see the file
/// comment of the header).
std::size_t scanRange(std::string_view text, std::size_t start, std::size_t limit,
    std::vector<ScannedEvent>& out, bool listOnly)
{
    constexpr std::size_t kStopped = std::string_view::npos;
    out.clear();
    std::size_t pos = start;
    while (pos < limit) {
        if (text[pos] != '{')
            return kStopped;
        ScannedEvent& e = out.emplace_back();
        std::size_t n = 0;
        try {
            n = scanChromeEvent(text.substr(pos), listOnly, e.event);
        } catch (const JsonSyntaxError&) {
            n = 0;
        }
        if (n == 0) {
            out.pop_back();
            return kStopped;
        }
        e.offset = pos;
        e.length = n;
        pos = skipSpace(text, pos + n);
        if (pos == text.size() || text[pos] != ',')
            return kStopped;
        pos = skipSpace(text, pos + 1);
    }
    return pos;
}

}  // namespace

std::size_t EventBatch::size() const
{
    std::size_t n = 0;
    for (std::size_t r = 0; r < rangeCount; ++r)
        n += ranges[r].size();
    return n;
}

const ScannedEvent& EventBatch::back() const
{
    for (std::size_t r = rangeCount; r-- > 0;) {
        if (!ranges[r].empty())
            return ranges[r].back();
    }
    throw std::logic_error("EventBatch::back() of an empty batch");
}

std::size_t guessEventStart(std::string_view text, std::size_t from)
{
    while (from < text.size()) {
        const void* hit = std::memchr(text.data() + from, '{', text.size() - from);
        if (!hit)
            return std::string_view::npos;
        const std::size_t brace =
            static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
        std::size_t p = brace;
        while (p > 0 && isSpace(text[p - 1]))
            --p;
        if (p > 0 && text[p - 1] == ',') {
            --p;
            while (p > 0 && isSpace(text[p - 1]))
                --p;
            if (p > 0 && text[p - 1] == '}')
                return brace;
        }
        from = brace + 1;
    }
    return std::string_view::npos;
}

BatchScan::BatchScan(std::string_view text, int threads, EventBatch& out, bool listOnly)
    : m_text(text)
    , m_listOnly(listOnly)
    , m_out(out)
{
    // Range starts: the true start, then guesses, each after the previous one. More
    // ranges than threads, taken one by one: a thread that ends its range early takes
    // another, and ranges of unequal cost even out.
    m_starts.push_back(0);
    const std::size_t ranges = static_cast<std::size_t>(std::max(1, threads)) * kRangesPerThread;
    for (std::size_t i = 1; i < ranges && threads > 1; ++i) {
        const std::size_t target = std::max(m_starts.back() + 1, text.size() * i / ranges);
        const std::size_t guess = guessEventStart(text, target);
        if (guess == std::string_view::npos)
            break;
        m_starts.push_back(guess);
    }
    if (out.ranges.size() < m_starts.size())
        out.ranges.resize(m_starts.size());
    m_next.resize(m_starts.size());
}

void BatchScan::work()
{
    for (std::size_t i; (i = m_taken.fetch_add(1)) < m_starts.size();) {
        const std::size_t limit = i + 1 < m_starts.size() ? m_starts[i + 1] : m_text.size();
        m_next[i] = scanRange(m_text, m_starts[i], limit, m_out.ranges[i], m_listOnly);
        if (m_finished.fetch_add(1) + 1 == m_starts.size())
            m_finished.notify_all();
    }
}

void BatchScan::finish()
{
    for (std::size_t f = m_finished.load(); f < m_starts.size(); f = m_finished.load())
        m_finished.wait(f);
    // Range i counts when range i - 1 counts and ended exactly where range i began.
    m_out.rangeCount = 1;
    while (m_out.rangeCount < m_starts.size()
        && m_next[m_out.rangeCount - 1] == m_starts[m_out.rangeCount])
        ++m_out.rangeCount;
}

void scanEventBatch(std::string_view text, int threads, EventBatch& out, bool listOnly)
{
    BatchScan scan(text, threads, out, listOnly);
    {
        std::vector<std::jthread> helpers;
        for (int i = 1; i < threads; ++i)
            helpers.emplace_back([&scan] { scan.work(); });
        scan.work();
    }
    scan.finish();
}

/// Where the event after the one that ends at text[0] starts (past "," and white space);
/// 0 when no event follows there.
std::size_t nextEventStart(std::string_view text)
{
    std::size_t p = skipSpace(text, 0);
    if (p == text.size() || text[p] != ',')
        return 0;
    p = skipSpace(text, p + 1);
    return p < text.size() && text[p] == '{' ? p : 0;
}

std::size_t scanAfterEvent(std::string_view text, int threads, EventBatch& out, bool listOnly)
{
    out.rangeCount = 0;
    const std::size_t p = nextEventStart(text);
    if (p > 0)
        scanEventBatch(text.substr(p), threads, out, listOnly);
    return p;
}

// The reader's side (ChromeEventReader::Batches). Two windows take turns: while the
// importer consumes the events of the current batch (views into the window), the next
// batch is scanned on other threads over the spare window, which holds the text after the
// current batch's last event and the input that follows it, read by the thread that scans
// it (one thread at a time reads the input: the importer's waits for the batch before it
// reads on). When the last event of a batch is handed out, the windows swap; the spare
// (the old window) keeps that event's views alive until the next batch is started.
//
// A mapped input (mapInput) is one window, the whole file: the batch ahead is scanned in
// place from the current batch's end, and nothing is copied or swapped.

void ChromeEventReader::Batches::settle()
{
    while (range < batch.rangeCount && next == batch.ranges[range].size()) {
        ++range;
        next = 0;
    }
}

ChromeEventReader::~ChromeEventReader() = default;

void ChromeEventReader::setScanThreads(int threads)
{
    if (threads <= 1) {
        m_batches.reset();
        return;
    }
    m_batches = std::make_unique<Batches>();
    m_batches->threads = threads;
    m_batches->window = kBatchBytesPerThread * static_cast<std::size_t>(threads);
    if (m_mapped)
        return;
    m_buf.resize(std::max(m_buf.size(), m_batches->window));
    m_data = m_buf.data();
    m_batches->spare.resize(m_buf.size());
}

std::size_t ChromeEventReader::readInput(char* to, std::size_t bytes)
{
    return readInput(to, bytes, m_eof);
}

std::size_t ChromeEventReader::readInput(char* to, std::size_t bytes, bool& eof)
{
    std::size_t done = 0;
    while (done < bytes && !eof) {
        const std::size_t n = m_input.read(to + done, bytes - done);
        eof = n == 0;
        done += n;
    }
    return done;
}

void ChromeEventReader::dropBatch()
{
    Batches& b = *m_batches;
    // Reading on while a batch is ahead would skip the input the spare took.
    if (b.aheadPending() || !b.used())
        throw std::logic_error("ChromeEventReader: the window moves while a batch is in use");
    b.batch.rangeCount = 0;
    b.range = b.next = 0;
}

bool ChromeEventReader::takeScanned()
{
    Batches& b = *m_batches;
    if (b.used()) {
        // No batch: scan one here (the first, or after the reader went on sequentially).
        if (!m_mapped && m_len - m_pos < m_buf.size() / 2)
            refill();
        b.base = m_pos;
        scanEventBatch(std::string_view(m_data + m_pos, std::min(m_len - m_pos, b.window)),
            b.threads, b.batch, m_listOnly);
        b.range = b.next = 0;
        b.settle();
        if (b.used())
            return false;  // read sequentially: a huge event, an error or the end
        b.startAhead = true;
    }
    if (b.startAhead) {
        b.startAhead = false;
        scanAhead();
    }
    const ScannedEvent& e = b.batch.ranges[b.range][b.next++];
    if (b.base + e.offset != m_pos)
        throw std::logic_error("ChromeEventReader: a scanned event is not where the reader is");
    m_current = &e.event;  // valid until the next batch starts: after the next next()
    m_eventOffset = position();
    m_eventIndex = m_nextIndex++;
    m_pos = b.base + e.offset + e.length;
    b.settle();
    if (b.used() && b.aheadPending())
        switchToAhead();
    return true;
}

void ChromeEventReader::scanAhead()
{
    Batches& b = *m_batches;
    const ScannedEvent& last = b.batch.back();
    const std::size_t end = b.base + last.offset + last.length;
    if (m_mapped) {
        // Scanned in place: the next window's worth of text after the batch, by threads - 1
        // threads while the importer converts this batch; the importer's thread then takes
        // the ranges left, if any, before it waits (switchToAhead). With `threads` of them
        // beside the importer's, the scheduler took its core while all three ran: in pass
        // 2, where the converter is the slower side, c500.json took 2.44 against 2.23 s.
        b.aheadFrom = end;
        const std::string_view text(m_data + end, std::min(m_len - end, b.window));
        b.aheadStart = nextEventStart(text);
        b.aheadBatch.rangeCount = 0;
        if (b.aheadStart == 0)
            return;  // no event follows in the window: read on sequentially
        b.aheadScan = std::make_unique<BatchScan>(
            text.substr(b.aheadStart), b.threads, b.aheadBatch, m_listOnly);
        // What lies before the current batch is done with (the last event handed out of
        // the batch before is past): given back, off the importer's thread.
        b.aheadHelpers.emplace_back([this, scan = b.aheadScan.get(), done = m_base + b.base] {
            m_input.releaseMapped(done);
            scan->work();
        });
        for (int i = 2; i < b.threads; ++i)
            b.aheadHelpers.emplace_back([scan = b.aheadScan.get()] { scan->work(); });
        return;
    }
    const std::size_t tail = m_len - end;
    if (b.spare.size() < tail + b.window / 2)
        b.spare.resize(tail + b.window / 2);
    std::memcpy(b.spare.data(), m_buf.data() + end, tail);
    b.spareBase = m_base + end;
    // The input is read on the scanning thread too, so that the importer's thread only
    // converts: nothing else reads it until the batch is taken (switchToAhead).
    b.spareEof = m_eof;
    b.ahead = std::async(std::launch::async, [this, &b, tail, listOnly = m_listOnly] {
        b.spareLen = tail + readInput(b.spare.data() + tail, b.spare.size() - tail, b.spareEof);
        return scanAfterEvent(
            std::string_view(b.spare.data(), b.spareLen), b.threads, b.aheadBatch, listOnly);
    });
}

void ChromeEventReader::switchToAhead()
{
    Batches& b = *m_batches;
    if (m_mapped) {
        b.aheadScan->work();
        b.aheadScan->finish();
        b.aheadHelpers.clear();  // joins them: they found no range left
        b.aheadScan.reset();
        // The reader stands at the end of the event just handed out, where the scan began.
        b.base = b.aheadFrom + b.aheadStart;
    } else {
        b.base = b.ahead.get();
        m_eof = b.spareEof;
        // The reader stands at the end of the event just handed out, which is spare[0].
        std::swap(m_buf, b.spare);
        m_data = m_buf.data();
        m_base = b.spareBase;
        m_pos = 0;
        m_len = b.spareLen;
    }
    std::swap(b.batch, b.aheadBatch);
    b.range = b.next = 0;
    b.settle();
    b.startAhead = !b.used();
}

}  // namespace strata::storage
