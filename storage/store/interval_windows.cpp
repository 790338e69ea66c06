#include "storage/store/interval_windows.h"

namespace strata::storage {

IntervalWindows::IntervalWindows(
    const model::LodGrid& grid, std::span<const model::Interval> sortedIntervals)
    : m_grid(grid)
    , m_sorted(sortedIntervals)
    , m_windowNs(grid.bucketNs(grid.levels))
{}

bool IntervalWindows::next()
{
    if (m_started) {
        // Keep the members that reach into the next window.
        const model::TimeNs endNs = (m_window + 1) * m_windowNs;
        std::erase_if(m_members, [&](const Member& m) { return m_sorted[m.index].endNs <= endNs; });
    }
    while (
        m_next < m_sorted.size() && m_grid.bandOf(m_sorted[m_next].durationNs()) >= m_grid.levels)
        ++m_next;
    if (m_members.empty() && m_next == m_sorted.size())
        return false;
    m_window =
        m_members.empty() ? model::floorDiv(m_sorted[m_next].startNs, m_windowNs) : m_window + 1;
    m_started = true;
    const model::TimeNs endNs = (m_window + 1) * m_windowNs;
    for (; m_next < m_sorted.size() && m_sorted[m_next].startNs < endNs; ++m_next) {
        const int band = m_grid.bandOf(m_sorted[m_next].durationNs());
        if (band < m_grid.levels)
            m_members.push_back(
                { static_cast<std::uint32_t>(m_next), static_cast<std::uint8_t>(band) });
    }
    return true;
}

}  // namespace strata::storage
