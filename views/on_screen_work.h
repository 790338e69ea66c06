#pragma once
// The work an analysis panel does for what it shows (a report, a profile): after a short
// pause when the timeline's window moves, and only while the panel is on screen. A panel
// tabbed away keeps the request pending and does it when it comes back.

#include <QTimer>
#include <QWidget>

#include <functional>

namespace strata::views {

class OnScreenWork
{
public:
    OnScreenWork(QWidget& panel, int pauseMs, std::function<void()> work);

    /// After the pause (the window moves often while the user pans).
    void request() { m_pause.start(); }
    /// At once, if the panel is on screen (a deliberate change: a level, a column).
    void requestNow();
    /// The panel came on screen: the pending work, after the pause (a dock may be on
    /// screen for a moment only).
    void resume();
    /// Runs what is pending now, on screen or not (tests, `strata render`).
    void runPending();

private:
    void run();

    QWidget& m_panel;
    QTimer m_pause;
    std::function<void()> m_work;
    bool m_pending = false;  ///< requested while off screen
};

}  // namespace strata::views
