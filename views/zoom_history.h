#pragma once
// Back/forward history of timeline windows, like a browser's: visiting a new window
// after going back drops the forward entries. Consecutive identical windows are kept
// once, and the history is bounded (the oldest entries are dropped).

#include "model/time_units.h"

#include <deque>
#include <optional>

namespace strata::views {

class ZoomHistory
{
public:
    static constexpr std::size_t kMaxEntries = 200;

    /// Remembers `current` as the window to come back to before moving elsewhere.
    void visit(model::TimeRange current);
    /// The window to show for Back, given the one shown now (which becomes Forward).
    std::optional<model::TimeRange> back(model::TimeRange current);
    std::optional<model::TimeRange> forward(model::TimeRange current);
    bool canGoBack() const { return !m_back.empty(); }
    bool canGoForward() const { return !m_forward.empty(); }

private:
    std::deque<model::TimeRange> m_back;
    std::deque<model::TimeRange> m_forward;
};

} // namespace strata::views
