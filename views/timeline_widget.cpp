#include "views/timeline_widget.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <cmath>

namespace strata::views {

TimelineWidget::TimelineWidget(storage::StoreReader& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_renderer(store)
{
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(400, 200);
    fitAll();
}

TimelineFrame TimelineWidget::frame() const
{
    TimelineFrame f;
    f.window = m_window;
    f.widthPx = width();
    f.heightPx = height();
    f.scrollPx = m_scrollPx;
    return f;
}

void TimelineWidget::setWindow(model::TimeRange window)
{
    // Never narrower than 100 ns or wider than 4x the run.
    const model::TimeNs span = std::max<model::TimeNs>(1, m_store.span().durationNs());
    model::TimeNs width = std::clamp<model::TimeNs>(window.durationNs(), 100, 4 * span);
    model::TimeNs start = std::clamp<model::TimeNs>(window.startNs, m_store.span().startNs - span,
                                                    m_store.span().endNs);
    m_window = {start, start + width};
    emit windowChanged(m_window);
    update();
}

void TimelineWidget::fitAll()
{
    const model::TimeRange span = m_store.span();
    const model::TimeNs margin = std::max<model::TimeNs>(1, span.durationNs() / 100);
    setWindow({span.startNs - margin, span.endNs + margin});
}

void TimelineWidget::zoom(double factor, double anchorPx)
{
    const TimelineFrame f = frame();
    const double anchorNs = m_window.startNs + anchorPx / f.pxPerNs();
    const double width = m_window.durationNs() * factor;
    const double start = anchorNs - (anchorNs - m_window.startNs) * factor;
    setWindow({static_cast<model::TimeNs>(std::llround(start)),
               static_cast<model::TimeNs>(std::llround(start + width))});
}

void TimelineWidget::panPx(double px)
{
    const auto deltaNs = static_cast<model::TimeNs>(std::llround(px / frame().pxPerNs()));
    setWindow({m_window.startNs + deltaNs, m_window.endNs + deltaNs});
}

void TimelineWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    m_renderer.paint(painter, frame());
    emit framePainted(m_renderer.lastTimings().queryMs, m_renderer.lastTimings().paintMs);
}

void TimelineWidget::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (event->modifiers() & Qt::ShiftModifier) {
        m_scrollPx = std::clamp(m_scrollPx - static_cast<int>(steps * 40), 0,
                                std::max(0, m_renderer.layout().heightPx - height() / 2));
        update();
    } else {
        zoom(std::pow(0.8, steps), event->position().x() - frame().labelWidthPx);
    }
    event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        m_dragging = true;
        m_lastX = event->position().x();
    }
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_dragging)
        return;
    panPx(m_lastX - event->position().x());
    m_lastX = event->position().x();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent*)
{
    m_dragging = false;
}

void TimelineWidget::keyPressEvent(QKeyEvent* event)
{
    const double centre = frame().plotWidthPx() / 2.0;
    switch (event->key()) {
    case Qt::Key_W: zoom(0.8, centre); break;
    case Qt::Key_S: zoom(1.25, centre); break;
    case Qt::Key_A: panPx(-frame().plotWidthPx() / 10.0); break;
    case Qt::Key_D: panPx(frame().plotWidthPx() / 10.0); break;
    case Qt::Key_F:
    case Qt::Key_Home: fitAll(); break;
    default: QWidget::keyPressEvent(event);
    }
}

} // namespace strata::views
