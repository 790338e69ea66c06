#pragma once
// The timeline as a widget: paints TimelineRenderer frames and navigates them.
// Mouse wheel zooms at the cursor (the time under it stays put), dragging pans, W/S zoom
// in/out at the centre, A/D pan by a tenth of the window, F or Home fits the whole run,
// and the vertical scroll bar (or Shift+wheel) scrolls the rows.

#include "views/timeline_renderer.h"

#include <QWidget>

namespace strata::views {

class TimelineWidget : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineWidget(storage::StoreReader& store, QWidget* parent = nullptr);

    model::TimeRange window() const { return m_window; }
    void setWindow(model::TimeRange window);
    void fitAll();
    /// Zooms by `factor` (< 1 zooms in) keeping the time at plot x `anchorPx` in place.
    void zoom(double factor, double anchorPx);
    void panPx(double px);
    const FrameTimings& lastTimings() const { return m_renderer.lastTimings(); }

signals:
    void windowChanged(strata::model::TimeRange window);
    void framePainted(double queryMs, double paintMs);

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    TimelineFrame frame() const;

    storage::StoreReader& m_store;
    TimelineRenderer m_renderer;
    model::TimeRange m_window;
    int m_scrollPx = 0;
    bool m_dragging = false;
    double m_lastX = 0;
};

} // namespace strata::views
