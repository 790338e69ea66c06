#pragma once
// Small helpers for the line-oriented importers and the format sniffer.

#include <algorithm>
#include <cctype>
#include <string_view>

namespace strata::storage {

/// `s` without leading and trailing whitespace.
inline std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

/// True for a non-empty run of ASCII digits.
inline bool isDigits(std::string_view s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace strata::storage
