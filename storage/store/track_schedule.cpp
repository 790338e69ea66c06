#include "storage/store/track_schedule.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace strata::storage {

TrackSchedule::TrackSchedule(std::vector<std::uint64_t> weights)
    : m_weights(std::move(weights))
    , m_taken(m_weights.size(), false)
{}

std::size_t TrackSchedule::take(std::size_t end)
{
    end = std::min(end, m_weights.size());
    if (m_firstUntaken >= end)
        throw std::logic_error("TrackSchedule::take: no untaken track before the end");
    std::size_t best = m_firstUntaken;
    for (std::size_t i = best + 1; i < end; ++i) {
        if (!m_taken[i] && m_weights[i] > m_weights[best])
            best = i;
    }
    m_taken[best] = true;
    while (m_firstUntaken < m_weights.size() && m_taken[m_firstUntaken])
        ++m_firstUntaken;
    return best;
}

}  // namespace strata::storage
