#include "storage/import/chrome/chrome_event_reader.h"

#include "storage/import/chrome/chrome_event_batch.h"
#include "storage/import/chrome/json_object_scanner.h"
#include "storage/import/common/gzip_reader.h"
#include "storage/store/input_error.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace strata::storage {

namespace {

constexpr std::size_t kInitialWindowBytes = std::size_t(2) << 20;

using json_scan_detail::isDigit;
using json_scan_detail::isSpace;

void setOnce(std::string_view& slot, std::string_view value)
{
    if (slot.empty())
        slot = value;
}

// Compares keys by length first. Inlined into the checked scan of scanChromeEvent().
[[gnu::always_inline]] inline void sortField(ChromeEventFields& event, const JsonField& f)
{
    const std::string_view k = f.key;
    switch (k.size()) {
    case 2:
        if (k[0] == 'p' && k[1] == 'h')
            setOnce(event.ph, f.value);
        else if (k[0] == 't' && k[1] == 's')
            setOnce(event.ts, f.value);
        else if (k[0] == 'i' && k[1] == 'd')
            setOnce(event.id, f.value);
        else if (k[0] == 'b' && k[1] == 'p')
            setOnce(event.bp, f.value);
        break;
    case 3:
        if (k == "pid")
            setOnce(event.pid, f.value);
        else if (k == "tid")
            setOnce(event.tid, f.value);
        else if (k == "cat")
            setOnce(event.cat, f.value);
        else if (k == "dur")
            setOnce(event.dur, f.value);
        else if (k == "id2")
            setOnce(event.id2, f.value);
        break;
    case 4:
        if (k == "name")
            setOnce(event.name, f.value);
        else if (k == "args")
            setOnce(event.args, f.value);
        break;
    default:
        break;
    }
}

}  // namespace

void addChromeField(ChromeEventFields& event, const JsonField& f)
{
    sortField(event, f);
}

void classifyChromeFields(const std::vector<JsonField>& fields, ChromeEventFields& event)
{
    event = ChromeEventFields {};
    for (const JsonField& f : fields)
        addChromeField(event, f);
}

std::size_t scanChromeEvent(std::string_view text, bool listOnly, ChromeEventFields& event)
{
    event = ChromeEventFields {};
    if (!listOnly) {
        // The checked scan with the members sorted inline (json_object_scanner.h).
        json_scan_detail::ScanNotes notes;
        const std::size_t n = json_scan_detail::scanObject(
            text, [&](const JsonField& f) { sortField(event, f); }, &notes);
        event.minified = !notes.spaced;
        event.plain = n > 0 && !notes.escaped;
        return n;
    }
    const JsonFieldSink sink { [](void* to, const JsonField& f) {
                                  addChromeField(*static_cast<ChromeEventFields*>(to), f);
                              },
        [](void* to) { *static_cast<ChromeEventFields*>(to) = ChromeEventFields {}; }, &event };
    const std::size_t n = listJsonObject(text, sink);
    if (n > 0)
        event.notePlain(text.substr(0, n));
    return n;
}

ChromeEventReader::ChromeEventReader(GzipReader& input, std::string fileName, bool keepTopLevel)
    : m_input(input)
    , m_fileName(std::move(fileName))
    , m_keepTopLevel(keepTopLevel)
{
    // The window is allocated when first read into: a mapped file needs none (a 2 MB
    // window zero-filled and freed cost most of a small file's import).
}

bool ChromeEventReader::mapInput()
{
    const std::string_view content = m_input.mapContent();
    if (content.empty())
        return false;
    m_mapped = true;
    m_data = content.data();
    m_len = content.size();
    m_eof = true;
    std::vector<char>().swap(m_buf);
    if (m_batches)
        std::vector<char>().swap(m_batches->spare);
    return true;
}

void ChromeEventReader::startInArray(std::uint64_t offset, bool bareArray, std::uint64_t index)
{
    m_base = offset;
    m_bareArray = bareArray;
    m_sawEvents = true;
    m_nextIndex = index;
    m_state = State::ArrayNext;
}

void ChromeEventReader::fail(std::uint64_t offset, const std::string& what) const
{
    throw InputError::atByte(m_fileName, offset, what);
}

bool ChromeEventReader::refill()
{
    if (m_eof)
        return false;
    if (m_batches)
        dropBatch();  // the window moves: the batch's views would dangle
    if (m_pos > 0) {
        std::memmove(m_buf.data(), m_buf.data() + m_pos, m_len - m_pos);
        m_base += m_pos;
        m_len -= m_pos;
        m_pos = 0;
    }
    if (m_buf.empty())
        m_buf.resize(kInitialWindowBytes);
    else if (m_len == m_buf.size())
        m_buf.resize(m_buf.size() * 2);  // one event larger than the window
    const std::size_t before = m_len;
    m_len += readInput(m_buf.data() + m_len, m_buf.size() - m_len);
    m_data = m_buf.data();
    return m_len > before;
}

int ChromeEventReader::peekNonSpace()
{
    // Between events ("},\n{"): found in the window, without a call (next() reads two
    // such bytes per event).
    const char* const buf = m_data;
    std::size_t pos = m_pos;
    while (pos < m_len && isSpace(buf[pos]))
        ++pos;
    m_pos = pos;
    if (pos < m_len)
        return static_cast<unsigned char>(buf[pos]);
    return peekNonSpaceAfterRefill();
}

int ChromeEventReader::peekNonSpaceAfterRefill()
{
    for (;;) {
        while (m_pos < m_len && isSpace(m_data[m_pos]))
            ++m_pos;
        if (m_pos < m_len)
            return static_cast<unsigned char>(m_data[m_pos]);
        if (!refill())
            return -1;
    }
}

bool ChromeEventReader::readTopKey(std::string& key)
{
    // m_data[m_pos] is the opening quote.
    for (;;) {
        const char* base = m_data + m_pos;
        const char* end = m_data + m_len;
        const char* q = nullptr;
        try {
            q = skipJsonString(base + 1, end, base);
        } catch (const JsonSyntaxError& e) {
            fail(position() + e.offset, e.what);
        }
        if (q) {
            std::string scratch;
            std::string_view raw(base, static_cast<std::size_t>(q + 1 - base));
            key = std::string(*jsonString(raw, scratch));
            m_pos += raw.size();
            break;
        }
        if (!refill())
            return false;
    }
    int c = peekNonSpace();
    if (c < 0)
        return false;
    if (c != ':')
        fail(position(), "expected ':' after a member name");
    ++m_pos;
    return true;
}

bool ChromeEventReader::skipTopValue(std::string* keep)
{
    int first = peekNonSpace();
    if (first < 0)
        return false;
    if (first != '{' && first != '[' && first != '"') {
        // A number or a literal: gather the token, then check it.
        std::string token;
        for (;;) {
            std::size_t start = m_pos;
            while (m_pos < m_len && !isSpace(m_data[m_pos]) && m_data[m_pos] != ','
                && m_data[m_pos] != '}' && m_data[m_pos] != ']')
                ++m_pos;
            token.append(m_data + start, m_pos - start);
            if (m_pos < m_len || !refill())
                break;
        }
        const std::uint64_t at = position() - token.size();
        bool valid = token == "true" || token == "false" || token == "null";
        if (!valid && !token.empty() && (token[0] == '-' || isDigit(token[0]))) {
            std::string padded = token + ' ';
            try {
                const char* e =
                    skipJsonNumber(padded.data(), padded.data() + padded.size(), padded.data());
                valid = e == padded.data() + token.size();
            } catch (const JsonSyntaxError&) {
                valid = false;
            }
        }
        if (!valid)
            fail(at, "expected a value (a string, number, object, array, true, false or null)");
        if (keep)
            *keep = std::move(token);
        return true;
    }

    // A string, object or array, streamed through the window: only its brackets and strings
    // are followed here (it is not an event; a kept value is parsed again by its user).
    std::vector<char> closers;
    bool inString = false;
    bool escape = false;
    bool keeping = keep != nullptr;
    std::size_t start = m_pos;
    for (;;) {
        for (; m_pos < m_len; ++m_pos) {
            const char ch = m_data[m_pos];
            if (inString) {
                if (escape) {
                    escape = false;
                } else if (ch == '\\') {
                    escape = true;
                } else if (ch == '"') {
                    inString = false;
                    if (closers.empty()) {
                        ++m_pos;
                        break;
                    }
                }
                continue;
            }
            if (ch == '"') {
                inString = true;
            } else if (ch == '{') {
                closers.push_back('}');
            } else if (ch == '[') {
                closers.push_back(']');
            } else if (ch == '}' || ch == ']') {
                if (closers.empty() || closers.back() != ch)
                    fail(position(),
                        closers.empty() ? std::string("expected a value")
                                        : std::string("expected '") + closers.back() + "'");
                closers.pop_back();
                if (closers.empty()) {
                    ++m_pos;
                    break;
                }
            }
        }
        const bool done = !inString && closers.empty() && m_pos > start;
        if (keeping) {
            keep->append(m_data + start, m_pos - start);
            if (keep->size() > kMaxTopLevelBytes) {
                keeping = false;
                keep->clear();
            }
        }
        if (done)
            return true;
        if (!refill())
            return false;
        start = m_pos;
    }
}

bool ChromeEventReader::readEvent()
{
    for (;;) {
        std::size_t n = 0;
        try {
            n = scanChromeEvent(
                std::string_view(m_data + m_pos, m_len - m_pos), m_listOnly, m_event);
        } catch (const JsonSyntaxError& e) {
            fail(position() + e.offset, e.what);
        }
        if (n > 0) {
            m_eventOffset = position();
            m_eventIndex = m_nextIndex++;
            m_pos += n;
            return true;
        }
        if (!refill())
            return false;
    }
}

void ChromeEventReader::finishTopLevel()
{
    if (!m_sawEvents)
        fail(position(), "expected a \"traceEvents\" member in the top-level object");
    if (peekNonSpace() >= 0)
        fail(position(), "expected the end of the file after the trace");
    m_state = State::Finished;
}

void ChromeEventReader::endOfInput(const char* what)
{
    if (!m_sawEvents)
        fail(position(), std::string("expected a \"traceEvents\" member (the file ends here)"));
    m_event = ChromeEventFields {};
    const bool betweenEvents = m_state == State::ArrayFirst || m_state == State::ArrayNext
        || m_state == State::ArrayCommaOrEnd;
    if (m_bareArray && betweenEvents) {
        // The Chrome trace format lets a bare array end without its ']'.
        m_endNote = "the JSON array is not closed with ']'";
    } else {
        m_truncation = std::string(what) + " at byte " + std::to_string(position());
    }
    m_state = State::Finished;
}

bool ChromeEventReader::next()
{
    m_current = &m_event;
    // The previous event's views end here: a mapped input gives back what lies before
    // (read by batches, the thread that scans ahead gives it back: scanAhead).
    if (m_mapped && !m_batches && position() >= m_releasedTo + kReleaseStepBytes) {
        m_input.releaseMapped(position());
        m_releasedTo = position();
    }
    for (;;) {
        switch (m_state) {
        case State::Start: {
            refill();
            if (m_len >= 3 && static_cast<unsigned char>(m_data[0]) == 0xEF
                && static_cast<unsigned char>(m_data[1]) == 0xBB
                && static_cast<unsigned char>(m_data[2]) == 0xBF)
                m_pos = 3;  // a UTF-8 byte order mark
            const bool empty = m_len == 0;
            int c = peekNonSpace();
            if (c == '[') {
                m_bareArray = true;
                m_sawEvents = true;
                m_state = State::ArrayFirst;
            } else if (c == '{') {
                m_state = State::TopKeyOrEnd;
            } else {
                fail(position(),
                    empty       ? "expected '{' or '[' (the file is empty)"
                        : c < 0 ? "expected '{' or '[' (the file holds only white space)"
                                : "expected '{' or '[' (a Chrome trace is a JSON object or "
                                  "array; this is not JSON)");
            }
            ++m_pos;
            break;
        }
        case State::TopKeyOrEnd:
        case State::TopKey: {
            int c = peekNonSpace();
            if (c < 0) {
                endOfInput("the top-level object is not closed");
                return false;
            }
            if (c == '}' && m_state == State::TopKeyOrEnd) {
                ++m_pos;
                finishTopLevel();
                return false;
            }
            if (c != '"')
                fail(position(),
                    m_state == State::TopKey ? "expected a member name (a string)"
                                             : "expected a member name or '}'");
            std::string key;
            if (!readTopKey(key)) {
                endOfInput("the top-level object is not closed");
                return false;
            }
            if (key == "traceEvents" && !m_sawEvents) {
                int v = peekNonSpace();
                if (v < 0) {
                    endOfInput("the top-level object is not closed");
                    return false;
                }
                if (v != '[')
                    fail(position(), "expected '[' after \"traceEvents\":");
                ++m_pos;
                m_sawEvents = true;
                m_state = State::ArrayFirst;
            } else {
                std::string value;
                if (!skipTopValue(m_keepTopLevel ? &value : nullptr)) {
                    endOfInput("the top-level object is not closed");
                    return false;
                }
                if (m_keepTopLevel && !value.empty())
                    m_topLevel.emplace_back(std::move(key), std::move(value));
                m_state = State::TopCommaOrEnd;
            }
            break;
        }
        case State::TopCommaOrEnd: {
            int c = peekNonSpace();
            if (c < 0) {
                endOfInput("the top-level object is not closed");
                return false;
            }
            if (c == ',') {
                ++m_pos;
                m_state = State::TopKey;
            } else if (c == '}') {
                ++m_pos;
                finishTopLevel();
                return false;
            } else {
                fail(position(), "expected ',' or '}' after a top-level member");
            }
            break;
        }
        case State::ArrayFirst:
        case State::ArrayNext: {
            int c = peekNonSpace();
            if (c < 0) {
                endOfInput("the traceEvents array is not closed");
                return false;
            }
            if (c == ']') {
                ++m_pos;  // an empty array, or a trailing comma (tolerated)
                m_state = State::ArrayClosed;
                break;
            }
            if (c != '{')
                fail(position(), "expected '{' (an event object) or ']'");
            if (position() >= m_stopAt) {
                m_stopped = true;
                m_state = State::Finished;
                return false;
            }
            if (m_batches && takeScanned()) {
                m_state = State::ArrayCommaOrEnd;
                return true;
            }
            const std::uint64_t start = position();
            if (!readEvent()) {
                m_event = ChromeEventFields {};
                m_truncation =
                    "the file ends inside the event that starts at byte " + std::to_string(start);
                m_state = State::Finished;
                return false;
            }
            m_state = State::ArrayCommaOrEnd;
            return true;
        }
        case State::ArrayCommaOrEnd: {
            int c = peekNonSpace();
            if (c < 0) {
                endOfInput("the traceEvents array is not closed");
                return false;
            }
            if (c == ',') {
                ++m_pos;
                m_state = State::ArrayNext;
            } else if (c == ']') {
                ++m_pos;
                m_state = State::ArrayClosed;
            } else {
                fail(position(), "expected ',' or ']' after an event");
            }
            break;
        }
        case State::ArrayClosed:
            if (m_bareArray) {
                finishTopLevel();
                return false;
            }
            m_state = State::TopCommaOrEnd;
            break;
        case State::Finished:
            return false;
        }
    }
}

}  // namespace strata::storage
