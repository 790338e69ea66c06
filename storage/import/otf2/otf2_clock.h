#pragma once
// OTF2 timestamps are ticks of a timer (Score-P's TSC at ~2 GHz, or clock_gettime ns) since
// an arbitrary point; the clock properties give the ticks per second and the global offset
// (the tick of the trace's start). Strata stores int64 ns from time 0 = the global offset.
//
//     ns = round((ticks - globalOffset) * 1e9 / ticksPerSecond)
//
// computed in 128-bit integers: a double would round values above 2^53 (a TSC reaches that
// after ~50 days), and 64-bit products overflow at ~9 s of 2 GHz ticks. Rounding is half
// away from zero, so ticks before the offset (clock corrections) mirror ticks after it.

#include "model/time_units.h"

#include <cstdint>
#include <optional>

namespace strata::storage {

class Otf2Clock
{
public:
    Otf2Clock() = default;
    Otf2Clock(std::uint64_t ticksPerSecond, std::uint64_t globalOffset)
        : m_ticksPerSecond(ticksPerSecond)
        , m_globalOffset(globalOffset)
    {}

    std::uint64_t ticksPerSecond() const { return m_ticksPerSecond; }
    std::uint64_t globalOffset() const { return m_globalOffset; }

    /// ns since the global offset; nullopt when the timer resolution is 0 or the result
    /// does not fit in int64.
    std::optional<model::TimeNs> toNs(std::uint64_t ticks) const
    {
        __extension__ typedef __int128 Int128;  // GCC/Clang; -Wpedantic-clean this way
        if (m_ticksPerSecond == 0)
            return std::nullopt;
        const Int128 delta = Int128(ticks) - Int128(m_globalOffset);
        const Int128 scaled = delta * 1'000'000'000;
        const Int128 half = Int128(m_ticksPerSecond / 2);
        const Int128 ns = scaled >= 0 ? (scaled + half) / Int128(m_ticksPerSecond)
                                      : -((-scaled + half) / Int128(m_ticksPerSecond));
        if (ns > Int128(INT64_MAX) || ns < Int128(INT64_MIN))
            return std::nullopt;
        return static_cast<model::TimeNs>(ns);
    }

private:
    std::uint64_t m_ticksPerSecond = 0;
    std::uint64_t m_globalOffset = 0;
};

}  // namespace strata::storage
