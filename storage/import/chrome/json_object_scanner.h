#pragma once
// The checked scanner of json_scan.h (scanJsonObject) as a template, for the room's
// callers that take each member as it is found: the Chrome event reader sorts an
// event's members into their slots inline (chrome_event_reader.cpp), where a call
// through JsonFieldSink's function pointer for each member cost 2 % of a JSON ingest's
// instructions. Only json_scan.cpp and the reader include it.

#include "storage/import/chrome/json_scan.h"
#include "storage/store/json_bytes.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace strata::storage::json_scan_detail {

constexpr int kMaxDepth = 512;

constexpr const char* kExpectedValue =
    "expected a value (a string, number, object, array, true, false or null)";

inline bool isSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

inline bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

inline bool isHex(char c)
{
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// true, false or null starting at p: returns its end, or nullptr when `end` comes first.
inline const char* skipLiteral(const char* p, const char* end, const char* base)
{
    std::string_view word = *p == 't' ? "true" : (*p == 'f' ? "false" : "null");
    std::size_t available = static_cast<std::size_t>(end - p);
    if (std::memcmp(p, word.data(), std::min(available, word.size())) != 0)
        throw JsonSyntaxError { static_cast<std::size_t>(p - base), kExpectedValue };
    return available < word.size() ? nullptr : p + word.size();
}

// Inlined everywhere: most strings are short keys, where a call costs as much as the search.
// `escaped` (when given) is set at an escape.
[[gnu::always_inline]] inline const char* skipString(
    const char* p, const char* end, const char* base, bool* escaped = nullptr)
{
    for (;;) {
        p = findQuoteOrBackslash(p, end);
        if (p == end)
            return nullptr;
        if (*p == '"')
            return p;
        if (escaped)
            *escaped = true;
        if (end - p < 2)
            return nullptr;
        const char e = p[1];
        if (e == 'u') {
            if (end - p < 6)
                return nullptr;
            if (!isHex(p[2]) || !isHex(p[3]) || !isHex(p[4]) || !isHex(p[5]))
                throw JsonSyntaxError { static_cast<std::size_t>(p - base),
                    "expected 4 hex digits after \\u" };
            p += 6;
        } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r'
            || e == 't') {
            p += 2;
        } else {
            throw JsonSyntaxError { static_cast<std::size_t>(p - base),
                "expected a valid escape after '\\' in a string" };
        }
    }
}

// The first byte in [p, end) that is not a decimal digit, or end. Timestamps have up to 16
// digits: one 16-byte compare finds the end of most runs.
inline const char* skipDigits(const char* p, const char* end)
{
#if defined(__SSE2__)
    if (end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        // Signed compares: bytes of 0x80 and above are negative, so not digits.
        const __m128i digit = _mm_and_si128(
            _mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
        const unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(digit)) & 0xFFFFu;
        if (other != 0)
            return p + __builtin_ctz(other);
        p += 16;
    }
#endif
    while (p < end && isDigit(*p))
        ++p;
    return p;
}

[[gnu::always_inline]] inline const char* skipNumber(
    const char* p, const char* end, const char* base)
{
    auto error = [&](const char* at, const char* what) {
        return JsonSyntaxError { static_cast<std::size_t>(at - base), what };
    };
    const char* q = p;
    if (*q == '-')
        ++q;
    if (q == end)
        return nullptr;
    if (*q == '0') {
        ++q;
    } else if (isDigit(*q)) {
        q = skipDigits(q + 1, end);
    } else {
        throw error(q, "expected a digit");
    }
    if (q == end)
        return nullptr;
    if (*q == '.') {
        const char* digits = ++q;
        q = skipDigits(q, end);
        if (q == end)
            return nullptr;
        if (q == digits)
            throw error(q, "expected a digit after '.'");
    }
    if (*q == 'e' || *q == 'E') {
        ++q;
        if (q == end)
            return nullptr;
        if (*q == '+' || *q == '-')
            ++q;
        const char* digits = q;
        q = skipDigits(q, end);
        if (q == end)
            return nullptr;
        if (q == digits)
            throw error(q, "expected a digit in the exponent");
    }
    return q;
}

// White space is rare between an event's tokens: one compare rules most bytes out.
inline const char* skipSpace(const char* p, const char* end)
{
    while (p < end && static_cast<unsigned char>(*p) <= ' ' && isSpace(*p))
        ++p;
    return p;
}

// Members of nested objects go nowhere.
struct NoFields
{
    void operator()(const JsonField&) const {}
};
constexpr NoFields kNoFields;

// scanJsonObject()'s parser: recursive descent, one function per kind of value, each
// returning the end of what it read, or nullptr when the text ends first (checked after
// every token, so an error before the end is always reported). Errors are thrown at the
// first byte that cannot continue the JSON text, left to right.
class ObjectScanner
{
public:
    ObjectScanner(const char* base, const char* end)
        : m_base(base)
        , m_end(end)
    {}

    /// Whether the text scanned so far had white space outside its strings: without, it
    /// is minified JSON (isMinifiedJson()), and so is every value in it. Noted only where
    /// white space is skipped, so compact text pays nothing for it.
    bool spaced() const { return m_spaced; }
    /// Whether a string of the text scanned so far had an escape: without, the text holds
    /// no backslash (outside strings one is a syntax error). Noted at escapes only.
    bool escaped() const { return m_escaped; }

    // The object whose '{' is just before p, `depth` containers deep (the outermost is 1);
    // its members go to `add`.
    template<class Add>
    const char* object(const char* p, int depth, const Add& add)
    {
        if (!(p = nextToken(p)))
            return nullptr;
        if (*p == '}')
            return p + 1;
        const char* expected = "expected a member name or '}'";
        for (;;) {
            if (*p != '"')
                fail(p, expected);
            const char* q = skipString(p + 1, m_end, m_base, &m_escaped);
            if (!q)
                return nullptr;
            const std::string_view key(p + 1, static_cast<std::size_t>(q - p - 1));
            const char* valueStart = nullptr;
            if (m_end - q > 3 && q[1] == ':' && static_cast<unsigned char>(q[2]) > ' ') {
                valueStart = q + 2;  // "key":value
            } else if (m_end - q > 3 && q[1] == ':' && q[2] == ' '
                && static_cast<unsigned char>(q[3]) > ' ') {
                valueStart = q + 3;  // "key": value
                m_spaced = true;
            } else {
                if (!(p = nextToken(q + 1)))
                    return nullptr;
                if (*p != ':')
                    fail(p, "expected ':' after a member name");
                valueStart = nextToken(p + 1);
            }
            if (!valueStart || !(p = anyValue(valueStart, depth)))
                return nullptr;
            add(JsonField {
                key, std::string_view(valueStart, static_cast<std::size_t>(p - valueStart)) });
            bool closed = false;
            if (!(p = nextItem(p, '}', closed)) || closed)
                return p;
            expected = "expected a member name (a string)";
        }
    }

private:
    // The first byte at or after p that is not white space, or nullptr at the end. Compact
    // JSON has punctuation right after each token: one compare takes that case.
    const char* nextToken(const char* p)
    {
        if (p == m_end)
            return nullptr;
        if (static_cast<unsigned char>(*p) > ' ')
            return p;
        const char* const from = p;
        p = skipSpace(p, m_end);
        m_spaced = m_spaced || p != from;
        return p == m_end ? nullptr : p;
    }

    // After a member or an element: past the ',' to the next one's first byte, or past
    // `close` when the container ends there (`closed`); nullptr when the text ends first.
    const char* nextItem(const char* p, char close, bool& closed)
    {
        if (m_end - p > 2 && *p == ',' && static_cast<unsigned char>(p[1]) > ' ')
            return p + 1;  // value,next
        if (m_end - p > 2 && *p == ',' && p[1] == ' ' && static_cast<unsigned char>(p[2]) > ' ') {
            m_spaced = true;
            return p + 2;  // value, next
        }
        if (!(p = nextToken(p)))
            return nullptr;
        if (*p == close) {
            closed = true;
            return p + 1;
        }
        if (*p != ',')
            fail(p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
        return nextToken(p + 1);
    }

    [[noreturn]] void fail(const char* at, const char* what) const
    {
        throw JsonSyntaxError { static_cast<std::size_t>(at - m_base), what };
    }

    // The value that starts at p (< end, not white space), inside `depth` containers.
    // Strings and numbers, most values, are read inline: a call to value() for each costs
    // more than reading it (value() is recursive, so every call saves and restores the
    // registers it uses).
    [[gnu::always_inline]] const char* anyValue(const char* p, int depth)
    {
        const char c = *p;
        if (c == '"') {
            const char* q = skipString(p + 1, m_end, m_base, &m_escaped);
            return q ? q + 1 : nullptr;
        }
        if (c == '-' || isDigit(c))
            return skipNumber(p, m_end, m_base);
        return value(p, depth);
    }

    // A value that is not a string nor a number (see anyValue()).
    const char* value(const char* p, int depth)
    {
        const char c = *p;
        if (c == '{' || c == '[') {
            if (depth == kMaxDepth)
                fail(p, "expected less deeply nested values");
            return c == '{' ? object(p + 1, depth + 1, kNoFields) : array(p + 1, depth + 1);
        }
        if (c == 't' || c == 'f' || c == 'n')
            return skipLiteral(p, m_end, m_base);
        fail(p, kExpectedValue);
    }

    const char* array(const char* p, int depth)
    {
        if (!(p = nextToken(p)))
            return nullptr;
        if (*p == ']')
            return p + 1;
        for (;;) {
            bool closed = false;
            if (!(p = anyValue(p, depth)) || !(p = nextItem(p, ']', closed)) || closed)
                return p;
        }
    }

    const char* m_base;
    const char* m_end;
    bool m_spaced = false;  // white space was skipped between two tokens
    bool m_escaped = false;  // a string had an escape
};

/// What the scan of an object saw of its text (ObjectScanner::spaced(), escaped()).
struct ScanNotes
{
    bool spaced = true;
    bool escaped = true;
};

/// The length of the object at text[0] (0 when the text ends first), its members given to
/// `add`; `notes` (when given): what the scan saw of its text.
template<class Add>
std::size_t scanObject(std::string_view text, const Add& add, ScanNotes* notes = nullptr)
{
    if (text.empty())
        return 0;
    const char* const base = text.data();
    if (*base != '{')
        throw JsonSyntaxError { 0, "expected '{'" };
    ObjectScanner scanner(base, base + text.size());
    const char* end = scanner.object(base + 1, 1, add);
    if (notes)
        *notes = { scanner.spaced(), scanner.escaped() };
    return end ? static_cast<std::size_t>(end - base) : 0;
}

}  // namespace strata::storage::json_scan_detail
