#include "views/counter_chart.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QLabel>
#include <QLineSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include "model/value_units.h"

#include <cmath>

namespace strata::views {

namespace {

constexpr int kChartHeightPx = 120;

QString valueText(double v)
{
    return QString::fromStdString(model::formatQuantity(v, {}));  // "4.866G", not "4.866e+09"
}

/// A value axis covering [lo, hi] with ticks every 1, 2, 2.5 or 5 x 10^k.
struct NiceAxis
{
    double lo = 0, hi = 1;
    int ticks = 2;
};

NiceAxis niceAxis(double lo, double hi, int maxTicks)
{
    const double span = hi - lo;
    for (double magnitude = std::pow(10.0, std::floor(std::log10(span / (maxTicks - 1))));; magnitude *= 10) {
        for (const double mantissa : { 1.0, 2.0, 2.5, 5.0 }) {
            const double step = mantissa * magnitude;
            const double first = std::floor(lo / step) * step, last = std::ceil(hi / step) * step;
            const int ticks = static_cast<int>(std::lround((last - first) / step)) + 1;
            if (ticks <= maxTicks)
                return { first, last, std::max(2, ticks) };
        }
    }
}

}  // namespace

CounterChart::CounterChart(model::TrackId track, QString name, bool timeLabels, QWidget* parent)
    : QWidget(parent)
    , m_track(track)
    , m_name(std::move(name))
{
    m_chart = new QChart();
    m_chart->legend()->hide();
    m_chart->setMargins(QMargins(4, 2, 4, 2));
    m_chart->layout()->setContentsMargins(0, 0, 0, 0);
    m_chart->setBackgroundRoundness(0);
    // Over a fixed plot area (placePlot) Qt Charts lays its elements out again only when
    // the plot area has a visible background.
    m_chart->setPlotAreaBackgroundBrush(Qt::white);
    m_chart->setPlotAreaBackgroundVisible(true);
    m_lower = new QLineSeries();
    m_upper = new QLineSeries();
    auto* envelope = new QAreaSeries(m_upper, m_lower);
    envelope->setBrush(QColor(0x3b, 0x7d, 0xd8, 70));
    envelope->setPen(QPen(QColor(0x3b, 0x7d, 0xd8, 120), 1));
    m_mean = new QLineSeries();
    m_mean->setPen(QPen(QColor(0x1a, 0x4a, 0x8c), 1.5));
    m_cursor = new QLineSeries();
    m_cursor->setPen(QPen(QColor(0xd0, 0x20, 0x20), 1));
    m_x = new QCategoryAxis();
    m_x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    m_x->setLabelsVisible(timeLabels);
    m_x->setTitleVisible(timeLabels);
    m_y = new QValueAxis();
    m_y->setLabelFormat("%.4g");
    // Qt Charts leaves each y label a tick's share of the height, or elides it to "...".
    m_y->setTickCount(4);
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);
    for (QAbstractSeries* s : { static_cast<QAbstractSeries*>(envelope),
             static_cast<QAbstractSeries*>(m_mean), static_cast<QAbstractSeries*>(m_cursor) }) {
        m_chart->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    m_title = new QLabel(m_name, this);
    m_title->setAlignment(Qt::AlignCenter);
    m_view = new QChartView(m_chart, this);
    m_view->setRenderHint(QPainter::Antialiasing);
    const QFontMetricsF labels(m_x->labelsFont()), axisTitle(m_x->titleFont());
    m_view->setMinimumHeight(
        kChartHeightPx + (timeLabels ? static_cast<int>(labels.height() + axisTitle.height()) : 0));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 2, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_title);
    layout->addWidget(m_view, 1);
}

void CounterChart::setData(CounterSeries data)
{
    m_data = std::move(data);
    m_lower->replace(m_data.minPoints);
    m_upper->replace(m_data.maxPoints);
    m_mean->replace(m_data.meanPoints);
    double lo = m_data.minValue, hi = m_data.maxValue;
    if (hi <= lo) {
        lo -= 1;
        hi += 1;
    }
    // Ticks on round values (0, 10, 20 rather than 1.65, 11.55, 21.45), at most four:
    // Qt Charts leaves each y label a tick's share of the height, or elides it to "...".
    const NiceAxis axis = niceAxis(lo, hi, 4);
    m_y->setRange(axis.lo, axis.hi);
    m_y->setTickCount(axis.ticks);
    m_title->setText(m_data.empty()
            ? m_name
            : QStringLiteral("%1 [%2 … %3]%4")
                  .arg(m_name, valueText(m_data.minValue), valueText(m_data.maxValue),
                      m_data.exact ? QString() : tr(" (per-pixel min/mean/max)")));
    setCursor(m_cursorNs);  // spans the new y range
}

void CounterChart::setTimeAxis(
    model::TimeRange window, const std::vector<TimeTick>& ticks, const QString& title)
{
    m_x->setRange(static_cast<double>(window.startNs), static_cast<double>(window.endNs));
    for (const QString& label : m_x->categoriesLabels())
        m_x->remove(label);
    m_x->setStartValue(static_cast<double>(window.startNs));
    for (const TimeTick& tick : ticks)
        m_x->append(QString::fromStdString(tick.label), static_cast<double>(tick.timeNs));
    m_x->setTitleText(title);
    setCursor(m_cursorNs);
}

void CounterChart::setCursor(std::optional<model::TimeNs> timeNs)
{
    m_cursorNs = timeNs;
    const double x = timeNs ? static_cast<double>(*timeNs) : 0;
    if (!timeNs || x < m_x->min() || x > m_x->max()) {
        m_cursor->clear();
        return;
    }
    m_cursor->replace(QList<QPointF> { { x, m_y->min() }, { x, m_y->max() } });
}

int CounterChart::placePlot(double leftPx, double rightPx, const QWidget* reference)
{
    const QSizeF size = m_chart->size();
    if (size.width() < 16 || size.height() < 16)
        return 0;
    // Reference x -> the chart's own x (the chart fills its view's scene).
    const QPoint origin = m_view->viewport()->mapFrom(reference, QPoint(0, 0));
    const double offset = m_chart->mapFromScene(m_view->mapToScene(origin)).x();
    const double x0 = std::max(0.0, leftPx + offset);
    const double x1 = std::min(size.width(), rightPx + offset);
    // Half a y label of room above and below: the outer ticks are labelled too.
    const double top = m_chart->margins().top() + QFontMetricsF(m_y->labelsFont()).height() / 2 + 2;
    double below = m_chart->margins().bottom() + top;
    if (m_x->labelsVisible())
        below += QFontMetricsF(m_x->labelsFont()).height()
            + QFontMetricsF(m_x->titleFont()).height() + 8;
    const QRectF plot(x0, top, std::max(1.0, x1 - x0), std::max(1.0, size.height() - top - below));
    if (plot != m_chart->plotArea()) {
        m_chart->setPlotArea(plot);  // moves the series at once...
        m_chart->layout()->invalidate();  // ...but the axes and grid only with a new layout
    }
    return static_cast<int>(std::lround(plot.width()));
}

}  // namespace strata::views
