#pragma once
// Time in Strata is int64 nanoseconds from the trace's start. This header converts
// between that and what humans type and read ("12.5ms", "300us", "42ns").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata::model {

using TimeNs = std::int64_t;

inline constexpr TimeNs kNsPerUs = 1000;
inline constexpr TimeNs kNsPerMs = 1000 * kNsPerUs;
inline constexpr TimeNs kNsPerS = 1000 * kNsPerMs;

/// A half-open time window [startNs, endNs).
struct TimeRange
{
    TimeNs startNs = 0;
    TimeNs endNs = 0;

    TimeNs durationNs() const { return endNs - startNs; }
    bool empty() const { return endNs <= startNs; }
    bool overlaps(TimeNs s, TimeNs e) const { return s < endNs && e > startNs; }
    /// The part of this range inside `other`. Unchanged when that part would be empty (no
    /// overlap, or `other` a single point): a metrics window wholly outside the run stays
    /// what was asked for, and its length is never zero.
    TimeRange clippedTo(const TimeRange& other) const
    {
        const TimeRange part{startNs > other.startNs ? startNs : other.startNs,
                             endNs < other.endNs ? endNs : other.endNs};
        return part.empty() ? *this : part;
    }
    friend bool operator==(const TimeRange&, const TimeRange&) = default;
};

/// Parses a duration or time point with an optional unit: ns, us, ms, s (plain numbers
/// are ns). Decimals are exact to the nanosecond ("4.5us" = 4500). Returns nullopt on
/// anything else, including overflow.
std::optional<TimeNs> parseTime(std::string_view text);

/// Parses "T0:T1" (each side as parseTime). Returns nullopt unless T0 < T1.
std::optional<TimeRange> parseTimeRange(std::string_view text);

/// Formats a duration with an adaptive unit and at most 4 significant digits:
/// "812ns", "12.5us", "3.21ms", "42.0s".
std::string formatDuration(TimeNs ns);
/// A point in time with enough decimals to tell apart points `resolutionNs` apart, in
/// the unit of its magnitude: formatTimestamp(142300125, 1000) = "142.3001ms".
std::string formatTimestamp(TimeNs ns, TimeNs resolutionNs);

/// Parses a decimal number of `unitNs` nanoseconds ("4501783126066.206" us) straight
/// into integer ns without passing through a double, rounding to nearest. Returns
/// nullopt on malformed text or overflow. Used by importers whose timestamps are
/// decimal microseconds.
std::optional<TimeNs> parseDecimalScaled(std::string_view text, TimeNs unitNs);

} // namespace strata::model
