#include "model/time_units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

namespace strata::model {

namespace {

__extension__ typedef __int128 Int128;  // GCC/Clang; -Wpedantic-clean this way

}  // namespace

std::optional<TimeNs> parseDecimalScaled(std::string_view text, TimeNs unitNs)
{
    if (text.empty())
        return std::nullopt;
    bool negative = false;
    std::size_t i = 0;
    if (text[0] == '-' || text[0] == '+') {
        negative = text[0] == '-';
        ++i;
    }
    // Integer part.
    Int128 whole = 0;
    std::size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
        whole = whole * 10 + (text[i] - '0');
        if (whole > std::numeric_limits<std::int64_t>::max())
            return std::nullopt;
    }
    // Fraction: keep enough digits to round at the nanosecond.
    Int128 frac = 0;
    Int128 fracScale = 1;
    if (i < text.size() && text[i] == '.') {
        ++i;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
            if (fracScale < static_cast<Int128>(1'000'000'000'000'000'000LL)) {
                frac = frac * 10 + (text[i] - '0');
                fracScale *= 10;
            }
        }
    }
    int exponent = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool expNeg = false;
        if (i < text.size() && (text[i] == '-' || text[i] == '+'))
            expNeg = text[i++] == '-';
        std::size_t expDigits = 0;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++expDigits) {
            exponent = exponent * 10 + (text[i] - '0');
            if (exponent > 40)
                return std::nullopt;
        }
        if (expDigits == 0)
            return std::nullopt;
        if (expNeg)
            exponent = -exponent;
    }
    if (digits == 0 || i != text.size())
        return std::nullopt;
    // value = (whole + frac/fracScale) * 10^exponent * unitNs
    Int128 num = (whole * fracScale + frac) * unitNs;
    Int128 den = fracScale;
    for (; exponent > 0; --exponent) {
        num *= 10;
        if (num > (static_cast<Int128>(1) << 100))
            return std::nullopt;
    }
    for (; exponent < 0; ++exponent)
        den *= 10;
    Int128 result = (num + den / 2) / den;
    if (result > std::numeric_limits<std::int64_t>::max())
        return std::nullopt;
    return negative ? -static_cast<TimeNs>(result) : static_cast<TimeNs>(result);
}

std::optional<TimeNs> parseTime(std::string_view text)
{
    struct Unit
    {
        std::string_view suffix;
        TimeNs ns;
    };
    static constexpr Unit kUnits[] = {{"ns", 1}, {"us", kNsPerUs}, {"ms", kNsPerMs}, {"s", kNsPerS}};
    for (const Unit& unit : kUnits) {
        if (text.size() > unit.suffix.size() && text.ends_with(unit.suffix)) {
            auto number = text.substr(0, text.size() - unit.suffix.size());
            if (number.back() < '0' || number.back() > '9') {
                if (number.back() != '.')
                    continue;  // e.g. "ms" matched by "s": try the next unit
            }
            return parseDecimalScaled(number, unit.ns);
        }
    }
    return parseDecimalScaled(text, 1);
}

std::optional<TimeRange> parseTimeRange(std::string_view text)
{
    auto colon = text.find(':');
    if (colon == std::string_view::npos)
        return std::nullopt;
    auto start = parseTime(text.substr(0, colon));
    auto end = parseTime(text.substr(colon + 1));
    if (!start || !end || *start >= *end)
        return std::nullopt;
    return TimeRange{*start, *end};
}

std::string formatTimestamp(TimeNs ns, TimeNs resolutionNs)
{
    const TimeNs magnitude = ns < 0 ? -ns : ns;
    const auto [unitNs, unit] = magnitude >= kNsPerS    ? std::pair<TimeNs, const char*>(kNsPerS, "s")
                                : magnitude >= kNsPerMs ? std::pair<TimeNs, const char*>(kNsPerMs, "ms")
                                : magnitude >= kNsPerUs ? std::pair<TimeNs, const char*>(kNsPerUs, "us")
                                                        : std::pair<TimeNs, const char*>(1, "ns");
    int decimals = 0;
    for (TimeNs r = std::max<TimeNs>(1, resolutionNs); r < unitNs && decimals < 9; r *= 10)
        ++decimals;
    // Integer arithmetic: a double would blur the last digits of large absolute times.
    const TimeNs whole = magnitude / unitNs;
    TimeNs fraction = magnitude % unitNs;
    std::string text = (ns < 0 ? "-" : "") + std::to_string(whole);
    if (decimals > 0) {
        std::string digits = std::to_string(unitNs + fraction).substr(1);  // zero-padded
        text += "." + digits.substr(0, static_cast<std::size_t>(decimals));
    }
    return text + unit;
}

std::string formatDuration(TimeNs ns)
{
    const double magnitude = std::fabs(static_cast<double>(ns));
    const char* unit = "ns";
    double value = static_cast<double>(ns);
    if (magnitude >= kNsPerS) {
        value /= kNsPerS;
        unit = "s";
    } else if (magnitude >= kNsPerMs) {
        value /= kNsPerMs;
        unit = "ms";
    } else if (magnitude >= kNsPerUs) {
        value /= kNsPerUs;
        unit = "us";
    } else {
        return std::to_string(ns) + "ns";
    }
    char buffer[32];
    const double absValue = std::fabs(value);
    const int decimals = absValue >= 100 ? 1 : absValue >= 10 ? 2 : 3;
    std::snprintf(buffer, sizeof buffer, "%.*f%s", decimals, value, unit);
    return buffer;
}

} // namespace strata::model
