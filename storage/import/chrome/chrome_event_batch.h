#pragma once
// Scans a stretch of the traceEvents array on several threads at once, for
// ChromeEventReader: the part of reading a big Chrome/Kineto file that costs the most
// (checking each event's syntax and listing its members) is spread over the cores, while
// the importers still see the events one by one, in file order.
//
// How the stretch is split: it is cut into one range per thread, each range starting at a
// guessed event start (a '{' after "}," with any white space between). A guess can be
// wrong (that text inside a string, or an object inside an array of "args"), so each guess
// is checked: range i+1 counts only when range i (itself checked) ended exactly where
// range i+1 began. The first range starts at a true event start, so the events returned
// are exactly those a sequential reader would read; a wrong guess only costs the work of
// the ranges after it (they are dropped, and the reader goes on from there).
//
// What stops a range: an event that is incomplete (the stretch ends inside it), malformed,
// or followed by anything but ',' (such as ']'). The events before it are returned; the
// reader then reads on from the last returned event sequentially, which reports the error,
// the end of the array or the truncation exactly as it does without batches.

#include "storage/import/chrome/chrome_event_reader.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

namespace strata::storage {

/// One event of a batch: where it is in the scanned text, and its members.
struct ScannedEvent
{
    std::size_t offset = 0;  ///< of its '{'
    std::size_t length = 0;  ///< up to and including its '}'
    ChromeEventFields event;
};

/// The events of a batch: one run per thread's range, in text order. The vectors keep
/// their capacity from batch to batch (a batch is about 60 k events).
struct EventBatch
{
    std::vector<std::vector<ScannedEvent>> ranges;
    std::size_t rangeCount = 0;  ///< ranges[0, rangeCount) hold the batch

    std::size_t size() const;
    bool empty() const { return size() == 0; }
    const ScannedEvent& back() const;  ///< the last event (the batch is not empty)
};

/// One batch being scanned: its ranges are taken one by one by the threads that work() on
/// it, then finish() waits for the last and sorts out which ranges count.
class BatchScan
{
public:
    static constexpr std::size_t kRangesPerThread = 4;

    BatchScan(std::string_view text, int threads, EventBatch& out, bool listOnly);
    /// Scans ranges while some are left (from any number of threads).
    void work();
    /// Once every range was taken: waits for them, then sets out.rangeCount.
    void finish();

private:
    std::string_view m_text;
    bool m_listOnly = false;
    EventBatch& m_out;
    std::vector<std::size_t> m_starts;
    std::vector<std::size_t> m_next;  ///< where range i's next event would start
    std::atomic<std::size_t> m_taken { 0 };
    std::atomic<std::size_t> m_finished { 0 };
};

/// Fills `out` with the events of `text` (which starts at an event's '{'), in order, as a
/// sequential reader reads them, scanned on up to `threads` threads (the caller's
/// included). Views point into `text`. Never throws for bad input: it stops before it.
/// `listOnly`: the events are listed (listJsonObject()), their syntax not checked.
void scanEventBatch(std::string_view text, int threads, EventBatch& out, bool listOnly = false);

/// The same for the events after the event that ends at text[0] (past "," and white
/// space); returns where the first one starts (out is empty when none follows there).
std::size_t scanAfterEvent(
    std::string_view text, int threads, EventBatch& out, bool listOnly = false);

/// Where an event may start at or after `from`: a '{' whose previous non-space characters
/// are "}" then ","; npos when there is none before `text`'s end.
std::size_t guessEventStart(std::string_view text, std::size_t from);

/// What ChromeEventReader keeps to read by batches (see chrome_event_batch.cpp).
struct ChromeEventReader::Batches
{
    int threads = 2;
    std::size_t window = 0;  ///< bytes of text a batch is scanned from
    EventBatch batch;  ///< views into m_buf, from `base` on
    std::size_t range = 0;  ///< the next event: batch.ranges[range][next]
    std::size_t next = 0;
    std::size_t base = 0;
    bool startAhead = false;  ///< the next call starts scanning ahead
    std::vector<char> spare;
    std::size_t spareLen = 0;
    std::uint64_t spareBase = 0;  ///< stream offset of spare[0]
    bool spareEof = false;  ///< the input ended while the spare was filled
    std::size_t aheadFrom = 0;  ///< a mapped input: where the batch ahead was scanned from
    std::size_t aheadStart = 0;  ///< and where its first event starts, after aheadFrom
    EventBatch aheadBatch;  ///< views into `spare` from the start `ahead` gives (or mapped)
    std::unique_ptr<BatchScan> aheadScan;  ///< a mapped input's batch ahead
    std::vector<std::jthread> aheadHelpers;  ///< scanning it; joined before it goes
    std::future<std::size_t> ahead;  ///< last: waited for before the above go

    /// A batch is being scanned ahead (switchToAhead takes it).
    bool aheadPending() const { return ahead.valid() || aheadScan != nullptr; }

    /// Moves (range, next) past ranges already handed out.
    void settle();
    /// Every event of the batch is handed out (once settled).
    bool used() const { return range >= batch.rangeCount; }
};

}  // namespace strata::storage
