#pragma once
// The overview strip: the whole store (also a counter log recorded around the trace),
// from the coarsest levels, one thin band per track, with the timeline's current window
// marked. Clicking centres the timeline there; dragging moves the window. It renders
// through the same renderer as the timeline (one lane per track, no labels), fetched off
// the GUI thread, then scaled to fit.

#include "views/timeline_fetcher.h"

#include <QImage>
#include <QWidget>

namespace strata::views {

class OverviewStrip : public QWidget
{
    Q_OBJECT
public:
    explicit OverviewStrip(storage::StoreReader& store, QWidget* parent = nullptr);

    void setWindow(model::TimeRange window);
    QSize sizeHint() const override { return {800, 64}; }
    /// Renders the strip as shown (tests and headless pictures); waits for the data.
    QImage grabStrip();

signals:
    /// The user asks the timeline to show `window`.
    void windowRequested(strata::model::TimeRange window);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    TimelineFrame contentFrame() const;
    void requestData();
    void moveTo(double x);

    storage::StoreReader& m_store;
    TimelineRenderer m_renderer;
    TimelineFetcher m_fetcher;
    model::TimeRange m_run;
    model::TimeRange m_window;
    /// The strip's picture of the latest data at the widget's size (folding the rows of
    /// hundreds of tracks costs milliseconds: done once per data, not per window move).
    QImage m_picture;
    std::shared_ptr<const TimelineData> m_pictureOf;
};

/// `content` made `height` rows high, as an overview should: where source rows are more
/// than the target's, each target pixel takes the most inked (least light) of the pixels
/// it covers, so a thin busy band among many tracks stays visible instead of being
/// skipped by sampling or washed out by averaging; fewer source rows are scaled smoothly.
QImage foldRows(const QImage& content, int height);

} // namespace strata::views
