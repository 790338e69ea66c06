#pragma once
// The timeline as a widget. It paints whatever data the TimelineFetcher has (queried off
// the GUI thread) and refines when finer data arrives, so no frame waits on disk.
//
// Navigation: the mouse wheel zooms at the cursor (the time under it stays put),
// dragging pans, Shift-drag selects a time range (its duration is shown), Ctrl-drag
// selects a range and zooms to it, double-click zooms to an event, W/S zoom in/out at
// the centre, A/D pan by a tenth of the window, F or Home fits the whole run, Z zooms
// to the selected range, Alt+Left/Right go back/forward in the zoom history, Escape
// clears the selection. Shift+wheel scrolls the rows, Ctrl+wheel changes row height.
// Clicking an event selects it (selectionChanged); clicking a group header collapses
// or expands it; hovering shows a tooltip and the cursor line with its time.

#include "views/kernel_metric_colors.h"
#include "views/timeline_fetcher.h"
#include "views/zoom_history.h"

#include <QWidget>

namespace strata::views {

class TimelineWidget : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineWidget(storage::StoreReader& store, QWidget* parent = nullptr);

    model::TimeRange window() const { return m_window; }
    /// Moves to `window` without recording history (panning and zooming use this).
    void setWindow(model::TimeRange window);
    /// Moves to `window` and records where we were for Back.
    void navigateTo(model::TimeRange window);
    void fitAll();
    /// Zooms by `factor` (< 1 zooms in) keeping the time at plot x `anchorPx` in place.
    void zoom(double factor, double anchorPx);
    void panPx(double px);
    void back();
    void forward();
    bool canGoBack() const { return m_history.canGoBack(); }
    bool canGoForward() const { return m_history.canGoForward(); }

    /// Centres an interval, zooming so it is clearly visible, and selects it.
    void showInterval(const PickedInterval& picked);
    std::optional<PickedInterval> selection() const { return m_highlights.selection; }
    std::optional<model::TimeRange> selectedRange() const { return m_highlights.range; }
    void setSelectedRange(std::optional<model::TimeRange> range);
    void zoomToSelectedRange();
    void clearSelection();

    void setSearchMatches(std::unordered_set<model::StringId> names);
    void setTrackFilter(const QString& filter);
    /// Shows only these tracks (and the groups above them); an empty list shows all.
    void showOnlyTracks(const std::vector<model::TrackId>& tracks);
    void setLaneHeight(int px);
    int laneHeight() const { return m_renderer.layout().laneHeightPx; }
    void setColorBy(ColorBy mode);
    /// Colours kernels by this per-kernel metric (ColorBy::KernelMetric); null goes back to by-name.
    void setKernelMetric(std::shared_ptr<const KernelMetricColors> metric);
    void toggleCollapsed(model::TrackId group);
    void setFlowsVisible(bool visible);
    /// Whether each window's cells are read in full after the pass that draws them: the
    /// legend lists every name a cell holds, which the cells as drawn do not keep (their
    /// colour's name only). On by default; the main window turns it off while its legend
    /// is hidden, so that no frame pays for a detail nothing shows (a tooltip reads its
    /// own cell's detail). Search marks read it regardless.
    void setFullCellsWanted(bool wanted);

    const TimelineLayout& layout() const { return m_renderer.layout(); }
    const Palette& palette() const { return m_renderer.palette(); }
    const FrameTimings& lastTimings() const { return m_renderer.lastTimings(); }
    /// The data painted last (for the legend and tests).
    std::shared_ptr<const TimelineData> data() const { return m_fetcher.latest(); }
    /// The frame the widget paints at its current size and scroll.
    TimelineFrame frame() const;
    /// Blocks until the data for the current window has arrived (tests, screenshots).
    void waitForData();

signals:
    void windowChanged(strata::model::TimeRange window);
    void historyChanged();
    void selectionChanged(std::optional<strata::views::PickedInterval> selection);
    void rangeSelected(std::optional<strata::model::TimeRange> range);
    void cursorMoved(strata::model::TimeNs timeNs);
    void framePainted(double queryMs, double paintMs);
    void layoutChanged();
    void queryFailed(QString message);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    enum class Drag { None, Pan, SelectRange, ZoomRange };
    void requestData();
    void clampScroll();
    void relayout(const LayoutOptions& options);
    void showTooltip(QPointF pos);

    storage::StoreReader& m_store;
    TimelineRenderer m_renderer;
    TimelineFetcher m_fetcher;
    ZoomHistory m_history;
    TimelineHighlights m_highlights;
    model::TimeRange m_window;
    bool m_fullCellsWanted = true;
    int m_scrollPx = 0;
    Drag m_drag = Drag::None;
    QPointF m_pressPos;
    double m_lastX = 0;
    bool m_moved = false;
    qint64 m_lastWheelMs = 0;
};

} // namespace strata::views
