#include "storage/import/common/kernel_name.h"

#include <cctype>

namespace strata::storage {

namespace {

bool isIdentChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

std::string replaceAll(std::string s, std::string_view from, std::string_view to)
{
    for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
        s.replace(at, from.size(), to);
    return s;
}

/// Itanium mangling: "_Z" [N [qualifiers]] (<length><identifier> | template args ...)+ [E].
/// Returns the last source name before the nested name ends or its template arguments
/// start, or "" when the name is not of that shape.
std::string mangledBaseName(std::string_view name)
{
    std::size_t p = 2;
    if (p < name.size() && name[p] == 'N') {
        ++p;
        while (p < name.size() && (name[p] == 'K' || name[p] == 'V' || name[p] == 'r'))
            ++p;
    }
    std::string last;
    while (p < name.size()) {
        if (name[p] == 'L' || name[p] == 'S') {  // local/substitution prefixes: skip the letter
            if (name[p] == 'S' && p + 1 < name.size() && name[p + 1] == 't') {
                p += 2;  // "St" = std::
                continue;
            }
            if (name[p] == 'L') {
                ++p;
                continue;
            }
            break;
        }
        if (!std::isdigit(static_cast<unsigned char>(name[p])))
            break;
        std::size_t length = 0;
        while (p < name.size() && std::isdigit(static_cast<unsigned char>(name[p]))) {
            length = length * 10 + static_cast<std::size_t>(name[p] - '0');
            if (length > name.size())
                return {};
            ++p;
        }
        if (length == 0 || p + length > name.size())
            break;  // cut short: keep what was read
        last = std::string(name.substr(p, length));
        p += length;
    }
    return last;
}

}  // namespace

std::string kernelExactKey(std::string_view name)
{
    std::string s = replaceAll(std::string(name), "(anonymous namespace)", "<unnamed>");
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (!std::isspace(static_cast<unsigned char>(c)))
            out.push_back(c);
    }
    return out;
}

std::string kernelBaseKey(std::string_view name)
{
    std::size_t start = 0;
    while (start < name.size() && std::isspace(static_cast<unsigned char>(name[start])))
        ++start;
    name.remove_prefix(start);
    if (name.starts_with("_Z")) {
        std::string base = mangledBaseName(name);
        return base.empty() ? kernelExactKey(name) : base;
    }
    const std::string s = replaceAll(std::string(name), "(anonymous namespace)", "<unnamed>");
    // The last identifier at nesting depth 0 before the parameter list ('(') or Numba's
    // specialisation list ('[') at depth 0.
    int depth = 0;
    std::string last, current;
    for (std::size_t i = 0; i <= s.size(); ++i) {
        const char c = i < s.size() ? s[i] : '\0';
        if (depth == 0 && isIdentChar(c)) {
            current.push_back(c);
            continue;
        }
        if (!current.empty()) {
            last = current;
            current.clear();
        }
        if (c == '<')
            ++depth;
        else if (c == '>' && depth > 0)
            --depth;
        else if ((c == '(' || c == '[') && depth == 0) {
            // "operator()" and "operator[]" are names, not parameter lists.
            if (last == "operator" || last.empty())
                return kernelExactKey(name);
            break;
        }
    }
    return last.empty() ? kernelExactKey(name) : last;
}

}  // namespace strata::storage
