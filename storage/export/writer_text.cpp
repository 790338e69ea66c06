#include "storage/export/writer_text.h"

#include <charconv>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace strata::storage::writer_text {

namespace {

/// Length of the valid UTF-8 sequence at `p` (2..4 bytes), or 0 if it is not one
/// (overlong forms and surrogates included).
std::size_t utf8SequenceLength(const unsigned char* p, std::size_t available)
{
    const unsigned char c = p[0];
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        length = 3;
        if (c == 0xE0)
            low = 0xA0;
        else if (c == 0xED)
            high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        length = 4;
        if (c == 0xF0)
            low = 0x90;
        else if (c == 0xF4)
            high = 0x8F;
    } else {
        return 0;
    }
    if (available < length || p[1] < low || p[1] > high)
        return 0;
    for (std::size_t i = 2; i < length; ++i) {
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    }
    return length;
}

}  // namespace

void appendInt(std::string& out, std::int64_t value)
{
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
}

void appendUnsigned(std::string& out, std::uint64_t value)
{
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
}

/// Integer ns as exact decimal µs, without trailing zeros: 12345678 -> "12345.678",
/// 1500 -> "1.5", 2000 -> "2".
void appendMicros(std::string& out, std::int64_t ns)
{
    const std::uint64_t magnitude =
        ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    if (ns < 0)
        out += '-';
    appendUnsigned(out, magnitude / 1000);
    const auto fraction = static_cast<unsigned>(magnitude % 1000);
    if (fraction == 0)
        return;
    char digits[4] = { '.', static_cast<char>('0' + fraction / 100),
        static_cast<char>('0' + fraction / 10 % 10), static_cast<char>('0' + fraction % 10) };
    std::size_t length = 4;
    while (digits[length - 1] == '0')
        --length;
    out.append(digits, length);
}


/// JSON string contents (no quotes): escapes quotes, backslashes and control characters,
/// and replaces bytes that are not valid UTF-8 by U+FFFD.
std::string escapeJson(std::string_view text)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    std::size_t i = 0;
    while (i < text.size()) {
        const unsigned char c = bytes[i];
        if (c >= 0x80) {
            const std::size_t length = utf8SequenceLength(bytes + i, text.size() - i);
            if (length == 0) {
                out += "\xEF\xBF\xBD";
                ++i;
            } else {
                out.append(text.substr(i, length));
                i += length;
            }
            continue;
        }
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20) {
                out += "\\u00";
                out += kHex[c >> 4];
                out += kHex[c & 0xF];
            } else {
                out += static_cast<char>(c);
            }
        }
        ++i;
    }
    return out;
}

std::int64_t trailingNumber(std::string_view name)
{
    std::size_t begin = name.size();
    while (begin > 0 && name[begin - 1] >= '0' && name[begin - 1] <= '9')
        --begin;
    const std::size_t digits = name.size() - begin;
    if (digits == 0 || digits > 18)
        return -1;
    std::int64_t value = 0;
    std::from_chars(name.data() + begin, name.data() + name.size(), value);
    return value;
}

std::optional<std::int64_t> parseInteger(std::string_view text)
{
    std::int64_t value = 0;
    const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size())
        return std::nullopt;
    return value;
}

std::string_view trimmed(std::string_view text)
{
    const auto isSpace = [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    };
    while (!text.empty() && isSpace(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back()))
        text.remove_suffix(1);
    return text;
}

[[noreturn]] void throwIoError(const std::string& file, const std::string& what, int error)
{
    std::string message = file + ": " + what;
    if (error != 0)
        message += std::string(": ") + std::strerror(error);
    throw std::runtime_error(message);
}

}  // namespace strata::storage::writer_text
