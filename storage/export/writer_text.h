#pragma once
// The small text formatting the trace writers share: integers and exact decimal
// microseconds without allocation, JSON string escaping, and the one-line I/O error.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata::storage::writer_text {

void appendInt(std::string& out, std::int64_t value);
void appendUnsigned(std::string& out, std::uint64_t value);
/// Integer ns as exact decimal µs, without trailing zeros: 12345678 -> "12345.678",
/// 1500 -> "1.5", 2000 -> "2".
void appendMicros(std::string& out, std::int64_t ns);
/// `text` as the inside of a JSON string (quotes, backslashes, control characters
/// escaped; invalid UTF-8 bytes replaced), without the surrounding quotes.
std::string escapeJson(std::string_view text);
/// The decimal number that ends `name` ("rank 12" -> 12), -1 when there is none.
std::int64_t trailingNumber(std::string_view name);
/// `text` as a whole decimal integer, nullopt when it is anything else.
std::optional<std::int64_t> parseInteger(std::string_view text);
/// `text` without surrounding blanks (space, tab, CR, LF).
std::string_view trimmed(std::string_view text);
/// Throws std::runtime_error "FILE: WHAT[: strerror(error)]".
[[noreturn]] void throwIoError(const std::string& file, const std::string& what, int error);

}  // namespace strata::storage::writer_text
