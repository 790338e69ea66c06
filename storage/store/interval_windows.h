#pragma once
// IntervalWindows walks the intervals of one track, sorted by (start, seq), one window at
// a time, for the summarizers that build their levels window by window (level_summarizer.h,
// flame_summarizer.h). A window is a bucket of the grid's coarsest level: every level's
// buckets nest in it, and the intervals summarized (duration bands < grid.levels) are
// shorter than it, so each belongs to at most two windows and a summarizer holds what
// one window holds, whatever the length of the track.
//
// A track too long to hold is summarized in pieces, each the intervals starting in a run
// of whole windows (track_pieces.h). What crosses from one piece into the next is what
// crosses a window's border at one instant (a few nested intervals): the walk of a piece
// is given them first (`carried`, from carriedIntervals() of the piece before) and
// starts at the piece's first window, so that each window is walked once.

#include "model/events.h"
#include "model/lod_grid.h"

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace strata::storage {

/// The windows [first, end) a piece of a track walks: from the window of its first start
/// up to the next piece's first window (the windows its intervals reach into past its
/// last start's, when no piece starts there).
struct WindowRange
{
    std::int64_t first = std::numeric_limits<std::int64_t>::min();
    std::int64_t end = std::numeric_limits<std::int64_t>::max();
    /// A track held whole: all its windows.
    static constexpr WindowRange all() { return {}; }
    bool wholeTrack() const { return first == all().first && end == all().end; }
};

class IntervalWindows
{
public:
    struct Member
    {
        std::uint32_t index;  ///< into carried, then the sorted intervals (at())
        std::uint8_t band;  ///< its duration band
    };

    IntervalWindows(const model::LodGrid& grid, std::span<const model::Interval> sortedIntervals);
    /// The windows of `range` of `carried` (intervals of the windows before it, which
    /// reach into it) followed by `sortedIntervals` (which start at or after it).
    IntervalWindows(const model::LodGrid& grid, std::span<const model::Interval> carried,
        std::span<const model::Interval> sortedIntervals, WindowRange range);

    /// Moves to the next window that summarized intervals touch; false after the last.
    bool next();
    /// Buckets [firstBucket, endBucket) of `level` lie in the window.
    std::int64_t firstBucket(int level) const { return m_window * bucketsPerWindow(level); }
    std::int64_t endBucket(int level) const { return (m_window + 1) * bucketsPerWindow(level); }
    /// The intervals of bands < grid.levels that touch the window, in (start, seq) order.
    std::span<const Member> members() const { return m_members; }
    /// A member's interval.
    const model::Interval& at(std::uint32_t index) const
    {
        return index < m_carried.size() ? m_carried[index] : m_sorted[index - m_carried.size()];
    }

private:
    bool step();
    std::int64_t bucketsPerWindow(int level) const
    {
        return std::int64_t(1) << (m_grid.factorLog2 * (m_grid.levels - level));
    }

    const model::LodGrid& m_grid;
    std::span<const model::Interval> m_carried;
    std::span<const model::Interval> m_sorted;
    const model::TimeNs m_windowNs;
    const WindowRange m_range;
    std::size_t m_next = 0;  ///< the first interval (of both parts) not yet a member
    std::int64_t m_window = 0;
    bool m_started = false;
    std::vector<Member> m_members;
};

/// The window (a bucket of the grid's coarsest level) that holds time `ns`.
std::int64_t windowOf(const model::LodGrid& grid, model::TimeNs ns);

/// Of the intervals of a piece (`carried` into it, then its own, sorted), those the next
/// piece needs: the summarized ones that reach past the window of the last start, as
/// indices into both parts (as IntervalWindows::at() counts them), in order.
std::vector<std::uint32_t> carriedIntervals(const model::LodGrid& grid,
    std::span<const model::Interval> carried, std::span<const model::Interval> sorted);

}  // namespace strata::storage
