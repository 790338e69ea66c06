#pragma once
// ChromeEventReader walks a Chrome Trace Event JSON file (object form {"traceEvents": [...],
// ...} or bare array form [...]) one event at a time, with bounded memory: it keeps a
// window of the uncompressed stream, finds each event object's extent, and hands out the
// event's top-level members as views into that window. Nothing else of the file is held.
// A file that is not gzip can instead be read in place (mapInput): the window is then the
// whole mapped file, no byte is copied, and the pages already read are given back as the
// reader moves on (4 MB at a time), so its memory stays bounded too. Mapped, the file must
// not shrink while it is read.
//
// How it parses: scanJsonObject() (json_scan.h) validates an event and records its
// top-level members while it finds where the event ends, so each byte is looked at once.
// Nested values (an event's "args") stay raw JSON text; importers scan them again only
// when they need their members. The members go straight into ChromeEventFields as they are
// found (scanChromeEvent). A reader told to list only (setListOnly: pass 1 of an import,
// whose pass 2 checks the same bytes) lists the members with listJsonObject() instead,
// which skips nested values by their brackets.
//
// Errors: malformed JSON throws InputError "FILE: byte N: expected ..." with N the offset
// in the uncompressed stream. A file that ends early (an event cut in the middle, the array
// or the top-level object never closed) is not an error: next() returns false after the
// last whole event and truncated() says what was missing.
//
// Cost: O(file size) time, memory O(largest event + window). Top-level members other than
// traceEvents are skipped while streaming (kept as raw text up to kMaxTopLevelBytes each
// when asked), so multi-megabyte extras such as VizTracer's embedded sources cost nothing.

#include "storage/import/chrome/json_scan.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata::storage {

class GzipReader;

/// The members of an event that importers read, as raw JSON text ("\"X\"", "12.5",
/// "{...}"); empty when absent (the first one when repeated).
struct ChromeEventFields
{
    std::string_view ph;
    std::string_view name;
    std::string_view cat;
    std::string_view pid;
    std::string_view tid;
    std::string_view ts;
    std::string_view dur;
    std::string_view id;
    std::string_view id2;
    std::string_view bp;
    std::string_view args;
    /// No backslash anywhere in the event's text (the checked scan saw no escape, or
    /// notePlain()): a string member needs no unescaping.
    bool plain = false;
    /// No white space outside the event's strings (the checked scan saw none): every
    /// member's value is minified JSON as it stands. False when not known.
    bool minified = false;

    /// Sets `plain` from the event's text, once its members are classified.
    void notePlain(std::string_view text)
    {
        plain = std::memchr(text.data(), '\\', text.size()) == nullptr;
    }

    /// jsonString() of one of these members: the text between its quotes when the event
    /// is plain. (jsonString looked for escapes in each of the ~5 strings read from every
    /// event, ~4 % of a JSON ingest's instructions; one memchr over the event costs less.)
    std::optional<std::string_view> string(std::string_view member, std::string& scratch) const
    {
        if (plain && member.size() >= 2 && member.front() == '"' && member.back() == '"')
            return member.substr(1, member.size() - 2);
        return jsonString(member, scratch);
    }
};

/// Sorts an event's members into the slots importers read (the first of a repeated key).
void classifyChromeFields(const std::vector<JsonField>& fields, ChromeEventFields& event);
/// One member into its slot, if it has one (and it is the first with its key).
void addChromeField(ChromeEventFields& event, const JsonField& field);

/// scanJsonObject() (or with `listOnly`, listJsonObject()) of the event at text[0], its
/// members sorted into `event` as they are found; returns the event's length, 0 when the
/// text ends first.
std::size_t scanChromeEvent(std::string_view text, bool listOnly, ChromeEventFields& event);

class ChromeEventReader
{
public:
    static constexpr std::size_t kMaxTopLevelBytes = std::size_t(1) << 20;

    /// Reads from `input`; `fileName` names the file in errors. With `keepTopLevel`, the
    /// small top-level members besides traceEvents are kept (see topLevel()).
    ChromeEventReader(GzipReader& input, std::string fileName, bool keepTopLevel);
    ~ChromeEventReader();

    /// Scans events ahead on `threads` threads (chrome_event_batch.h); the events are still
    /// handed out one by one, in file order, exactly as with one thread. A mapped input's
    /// batch ahead is scanned by threads - 1 of them while the caller works on the current
    /// batch, the caller's thread joining them when it reaches the batch: with `threads`
    /// of them the scan took the caller's core while both ran.
    void setScanThreads(int threads);

    /// Events are only listed by listJsonObject(), which skips what it does not need
    /// without checking it (pass 1 of an import: its pass 2 reads the same bytes and
    /// checks them). A malformed event may then be listed with odd members, or throw the
    /// syntax error scanJsonObject() finds in it.
    void setListOnly(bool listOnly) { m_listOnly = listOnly; }

    /// Reads the input in place when it can be mapped (GzipReader::mapContent: a file that
    /// is not gzip), instead of copying it through a window; false when it cannot. Call it
    /// before the first next(), after setScanThreads().
    bool mapInput();

    /// Reads from inside the traceEvents array: `input` starts at byte `offset` of the file,
    /// where an event starts (found by a reader that read up to there), and that event is
    /// the array's `index`-th. For one file read in parts by several processes (app/mpi/).
    void startInArray(std::uint64_t offset, bool bareArray, std::uint64_t index);
    /// next() returns false at an event that starts at or after byte `offset`, which is
    /// left unread (stopped() then tells, and position() is its offset).
    void stopAt(std::uint64_t offset) { m_stopAt = offset; }
    bool stopped() const { return m_stopped; }

    /// Moves to the next event of the traceEvents array; false at its end (or at the end
    /// of a truncated file). After false, the rest of the top-level object has been read.
    bool next();

    /// The members of the current event that importers read (valid until the next call
    /// to next()).
    const ChromeEventFields& event() const { return *m_current; }
    /// Offset of the current event in the uncompressed stream, and its index in the array.
    std::uint64_t eventOffset() const { return m_eventOffset; }
    std::uint64_t eventIndex() const { return m_eventIndex; }

    /// True for the bare array form.
    bool bareArray() const { return m_bareArray; }
    /// True when the file ended before the trace was complete; truncation() says how.
    bool truncated() const { return !m_truncation.empty(); }
    const std::string& truncation() const { return m_truncation; }
    /// A note about an unusual but accepted ending (a bare array without its ']'), or empty.
    const std::string& endNote() const { return m_endNote; }
    /// Top-level members other than traceEvents (raw JSON, values up to kMaxTopLevelBytes),
    /// in file order, when asked for; complete once next() has returned false.
    const std::vector<std::pair<std::string, std::string>>& topLevel() const { return m_topLevel; }
    /// Uncompressed bytes consumed so far.
    std::uint64_t position() const { return m_base + m_pos; }

    /// Throws InputError "FILE: byte OFFSET: WHAT".
    [[noreturn]] void fail(std::uint64_t offset, const std::string& what) const;

private:
    enum class State {
        Start,
        TopKeyOrEnd,  // after '{'
        TopKey,  // after ','
        TopCommaOrEnd,  // after a member's value
        ArrayFirst,  // after '['
        ArrayNext,  // after ','
        ArrayCommaOrEnd,  // after an event
        ArrayClosed,  // after ']'
        Finished,
    };

    bool refill();  // reads more, keeping [m_pos, m_len); false at the end of input
    int peekNonSpace();  // the next non-space byte, or -1 at the end of input
    int peekNonSpaceAfterRefill();  // peekNonSpace() once the window holds only white space
    bool readTopKey(std::string& key);
    bool skipTopValue(std::string* keep);
    bool readEvent();
    // Batches (chrome_event_batch.cpp): the next event of the batch, scanning new ones.
    struct Batches;
    bool takeScanned();
    void scanAhead();
    void switchToAhead();
    void dropBatch();
    std::size_t readInput(char* to, std::size_t bytes);
    std::size_t readInput(char* to, std::size_t bytes, bool& eof);
    void finishTopLevel();
    void endOfInput(const char* what);

    GzipReader& m_input;
    std::string m_fileName;
    bool m_keepTopLevel = false;
    bool m_listOnly = false;
    static constexpr std::uint64_t kReleaseStepBytes = std::uint64_t(4) << 20;

    std::vector<char> m_buf;  // the window, when the input is read (not mapped)
    const char* m_data = nullptr;  // the window: m_buf's bytes, or the mapped input's
    bool m_mapped = false;
    std::uint64_t m_releasedTo = 0;  // of the mapped input
    std::size_t m_pos = 0;
    std::size_t m_len = 0;
    std::uint64_t m_base = 0;  // stream offset of m_buf[0]
    bool m_eof = false;
    State m_state = State::Start;
    bool m_bareArray = false;
    bool m_sawEvents = false;
    ChromeEventFields m_event;  // of an event read one by one
    const ChromeEventFields* m_current = &m_event;  // m_event, or a batch's event
    std::uint64_t m_eventOffset = 0;
    std::uint64_t m_eventIndex = 0;
    std::uint64_t m_nextIndex = 0;
    std::string m_truncation;
    std::string m_endNote;
    std::vector<std::pair<std::string, std::string>> m_topLevel;
    std::unique_ptr<Batches> m_batches;  // with more than one scan thread
    std::uint64_t m_stopAt = UINT64_MAX;
    bool m_stopped = false;
};

}  // namespace strata::storage
