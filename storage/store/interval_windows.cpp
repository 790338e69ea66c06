#include "storage/store/interval_windows.h"

#include <limits>

namespace strata::storage {

IntervalWindows::IntervalWindows(
    const model::LodGrid& grid, std::span<const model::Interval> sortedIntervals)
    : IntervalWindows(grid, {}, sortedIntervals, WindowRange::all())
{}

IntervalWindows::IntervalWindows(const model::LodGrid& grid,
    std::span<const model::Interval> carried, std::span<const model::Interval> sortedIntervals,
    WindowRange range)
    : m_grid(grid)
    , m_carried(carried)
    , m_sorted(sortedIntervals)
    , m_windowNs(grid.bucketNs(grid.levels))
    , m_range(range)
{}

bool IntervalWindows::next()
{
    // The windows before the first are walked for what they carry into it, not shown;
    // those from the end on are the next piece's.
    while (step()) {
        if (m_window >= m_range.end)
            return false;
        if (m_window >= m_range.first)
            return true;
    }
    return false;
}

bool IntervalWindows::step()
{
    const std::size_t count = m_carried.size() + m_sorted.size();
    if (m_started) {
        // Keep the members that reach into the next window.
        const model::TimeNs endNs = (m_window + 1) * m_windowNs;
        std::erase_if(m_members, [&](const Member& m) { return at(m.index).endNs <= endNs; });
    }
    while (m_next < count && m_grid.bandOf(at(m_next).durationNs()) >= m_grid.levels)
        ++m_next;
    if (m_members.empty() && m_next == count)
        return false;
    m_window = m_members.empty() ? model::floorDiv(at(m_next).startNs, m_windowNs) : m_window + 1;
    m_started = true;
    const model::TimeNs endNs = (m_window + 1) * m_windowNs;
    for (; m_next < count && at(m_next).startNs < endNs; ++m_next) {
        const int band = m_grid.bandOf(at(m_next).durationNs());
        if (band < m_grid.levels)
            m_members.push_back(
                { static_cast<std::uint32_t>(m_next), static_cast<std::uint8_t>(band) });
    }
    return true;
}

std::int64_t windowOf(const model::LodGrid& grid, model::TimeNs ns)
{
    return model::floorDiv(ns, grid.bucketNs(grid.levels));
}

std::vector<std::uint32_t> carriedIntervals(const model::LodGrid& grid,
    std::span<const model::Interval> carried, std::span<const model::Interval> sorted)
{
    std::vector<std::uint32_t> kept;
    const std::span<const model::Interval> last = sorted.empty() ? carried : sorted;
    if (last.empty())
        return kept;
    // A summarized interval is shorter than a window: only those starting in the last
    // start's window can reach past it, and they lie at the end of the sorted order.
    const model::TimeNs windowNs = grid.bucketNs(grid.levels);
    const model::TimeNs borderNs = (windowOf(grid, last.back().startNs) + 1) * windowNs;
    auto keep = [&](std::span<const model::Interval> part, std::size_t base) {
        std::size_t from = part.size();
        while (from > 0 && part[from - 1].startNs > borderNs - windowNs)
            --from;
        for (std::size_t i = from; i < part.size(); ++i) {
            if (part[i].endNs > borderNs && grid.bandOf(part[i].durationNs()) < grid.levels)
                kept.push_back(static_cast<std::uint32_t>(base + i));
        }
    };
    keep(carried, 0);
    keep(sorted, carried.size());
    return kept;
}

}  // namespace strata::storage
