#include "storage/import/stacks/perf_script_parser.h"

#include "storage/import/common/text_util.h"

#include <charconv>
#include <vector>

namespace strata::storage {

namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t';
}

bool isHex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

struct Token
{
    std::string_view text;
    std::size_t end = 0;  ///< offset just past the token in the line
};

std::vector<Token> tokenize(std::string_view line)
{
    std::vector<Token> tokens;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && isSpace(line[i]))
            ++i;
        const std::size_t start = i;
        while (i < line.size() && !isSpace(line[i]))
            ++i;
        if (i > start)
            tokens.push_back({line.substr(start, i - start), i});
    }
    return tokens;
}

bool parseInt(std::string_view text, std::int64_t& value)
{
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

/// "PID" or "PID/TID" (perf prints -1 for unknown ids).
bool parseIds(std::string_view token, std::int64_t& first, std::int64_t& second, bool& both)
{
    const std::size_t slash = token.find('/');
    both = slash != std::string_view::npos;
    if (!parseInt(token.substr(0, slash), first))
        return false;
    return !both || parseInt(token.substr(slash + 1), second);
}

bool isTimeToken(std::string_view token)
{
    if (token.size() < 2 || token.back() != ':')
        return false;
    token.remove_suffix(1);
    const std::size_t dot = token.find('.');
    return isDigits(token.substr(0, dot))
        && (dot == std::string_view::npos || isDigits(token.substr(dot + 1)));
}

bool isEventToken(std::string_view token)
{
    if (token.size() < 2 || token.back() != ':')
        return false;
    const char c = token.front();
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/// Tries to read the header's tail from token `i` (the PID[/TID] token) on.
bool parseTail(std::string_view line, const std::vector<Token>& tokens, std::size_t i,
               PerfSampleHeader& h)
{
    std::int64_t first = 0, second = 0;
    bool both = false;
    if (!parseIds(tokens[i].text, first, second, both))
        return false;
    std::size_t j = i + 1;
    auto at = [&](std::size_t k) { return k < tokens.size() ? tokens[k].text : std::string_view(); };
    int cpu = -1;
    if (at(j).size() > 2 && at(j).front() == '[' && at(j).back() == ']') {
        std::int64_t c = 0;
        if (!parseInt(at(j).substr(1, at(j).size() - 2), c))
            return false;
        cpu = static_cast<int>(c);
        ++j;
    }
    std::optional<model::TimeNs> timeNs;
    bool overflow = false;
    if (isTimeToken(at(j))) {
        timeNs = model::parseDecimalScaled(at(j).substr(0, at(j).size() - 1), model::kNsPerS);
        overflow = !timeNs;
        ++j;
    }
    std::optional<std::uint64_t> period;
    if (isDigits(at(j))) {
        std::uint64_t p = 0;
        const auto [end, ec] = std::from_chars(at(j).data(), at(j).data() + at(j).size(), p);
        if (ec != std::errc())
            return false;
        period = p;
        ++j;
    }
    if (!isEventToken(at(j)))
        return false;
    h.comm = trim(line.substr(0, tokens[i - 1].end));
    h.pid = both ? first : -1;
    h.tid = both ? second : first;
    h.cpu = cpu;
    h.timeNs = timeNs;
    h.timeOverflow = overflow;
    h.period = period;
    h.event = at(j).substr(0, at(j).size() - 1);
    h.rest = trim(line.substr(tokens[j].end));
    return true;
}

} // namespace

std::optional<PerfSampleHeader> parsePerfSampleHeader(std::string_view line)
{
    if (line.empty() || isSpace(line.front()))
        return std::nullopt;
    const std::vector<Token> tokens = tokenize(line);
    PerfSampleHeader h;
    for (std::size_t i = 1; i < tokens.size(); ++i) {
        const char c = tokens[i].text.front();
        if (((c >= '0' && c <= '9') || c == '-') && parseTail(line, tokens, i, h))
            return h;
    }
    return std::nullopt;
}

PerfFrame parsePerfFrame(std::string_view line)
{
    std::string_view s = trim(line);
    std::size_t n = 0;
    while (n < s.size() && isHex(s[n]))
        ++n;
    if (n > 0 && (n == s.size() || isSpace(s[n])))
        s = trim(s.substr(n));  // the address
    PerfFrame frame;
    if (s.size() >= 2 && s.back() == ')') {
        const std::size_t open = s.rfind(" (");
        if (open != std::string_view::npos) {
            frame.dso = s.substr(open + 2, s.size() - open - 3);
            s = trim(s.substr(0, open));
        } else if (s.front() == '(') {
            frame.dso = s.substr(1, s.size() - 2);
            s = {};
        }
    }
    // "symbol+0x1f": perf >= 4.8 prints the offset into the symbol; drop it so that one
    // function is one frame.
    const std::size_t plus = s.rfind("+0x");
    if (plus != std::string_view::npos && plus > 0 && plus + 3 < s.size()) {
        bool hex = true;
        for (char c : s.substr(plus + 3))
            hex = hex && isHex(c);
        if (hex)
            s = s.substr(0, plus);
    }
    frame.symbol = s;
    return frame;
}

std::string perfFrameName(const PerfFrame& frame)
{
    if (!frame.symbol.empty() && frame.symbol != "[unknown]")
        return std::string(frame.symbol);
    if (frame.dso.empty() || frame.dso == "[unknown]")
        return "[unknown]";
    const std::size_t slash = frame.dso.rfind('/');
    return "[" + std::string(slash == std::string_view::npos ? frame.dso : frame.dso.substr(slash + 1)) + "]";
}

} // namespace strata::storage
