#pragma once
// CounterChartsPanel: stacked Qt Charts, one per chosen counter track, under the
// timeline. They show the timeline's window (x in store ns, the timeline's units), follow
// its zoom and pan through setWindow, and draw its cursor as a vertical line. Each chart
// (a CounterChart) is an envelope (min..max per bucket, a QAreaSeries) with the time-weighted mean
// line, from the store's counter pyramid at the panel's pixel width; the queries run on a
// TimelineFetcher (worker thread, the newest window wins). A tree above the charts (shown
// by the "Counters" button), counters grouped by the resource they hang off, chooses the
// charts (the first few by default).
//
// Every plot spans exactly the screen x-range of the timeline's data area (alignTo), so a
// time sits at the same x in the timeline and in every chart, and the x axis has the
// ruler's ticks and labels (time_ticks.h). Without a timeline the plots span what a
// timeline as wide as the panel would: from its label column to the right edge.

#include "storage/store/store_reader.h"
#include "views/counter_series.h"

#include <QPointer>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QChart;
class QToolButton;
class QTreeWidget;
class QTreeWidgetItem;
class QVBoxLayout;

namespace strata::views {

class CounterChart;
class GradientLegend;
class KernelMetricColors;
class TimelineFetcher;
class TimelineWidget;

class CounterChartsPanel : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kDefaultCharts = 4;

    explicit CounterChartsPanel(storage::StoreReader& store, QWidget* parent = nullptr);
    ~CounterChartsPanel() override;

    /// Every counter track of the store, in resource-tree order.
    static std::vector<model::TrackId> counterTracks(const storage::StoreReader& store);

    std::vector<model::TrackId> counters() const { return m_counters; }
    void setCounters(std::vector<model::TrackId> tracks);
    model::TimeRange window() const { return m_window; }

    /// The charts, in the order of counters().
    std::vector<QChart*> charts() const;
    /// What the chart of `track` draws now (empty when it has no chart or no data yet).
    const CounterSeries* series(model::TrackId track) const;
    /// Pixel width the queries ask for (the plot area's width).
    int plotWidthPx() const;
    /// Lines every plot up under `timeline`'s data area, following its moves and resizes
    /// (null: a timeline as wide as this panel, right above it).
    void alignTo(TimelineWidget* timeline);
    /// The chooser of counters (hidden until the "Counters" button shows it).
    QTreeWidget* chooser() const { return m_chooser; }
    /// Blocks until the fetcher answered the last window, then redraws (tests, render).
    void waitForData();
    /// Shows the gradient key of the timeline's kernel colouring (null hides it).
    void setKernelMetric(std::shared_ptr<const KernelMetricColors> metric);
    GradientLegend* gradientLegend() const { return m_gradient; }

public slots:
    void setWindow(strata::model::TimeRange window);
    void setCursor(strata::model::TimeNs timeNs);

signals:
    void countersChanged();

protected:
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void buildChooser();
    void rebuildCharts();
    void requestData();
    void applyData();
    void updateTimeAxes();
    void alignPlots();
    void scheduleAlign();
    void updateChooserButton();
    void onItemChanged(QTreeWidgetItem* item);

    storage::StoreReader& m_store;
    std::unique_ptr<TimelineFetcher> m_fetcher;
    QToolButton* m_chooserButton = nullptr;
    QTreeWidget* m_chooser = nullptr;
    QVBoxLayout* m_chartsLayout = nullptr;
    GradientLegend* m_gradient = nullptr;
    std::vector<model::TrackId> m_counters;
    QWidget* m_chartsHost = nullptr;
    std::vector<CounterChart*> m_charts;  ///< owned by m_chartsHost
    QPointer<TimelineWidget> m_timeline;
    std::vector<QPointer<QObject>> m_watched;  ///< the timeline and this panel's ancestors
    int m_plotWidthPx = 0;  ///< of the aligned plots (0 until laid out)
    model::TimeRange m_window;
    std::optional<model::TimeNs> m_cursor;
    bool m_updatingChooser = false;
    bool m_alignPending = false;
};

}  // namespace strata::views
