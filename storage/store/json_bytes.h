#pragma once
// Byte-level walks over JSON text, 16 bytes at a time (SSE2): shared by the Chrome
// importer's scanner (storage/import/chrome/json_scan.cpp) and the tile codec's args
// column (args_codec.cpp), which both pass over strings and nested values without
// parsing them.

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace strata::storage {

/// The first '"' or '\\' in [p, end), or end.
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

// Bit i set where p[i] is '"', '\\', '{', '}', '[' or ']' (16 bytes).
#if defined(__SSE2__)
inline unsigned structuralMask(const char* p)
{
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i quotes =
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    const __m128i braces =
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('{')), _mm_cmpeq_epi8(v, _mm_set1_epi8('}')));
    const __m128i brackets =
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('[')), _mm_cmpeq_epi8(v, _mm_set1_epi8(']')));
    return static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(quotes, _mm_or_si128(braces, brackets))));
}
#endif

/// The end of the object or array that opens at p (JSON text checked before: only quotes,
/// escapes and brackets are followed), or nullptr when `end` comes first.
inline const char* skipNestedJson(const char* p, const char* end)
{
    int depth = 0;
    bool inString = false;
    const char* skipTo = p;  // the character after a backslash is skipped
    auto step = [&](const char* at) -> const char* {
        if (at < skipTo)
            return nullptr;
        const char c = *at;
        if (inString) {
            if (c == '\\')
                skipTo = at + 2;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0)
                return at + 1;
        }
        return nullptr;
    };
#if defined(__SSE2__)
    while (end - p >= 16) {
        for (unsigned mask = structuralMask(p); mask != 0; mask &= mask - 1) {
            if (const char* done = step(p + __builtin_ctz(mask)))
                return done;
        }
        p += 16;
    }
#endif
    for (; p < end; ++p) {
        const char c = *p;
        if (c == '"' || c == '\\' || c == '{' || c == '}' || c == '[' || c == ']') {
            if (const char* done = step(p))
                return done;
        }
    }
    return nullptr;
}

}  // namespace strata::storage
