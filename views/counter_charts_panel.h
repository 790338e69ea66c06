#pragma once
// CounterChartsPanel: stacked Qt Charts, one per chosen counter track, under the
// timeline. They show the timeline's window (x in store ns, the timeline's units), follow
// its zoom and pan through setWindow, and draw its cursor as a vertical line. Each chart
// is an envelope (min..max per bucket, a QAreaSeries) with the time-weighted mean line,
// from the store's counter pyramid at the panel's pixel width; the queries run on a
// TimelineFetcher (worker thread, the newest window wins). A tree on the left, counters
// grouped by the resource they hang off, chooses the charts (the first few by default).

#include "storage/store_reader.h"
#include "views/counter_series.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QChart;
class QChartView;
class QLineSeries;
class QTreeWidget;
class QTreeWidgetItem;
class QVBoxLayout;

namespace strata::views {

class GradientLegend;
class KernelMetricColors;
class TimelineFetcher;

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

private:
    struct Chart;
    void buildChooser();
    void rebuildCharts();
    void requestData();
    void applyData();
    void updateCursor(Chart& chart);
    void onItemChanged(QTreeWidgetItem* item);

    storage::StoreReader& m_store;
    std::unique_ptr<TimelineFetcher> m_fetcher;
    QTreeWidget* m_chooser = nullptr;
    QVBoxLayout* m_chartsLayout = nullptr;
    GradientLegend* m_gradient = nullptr;
    std::vector<model::TrackId> m_counters;
    std::vector<std::unique_ptr<Chart>> m_charts;
    model::TimeRange m_window;
    std::optional<model::TimeNs> m_cursor;
    bool m_updatingChooser = false;
};

} // namespace strata::views
