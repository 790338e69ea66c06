#include "storage/import/chrome/json_scan.h"

#include "storage/import/chrome/json_object_scanner.h"
#include "storage/store/json_bytes.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace strata::storage {

using namespace json_scan_detail;

namespace {

inline int hexValue(char c)
{
    if (isDigit(c))
        return c - '0';
    return (c | 0x20) - 'a' + 10;
}

// The first '"' or white space in [p, end), or end: 16 bytes at a time, where a byte at or
// below ' ' stops the search and is looked at (control characters other than white space
// go on).
inline const char* findQuoteOrSpace(const char* p, const char* end)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i space = _mm_set1_epi8(' ');
    while (end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i low = _mm_cmpeq_epi8(_mm_max_epu8(v, space), space);  // v <= ' '
        unsigned mask =
            static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), low)));
        for (; mask != 0; mask &= mask - 1) {
            const char* q = p + __builtin_ctz(mask);
            if (*q == '"' || isSpace(*q))
                return q;
        }
        p += 16;
    }
#endif
    while (p < end && *p != '"' && !isSpace(*p))
        ++p;
    return p;
}

void appendUtf8(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

std::uint32_t readHex4(const char* p)
{
    return static_cast<std::uint32_t>(
        (hexValue(p[0]) << 12) | (hexValue(p[1]) << 8) | (hexValue(p[2]) << 4) | hexValue(p[3]));
}

// listJsonObject()'s reader, for text scanJsonObject() has accepted: it follows only
// quotes, escapes and brackets, and skips nested values whole. Anything it does not expect
// (text changed since it was checked) makes it give up: it returns kUnexpected.
const char* const kUnexpected = reinterpret_cast<const char*>(1);

// The end of the number or literal at p (the first ',', '}' or white space), or nullptr
// when end comes first.
inline const char* skipCheckedToken(const char* p, const char* end)
{
#if defined(__SSE2__)
    if (end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i space =
            _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(' ')), _mm_set1_epi8(' '));
        const __m128i stop = _mm_or_si128(
            _mm_cmpeq_epi8(v, _mm_set1_epi8(',')), _mm_cmpeq_epi8(v, _mm_set1_epi8('}')));
        const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(space, stop)));
        if (mask != 0) {
            const char* q = p + __builtin_ctz(mask);
            if (static_cast<unsigned char>(*q) >= ' ' || isSpace(*q))
                return q;
            p = q;  // a control character (not JSON): go on byte by byte from it
        }
    }
#endif
    while (p < end && *p != ',' && *p != '}' && !isSpace(*p))
        ++p;
    return p == end ? nullptr : p;
}

// listJsonObject() proper: the end of the object at base, nullptr when the text ends first,
// or kUnexpected. White space is looked for only where a byte below '!' stands: one compare
// per token in compact JSON.
template<class Add>
const char* listCheckedObject(const char* base, const char* end, const Add& add)
{
    auto space = [end](const char* p) {  // p < end: past white space, maybe to end
        return static_cast<unsigned char>(*p) > ' ' ? p : skipSpace(p, end);
    };
    const char* p = skipSpace(base + 1, end);
    if (p == end)
        return nullptr;
    if (*p == '}')
        return p + 1;
    for (;;) {
        if (*p != '"')
            return kUnexpected;
        const char* q = skipString(p + 1, end, base);
        if (!q)
            return nullptr;
        const std::string_view key(p + 1, static_cast<std::size_t>(q - p - 1));
        if (++q == end || (q = space(q)) == end)
            return nullptr;
        if (*q != ':')
            return kUnexpected;
        const char* value = q + 1;
        if (value == end || (value = space(value)) == end)
            return nullptr;
        const char c = *value;
        if (c == '"') {
            q = skipString(value + 1, end, base);
            q = q ? q + 1 : nullptr;
        } else if (c == '{' || c == '[') {
            q = skipNestedJson(value, end);
        } else {
            q = skipCheckedToken(value, end);
        }
        if (!q)
            return nullptr;
        add(JsonField { key, std::string_view(value, static_cast<std::size_t>(q - value)) });
        if (q == end || (q = space(q)) == end)
            return nullptr;
        if (*q == '}')
            return q + 1;
        if (*q != ',')
            return kUnexpected;
        if (++q == end || (p = space(q)) == end)
            return nullptr;
    }
}

}  // namespace

const char* skipJsonString(const char* p, const char* end, const char* base)
{
    return skipString(p, end, base);
}

const char* skipJsonNumber(const char* p, const char* end, const char* base)
{
    return skipNumber(p, end, base);
}

namespace {

template<class Add, class Restart>
std::size_t listObject(std::string_view text, const Add& add, const Restart& restart)
{
    if (text.empty())
        return 0;
    const char* const base = text.data();
    const char* end = *base == '{' ? listCheckedObject(base, base + text.size(), add) : kUnexpected;
    if (end == kUnexpected) {
        restart();
        return scanObject(text, add);  // says what is wrong
    }
    return end ? static_cast<std::size_t>(end - base) : 0;
}

}  // namespace

std::size_t scanJsonObject(std::string_view text, std::vector<JsonField>& fields)
{
    fields.clear();
    const std::size_t n = scanObject(text, [&](const JsonField& f) { fields.push_back(f); });
    if (n == 0)
        fields.clear();
    return n;
}

std::size_t scanJsonObject(std::string_view text, const JsonFieldSink& sink)
{
    return scanObject(text, [&](const JsonField& f) { sink.add(sink.context, f); });
}

std::size_t listJsonObject(std::string_view text, std::vector<JsonField>& fields)
{
    fields.clear();
    const std::size_t n = listObject(
        text, [&](const JsonField& f) { fields.push_back(f); }, [&] { fields.clear(); });
    if (n == 0)
        fields.clear();
    return n;
}

std::size_t listJsonObject(std::string_view text, const JsonFieldSink& sink)
{
    return listObject(
        text, [&](const JsonField& f) { sink.add(sink.context, f); },
        [&] {
            if (sink.restart)
                sink.restart(sink.context);
        });
}

std::string_view findJsonField(const std::vector<JsonField>& fields, std::string_view key)
{
    for (const JsonField& f : fields) {
        if (f.key == key)
            return f.value;
    }
    return {};
}

std::optional<std::string_view> jsonString(std::string_view raw, std::string& scratch)
{
    if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"')
        return std::nullopt;
    std::string_view body = raw.substr(1, raw.size() - 2);
    if (body.size() <= 16) {  // ph, ids, short names: a loop costs less than memchr's call
        if (std::find(body.begin(), body.end(), '\\') == body.end())
            return body;
    } else if (body.find('\\') == std::string_view::npos) {
        return body;
    }
    scratch.clear();
    scratch.reserve(body.size());
    for (std::size_t i = 0; i < body.size(); ++i) {
        char c = body[i];
        if (c != '\\' || i + 1 >= body.size()) {
            scratch.push_back(c);
            continue;
        }
        char e = body[++i];
        switch (e) {
        case 'b':
            scratch.push_back('\b');
            break;
        case 'f':
            scratch.push_back('\f');
            break;
        case 'n':
            scratch.push_back('\n');
            break;
        case 'r':
            scratch.push_back('\r');
            break;
        case 't':
            scratch.push_back('\t');
            break;
        case 'u': {
            if (i + 4 >= body.size()) {
                scratch.push_back('?');
                break;
            }
            std::uint32_t cp = readHex4(body.data() + i + 1);
            i += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {
                // A high surrogate: combine with the low one that should follow.
                if (i + 6 < body.size() && body[i + 1] == '\\' && body[i + 2] == 'u') {
                    std::uint32_t low = readHex4(body.data() + i + 3);
                    if (low >= 0xDC00 && low < 0xE000) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        i += 6;
                    } else {
                        cp = 0xFFFD;
                    }
                } else {
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                cp = 0xFFFD;
            }
            appendUtf8(scratch, cp);
            break;
        }
        default:
            scratch.push_back(e);
            break;  // '"', '\\', '/'
        }
    }
    return std::string_view(scratch);
}

namespace {

/// The first white space byte at or after `p` that lies outside strings, or `end`.
/// Strings are passed over by their quotes and escapes.
const char* nextSpaceOutsideStrings(const char* p, const char* end)
{
    while (p < end) {
        p = findQuoteOrSpace(p, end);
        if (p == end || *p != '"')
            return p;
        ++p;  // the whole string, escapes included
        for (;;) {
            p = findQuoteOrBackslash(p, end);
            if (p == end || *p == '"')
                break;
            p += 2;  // an escape: skip the backslash and the escaped character
            if (p > end)
                p = end;
        }
        if (p < end)
            ++p;
    }
    return end;
}

}  // namespace

bool isMinifiedJson(std::string_view raw)
{
    const char* const end = raw.data() + raw.size();
    const char* p = raw.data();
#if defined(__SSE2__)
    // 16 bytes at a time, without a stop at each string: a byte is inside a string when an
    // odd number of quotes precede it (a prefix XOR of the quote bits). A block with a
    // backslash, where a quote may be escaped, hands the text to the exact walk below.
    // nextSpaceOutsideStrings() stopped at the ~14 quotes of a kernel's args: 1.8 % of a
    // two-file JSON ingest's time.
    unsigned inString = 0;  // the string state after the last block: 0 or 0xFFFF
    for (; end - p >= 16; p += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))) != 0)
            return nextSpaceOutsideStrings(raw.data(), end) == end;
        unsigned inside =
            static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"'))));
        inside ^= inside << 1;
        inside ^= inside << 2;
        inside ^= inside << 4;
        inside ^= inside << 8;
        inside = (inside ^ inString) & 0xFFFFu;
        const __m128i space = _mm_set1_epi8(' ');
        unsigned low =
            static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, space), space)));
        for (low &= ~inside; low != 0; low &= low - 1) {
            if (isSpace(p[__builtin_ctz(low)]))
                return false;
        }
        inString = (inside & 0x8000u) ? 0xFFFFu : 0;
    }
    for (bool in = inString != 0; p < end; ++p) {
        if (*p == '\\')
            return nextSpaceOutsideStrings(raw.data(), end) == end;
        if (*p == '"')
            in = !in;
        else if (!in && isSpace(*p))
            return false;
    }
    return true;
#else
    return nextSpaceOutsideStrings(p, end) == end;
#endif
}

void minifyJson(std::string_view raw, std::string& out)
{
    // Written in place: the text only shrinks. What lies between two white space bytes
    // outside strings is copied in one piece (compact args are copied whole at the end).
    out.resize(raw.size());
    char* o = out.data();
    const char* p = raw.data();
    const char* const end = p + raw.size();
    const char* kept = p;  // the first byte not copied yet
    auto copyTo = [&](const char* to) {
        std::memcpy(o, kept, static_cast<std::size_t>(to - kept));
        o += to - kept;
    };
    while ((p = nextSpaceOutsideStrings(p, end)) != end) {  // white space: dropped
        copyTo(p);
        kept = ++p;
    }
    copyTo(end);
    out.resize(static_cast<std::size_t>(o - out.data()));
}

}  // namespace strata::storage
