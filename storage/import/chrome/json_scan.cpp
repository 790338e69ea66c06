#include "storage/import/chrome/json_scan.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace strata::storage {

namespace {

constexpr int kMaxDepth = 512;

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

inline int hexValue(char c)
{
    if (isDigit(c))
        return c - '0';
    return (c | 0x20) - 'a' + 10;
}

// The first '"' or '\\' in [p, end), or end.
inline const char* findQuoteOrBackslash(const char* p, const char* end)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        int mask =
            _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
        if (mask != 0)
            return p + __builtin_ctz(static_cast<unsigned>(mask));
        p += 16;
    }
#endif
    while (p < end && *p != '"' && *p != '\\')
        ++p;
    return p;
}

// true, false or null starting at p: returns its end, or nullptr when `end` comes first.
const char* skipLiteral(const char* p, const char* end, const char* base)
{
    std::string_view word = *p == 't' ? "true" : (*p == 'f' ? "false" : "null");
    std::size_t available = static_cast<std::size_t>(end - p);
    if (std::memcmp(p, word.data(), std::min(available, word.size())) != 0)
        throw JsonSyntaxError { static_cast<std::size_t>(p - base),
            "expected a value (a string, number, object, array, true, "
            "false or null)" };
    return available < word.size() ? nullptr : p + word.size();
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

inline const char* skipString(const char* p, const char* end, const char* base)
{
    for (;;) {
        p = findQuoteOrBackslash(p, end);
        if (p == end)
            return nullptr;
        if (*p == '"')
            return p;
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

inline const char* skipNumber(const char* p, const char* end, const char* base)
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
        while (q < end && isDigit(*q))
            ++q;
    } else {
        throw error(q, "expected a digit");
    }
    if (q == end)
        return nullptr;
    if (*q == '.') {
        const char* digits = ++q;
        while (q < end && isDigit(*q))
            ++q;
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
        while (q < end && isDigit(*q))
            ++q;
        if (q == end)
            return nullptr;
        if (q == digits)
            throw error(q, "expected a digit in the exponent");
    }
    return q;
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

std::size_t scanJsonObject(std::string_view text, std::vector<JsonField>& fields)
{
    enum class Expect { KeyOrClose, Key, Colon, Value, ValueOrClose, CommaOrClose };
    fields.clear();
    const char* const base = text.data();
    const char* const end = base + text.size();
    auto error = [&](const char* at, const char* what) {
        return JsonSyntaxError { static_cast<std::size_t>(at - base), what };
    };
    if (text.empty())
        return 0;
    if (*base != '{')
        throw error(base, "expected '{'");

    // Members go to a local array first: most objects have a handful, and one copy at the
    // end is cheaper than growing the vector member by member.
    constexpr std::size_t kLocalFields = 32;
    JsonField local[kLocalFields];
    std::size_t count = 0;
    std::string_view key;
    const char* valueStart = nullptr;
    auto addField = [&](const char* valueEnd) {
        const JsonField field { key,
            std::string_view(valueStart, static_cast<std::size_t>(valueEnd - valueStart)) };
        if (count < kLocalFields) {
            local[count] = field;
        } else {
            if (count == kLocalFields)
                fields.assign(local, local + kLocalFields);
            fields.push_back(field);
        }
        ++count;
    };

    bool inObject[kMaxDepth];
    int depth = 1;
    inObject[0] = true;
    Expect expect = Expect::KeyOrClose;
    const char* p = base + 1;
    for (;;) {
        while (p < end && isSpace(*p))
            ++p;
        if (p == end)
            return 0;
        const char c = *p;
        switch (expect) {
        case Expect::KeyOrClose:
        case Expect::Key: {
            if (c == '}' && expect == Expect::KeyOrClose)
                break;  // an empty object: closed below
            if (c != '"')
                throw error(p,
                    expect == Expect::Key ? "expected a member name (a string)"
                                          : "expected a member name or '}'");
            const char* q = skipString(p + 1, end, base);
            if (!q)
                return 0;
            if (depth == 1)
                key = std::string_view(p + 1, static_cast<std::size_t>(q - p - 1));
            p = q + 1;
            expect = Expect::Colon;
            continue;
        }
        case Expect::Colon:
            if (c != ':')
                throw error(p, "expected ':' after a member name");
            ++p;
            expect = Expect::Value;
            continue;
        case Expect::ValueOrClose:
            if (c == ']')
                break;  // an empty array: closed below
            [[fallthrough]];
        case Expect::Value: {
            if (depth == 1)
                valueStart = p;
            if (c == '{' || c == '[') {
                if (depth == kMaxDepth)
                    throw error(p, "expected less deeply nested values");
                inObject[depth++] = c == '{';
                ++p;
                expect = c == '{' ? Expect::KeyOrClose : Expect::ValueOrClose;
                continue;
            }
            const char* q = nullptr;
            if (c == '"') {
                q = skipString(p + 1, end, base);
                if (q)
                    ++q;
            } else if (c == '-' || isDigit(c)) {
                q = skipNumber(p, end, base);
            } else if (c == 't' || c == 'f' || c == 'n') {
                q = skipLiteral(p, end, base);
            } else {
                throw error(p,
                    "expected a value (a string, number, object, array, true, false "
                    "or null)");
            }
            if (!q)
                return 0;
            p = q;
            if (depth == 1)
                addField(p);
            expect = Expect::CommaOrClose;
            continue;
        }
        case Expect::CommaOrClose:
            if (c == ',') {
                ++p;
                expect = inObject[depth - 1] ? Expect::Key : Expect::Value;
                continue;
            }
            if (c == (inObject[depth - 1] ? '}' : ']'))
                break;
            throw error(p, inObject[depth - 1] ? "expected ',' or '}'" : "expected ',' or ']'");
        }
        // Close the innermost object or array at p.
        ++p;
        --depth;
        if (depth == 0) {
            if (count <= kLocalFields)
                fields.assign(local, local + count);
            return static_cast<std::size_t>(p - base);
        }
        if (depth == 1)
            addField(p);
        expect = Expect::CommaOrClose;
    }
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
    if (body.find('\\') == std::string_view::npos)
        return body;
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

void minifyJson(std::string_view raw, std::string& out)
{
    out.clear();
    out.reserve(raw.size());
    const char* p = raw.data();
    const char* const end = p + raw.size();
    while (p < end) {
        const char c = *p;
        if (c == '"') {
            // Copy the whole string, escapes included.
            const char* q = p + 1;
            for (;;) {
                q = findQuoteOrBackslash(q, end);
                if (q == end || *q == '"')
                    break;
                q += 2;  // an escape: skip the backslash and the escaped character
                if (q > end)
                    q = end;
            }
            if (q < end)
                ++q;
            out.append(p, static_cast<std::size_t>(q - p));
            p = q;
        } else {
            if (!isSpace(c))
                out.push_back(c);
            ++p;
        }
    }
}

}  // namespace strata::storage
