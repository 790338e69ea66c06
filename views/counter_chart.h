#pragma once
// CounterChart: one counter's chart in the CounterChartsPanel stack, its title above it.
// It draws a CounterSeries (min..max envelope and mean line), a cursor line, and a time
// axis ticked where the timeline's ruler ticks (time_ticks.h); only the bottom chart of a
// stack writes the tick labels. Its plot area is placed from outside (placePlot), so the
// stack lines up with the timeline's data area to the pixel.

#include "views/counter_series.h"
#include "views/time_ticks.h"

#include <QWidget>

#include <optional>

class QCategoryAxis;
class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QValueAxis;

namespace strata::views {

class CounterChart : public QWidget
{
    Q_OBJECT
public:
    /// `name` is the title ("power (mW)"); `timeLabels` writes the time axis' labels and title.
    CounterChart(model::TrackId track, QString name, bool timeLabels, QWidget* parent = nullptr);

    model::TrackId track() const { return m_track; }
    QChart* chart() const { return m_chart; }
    QChartView* view() const { return m_view; }
    const CounterSeries& data() const { return m_data; }

    /// Draws `data`, fits the y axis to it and writes its range in the title.
    void setData(CounterSeries data);
    /// Shows `window` with a grid line (and, at the bottom, a label) at each tick.
    void setTimeAxis(
        model::TimeRange window, const std::vector<TimeTick>& ticks, const QString& title);
    void setCursor(std::optional<model::TimeNs> timeNs);
    /// Places the plot to span x in [leftPx, rightPx) of `reference`'s coordinates (an
    /// ancestor), as far as the view reaches. Returns the plot width (0: not laid out yet).
    int placePlot(double leftPx, double rightPx, const QWidget* reference);

private:
    model::TrackId m_track;
    QString m_name;
    QLabel* m_title =
        nullptr;  ///< not the chart's own: Qt Charts does not redraw that over a fixed plot area
    QChartView* m_view = nullptr;
    QChart* m_chart = nullptr;
    QLineSeries* m_lower = nullptr;
    QLineSeries* m_upper = nullptr;
    QLineSeries* m_mean = nullptr;
    QLineSeries* m_cursor = nullptr;
    QCategoryAxis* m_x = nullptr;  ///< one category per tick, labelled at its end
    QValueAxis* m_y = nullptr;
    CounterSeries m_data;
    std::optional<model::TimeNs> m_cursorNs;
};

}  // namespace strata::views
