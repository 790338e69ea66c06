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

#include <cstddef>
#include <string_view>
#include <vector>

namespace strata::storage {

/// One event of a batch: where it is in the scanned text, and its members.
struct ScannedEvent
{
    std::size_t offset = 0;  ///< of its '{'
    std::size_t length = 0;  ///< up to and including its '}'
    std::size_t firstField = 0;  ///< its members: EventBatch::fields[firstField, +fieldCount)
    std::size_t fieldCount = 0;
    ChromeEventFields event;
};

struct EventBatch
{
    std::vector<ScannedEvent> events;  ///< in text order
    std::vector<JsonField> fields;  ///< views into the scanned text
};

/// The events of `text` (which starts at an event's '{'), in order, as a sequential reader
/// reads them, scanned on up to `threads` threads (the caller's included). Views point
/// into `text`. Never throws for bad input: it stops before it.
EventBatch scanEventBatch(std::string_view text, int threads);

/// Where an event may start at or after `from`: a '{' whose previous non-space characters
/// are "}" then ","; npos when there is none before `text`'s end.
std::size_t guessEventStart(std::string_view text, std::size_t from);

}  // namespace strata::storage
