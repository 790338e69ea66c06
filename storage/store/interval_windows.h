#pragma once
// IntervalWindows walks the intervals of one track, sorted by (start, seq), one window at
// a time, for the summarizers that build their levels window by window (level_summarizer.h,
// flame_summarizer.h). A window is a bucket of the grid's coarsest level: every level's
// buckets nest in it, and the intervals summarized (duration bands < grid.levels) are
// shorter than it, so each belongs to at most two windows and a summarizer holds what
// one window holds, whatever the length of the track.

#include "model/events.h"
#include "model/lod_grid.h"

#include <cstdint>
#include <span>
#include <vector>

namespace strata::storage {

class IntervalWindows
{
public:
    struct Member
    {
        std::uint32_t index;  ///< into the sorted intervals
        std::uint8_t band;  ///< its duration band
    };

    IntervalWindows(const model::LodGrid& grid, std::span<const model::Interval> sortedIntervals);

    /// Moves to the next window that summarized intervals touch; false after the last.
    bool next();
    /// Buckets [firstBucket, endBucket) of `level` lie in the window.
    std::int64_t firstBucket(int level) const { return m_window * bucketsPerWindow(level); }
    std::int64_t endBucket(int level) const { return (m_window + 1) * bucketsPerWindow(level); }
    /// The intervals of bands < grid.levels that touch the window, in (start, seq) order.
    std::span<const Member> members() const { return m_members; }

private:
    std::int64_t bucketsPerWindow(int level) const
    {
        return std::int64_t(1) << (m_grid.factorLog2 * (m_grid.levels - level));
    }

    const model::LodGrid& m_grid;
    std::span<const model::Interval> m_sorted;
    const model::TimeNs m_windowNs;
    std::size_t m_next = 0;  ///< the first interval not yet a member
    std::int64_t m_window = 0;
    bool m_started = false;
    std::vector<Member> m_members;
};

}  // namespace strata::storage
