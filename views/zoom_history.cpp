#include "views/zoom_history.h"

namespace strata::views {

void ZoomHistory::visit(model::TimeRange current)
{
    m_forward.clear();
    if (!m_back.empty() && m_back.back() == current)
        return;
    m_back.push_back(current);
    if (m_back.size() > kMaxEntries)
        m_back.pop_front();
}

std::optional<model::TimeRange> ZoomHistory::back(model::TimeRange current)
{
    if (m_back.empty())
        return std::nullopt;
    const model::TimeRange previous = m_back.back();
    m_back.pop_back();
    m_forward.push_back(current);
    return previous;
}

std::optional<model::TimeRange> ZoomHistory::forward(model::TimeRange current)
{
    if (m_forward.empty())
        return std::nullopt;
    const model::TimeRange next = m_forward.back();
    m_forward.pop_back();
    m_back.push_back(current);
    return next;
}

} // namespace strata::views
