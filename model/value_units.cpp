#include "model/value_units.h"

#include <array>
#include <cmath>
#include <cstdio>

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

/// A unit that starts with a prefix we do not convert ("MiB", "Gbps"): a second prefix
/// would read wrong, so its values print plain.
bool carriesPrefix(std::string_view unit)
{
    return unit.size() >= 2 && std::string_view("kKMGTPmun").find(unit[0]) != std::string_view::npos;
}

}  // namespace

std::string formatQuantity(double value, std::string_view unit)
{
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
    const double magnitude = std::fabs(value);
    const bool noSmallPrefix = unit.empty() || unit == "%";
    const char* symbol = "";
    double scaled = value;
    if (std::isfinite(value) && !carriesPrefix(unit)
        && (magnitude >= 1e4 || (magnitude > 0 && magnitude < 1 && !noSmallPrefix))) {
        for (const Prefix& p : kPrefixes) {
            if (magnitude >= std::pow(10.0, p.exponent) || p.exponent == -9) {
                scaled = value / std::pow(10.0, p.exponent);
                symbol = p.symbol;
                break;
            }
        }
    }
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.4g", scaled);
    std::string out = buffer;
    if (unit.empty())
        return out + symbol;
    return out + " " + symbol + std::string(unit);
}

}  // namespace strata::model
