#pragma once
// Case-insensitive substring match (ASCII): the track filter, name search and flame
// graph search all match what the user typed this way.

#include <algorithm>
#include <cctype>
#include <string_view>

namespace strata::model {

inline bool containsNoCase(std::string_view text, std::string_view needle)
{
    return std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           }) != text.end();
}

} // namespace strata::model
