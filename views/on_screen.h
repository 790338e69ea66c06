#pragma once
// Whether a panel is worth computing for: the analysis docks skip their work while
// nobody can see them and catch up when they come on screen.

#include <QWidget>

namespace strata::views {

/// Shown and not behind another tab of a dock area: Qt keeps a tabbed-away dock's
/// widget "visible", with nothing of it on screen.
inline bool onScreen(const QWidget& widget)
{
    return widget.isVisible() && !widget.visibleRegion().isEmpty();
}

}  // namespace strata::views
