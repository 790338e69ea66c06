#include "model/value_units.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace strata::model {

namespace {

struct ScaledUnit
{
    std::string_view unit;
    double factor;
    std::string_view base;
};

/// Units loggers write with a prefix already (NVML power in mW, clocks in MHz): read
/// in their base unit, so the prefix follows the value.
constexpr std::array<ScaledUnit, 16> kPrefixedUnits { {
    { "mW", 1e-3, "W" }, { "kW", 1e3, "W" }, { "kHz", 1e3, "Hz" }, { "MHz", 1e6, "Hz" },
    { "GHz", 1e9, "Hz" }, { "kB", 1e3, "B" }, { "KB", 1e3, "B" }, { "MB", 1e6, "B" },
    { "GB", 1e9, "B" }, { "ms", 1e-3, "s" }, { "us", 1e-6, "s" }, { "ns", 1e-9, "s" },
    { "mJ", 1e-3, "J" }, { "mV", 1e-3, "V" }, { "MB/s", 1e6, "B/s" }, { "GB/s", 1e9, "B/s" },
} };

/// A unit with a prefix we do not convert ("MiB", "Gbps", "TFLOP/s"): a second prefix
/// would read wrong, so its values print plain. Words that merely start with such a
/// letter ("misses", "nodes") are not prefixed.
bool carriesPrefix(std::string_view unit)
{
    if (unit.size() < 2 || std::string_view("kKMGTPmun").find(unit[0]) == std::string_view::npos)
        return false;
    const std::string_view rest = unit.substr(1);
    for (const std::string_view base : { "iB", "B", "b", "bps", "Hz", "W", "s", "J", "V", "A", "FLOP" }) {
        if (rest.substr(0, base.size()) == base
            && (rest.size() == base.size() || rest[base.size()] == '/'))
            return true;
    }
    return false;
}

/// `value` to 4 significant digits, as printed ("%.4g"), and back: the prefix is chosen
/// for the rounded value, so 999950 B reads "1 MB", not "1000 kB".
double rounded(double value)
{
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.4g", value);
    return std::strtod(buffer, nullptr);
}

}  // namespace

std::string formatQuantity(double value, std::string_view unit)
{
    const std::string suffix = unit.empty() ? std::string() : " " + std::string(unit);
    if (!std::isfinite(value))
        return (std::isnan(value) ? "n/a" : value > 0 ? "+inf" : "-inf") + suffix;
    for (const ScaledUnit& u : kPrefixedUnits) {
        if (unit == u.unit) {
            value *= u.factor;
            unit = u.base;
            break;
        }
    }
    struct Prefix
    {
        int exponent;
        const char* symbol;
    };
    static constexpr std::array<Prefix, 8> kPrefixes { { { 15, "P" }, { 12, "T" }, { 9, "G" },
        { 6, "M" }, { 3, "k" }, { -3, "m" }, { -6, "u" }, { -9, "n" } } };
    value = rounded(value) + 0.0;  // + 0.0: no "-0"
    const double magnitude = std::fabs(value);
    const bool prefixes = unit != "%" && !carriesPrefix(unit);
    const bool smallPrefixes = prefixes && !unit.empty();
    const char* symbol = "";
    double scaled = value;
    if (prefixes && magnitude < 1e18
        && (magnitude >= 1e4 || (magnitude > 0 && magnitude < 1 && smallPrefixes))) {
        for (const Prefix& p : kPrefixes) {
            const double base = std::pow(10.0, p.exponent);
            if (magnitude >= base || p.exponent == -9) {
                scaled = rounded(value / base);
                symbol = p.symbol;
                break;
            }
        }
    }
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.4g", scaled);
    const std::string unitText = unit.empty() ? std::string() : " " + std::string(symbol) + std::string(unit);
    return std::string(buffer) + (unit.empty() ? symbol : "") + unitText;
}

}  // namespace strata::model
