#include "views/on_screen_work.h"

#include "views/on_screen.h"

namespace strata::views {

OnScreenWork::OnScreenWork(QWidget& panel, int pauseMs, std::function<void()> work)
    : m_panel(panel)
    , m_work(std::move(work))
{
    m_pause.setSingleShot(true);
    m_pause.setInterval(pauseMs);
    QObject::connect(&m_pause, &QTimer::timeout, &panel, [this] { requestNow(); });
}

void OnScreenWork::requestNow()
{
    m_pause.stop();
    if (onScreen(m_panel))
        run();
    else
        m_pending = true;
}

void OnScreenWork::resume()
{
    if (m_pending)
        m_pause.start();
}

void OnScreenWork::runPending()
{
    if (m_pause.isActive() || m_pending)
        run();
}

void OnScreenWork::run()
{
    m_pause.stop();
    m_pending = false;
    m_work();
}

}  // namespace strata::views
