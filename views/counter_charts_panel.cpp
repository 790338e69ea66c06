#include "views/counter_charts_panel.h"

#include "model/time_units.h"
#include "views/counter_chart.h"
#include "views/gradient_legend.h"
#include "views/time_ticks.h"
#include "views/timeline_fetcher.h"
#include "views/timeline_widget.h"

#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QScrollArea>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace strata::views {

namespace {

constexpr int kChooserHeightPx = 180;

}  // namespace

CounterChartsPanel::CounterChartsPanel(storage::StoreReader& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_fetcher(std::make_unique<TimelineFetcher>(store))
    , m_window(store.span())
{
    // The chooser sits above the charts, folded away by default: beside them it would
    // push the plots off the timeline's time axis.
    m_chooserButton = new QToolButton(this);
    m_chooserButton->setCheckable(true);
    m_chooserButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_chooserButton->setAutoRaise(true);
    m_chooser = new QTreeWidget(this);
    m_chooser->setHeaderHidden(true);
    m_chooser->setMaximumHeight(kChooserHeightPx);
    m_chooser->hide();
    connect(m_chooserButton, &QToolButton::toggled, this, [this](bool on) {
        m_chooser->setVisible(on);
        updateChooserButton();
    });
    auto* scroll = new QScrollArea(this);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // The vertical scroll bar goes on the left, over the y axes' column: on the right it
    // would cut the plots short of the timeline's right edge.
    scroll->setLayoutDirection(Qt::RightToLeft);
    auto* chartsHost = m_chartsHost = new QWidget(scroll);
    chartsHost->setBackgroundRole(QPalette::Base);  // the charts' white, titles included
    chartsHost->setAutoFillBackground(true);
    chartsHost->setLayoutDirection(Qt::LeftToRight);
    m_chartsLayout = new QVBoxLayout(chartsHost);
    m_chartsLayout->setContentsMargins(0, 0, 0, 0);
    m_chartsLayout->setSpacing(0);
    scroll->setWidget(chartsHost);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_chooserButton, 0, Qt::AlignLeft);
    layout->addWidget(m_chooser);
    layout->addWidget(scroll, 1);
    m_gradient = new GradientLegend(this);
    layout->addWidget(m_gradient);

    connect(m_fetcher.get(), &TimelineFetcher::ready, this, &CounterChartsPanel::applyData,
        Qt::QueuedConnection);
    connect(m_chooser, &QTreeWidget::itemChanged, this, &CounterChartsPanel::onItemChanged);

    const auto all = counterTracks(store);
    m_counters.assign(
        all.begin(), all.begin() + std::min<std::ptrdiff_t>(kDefaultCharts, std::ssize(all)));
    buildChooser();
    rebuildCharts();
}

CounterChartsPanel::~CounterChartsPanel() = default;

std::vector<model::TrackId> CounterChartsPanel::counterTracks(const storage::StoreReader& store)
{
    std::vector<model::TrackId> out;
    const model::ResourceTree& tree = store.resources();
    // Depth-first in display order, so the default charts are the tree's first counters.
    std::vector<model::TrackId> stack;
    const auto roots = tree.children(model::kNoTrack);
    stack.assign(roots.rbegin(), roots.rend());
    while (!stack.empty()) {
        const model::TrackId t = stack.back();
        stack.pop_back();
        if (tree.track(t).kind == model::ResourceKind::Counter && store.summary(t).counters > 0)
            out.push_back(t);
        const auto children = tree.children(t);
        stack.insert(stack.end(), children.rbegin(), children.rend());
    }
    return out;
}

void CounterChartsPanel::buildChooser()
{
    m_updatingChooser = true;
    m_chooser->clear();
    const model::ResourceTree& tree = m_store.resources();
    std::map<model::TrackId, QTreeWidgetItem*> groups;
    for (const model::TrackId t : counterTracks(m_store)) {
        const model::TrackId parent = tree.track(t).parent;
        QTreeWidgetItem*& group = groups[parent];
        if (!group) {
            group = new QTreeWidgetItem(m_chooser);
            group->setText(0,
                parent == model::kNoTrack ? tr("(top)")
                                          : QString::fromStdString(tree.path(parent)));
            group->setExpanded(true);
        }
        auto* item = new QTreeWidgetItem(group);
        const model::TrackInfo& info = tree.track(t);
        item->setText(0,
            QString::fromStdString(
                info.unit.empty() ? info.name : info.name + " (" + info.unit + ")"));
        item->setData(0, Qt::UserRole, static_cast<qulonglong>(t));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        const bool on = std::find(m_counters.begin(), m_counters.end(), t) != m_counters.end();
        item->setCheckState(0, on ? Qt::Checked : Qt::Unchecked);
    }
    m_chooser->expandAll();
    m_updatingChooser = false;
    updateChooserButton();
}

void CounterChartsPanel::updateChooserButton()
{
    m_chooserButton->setArrowType(m_chooserButton->isChecked() ? Qt::DownArrow : Qt::RightArrow);
    m_chooserButton->setText(
        tr("Counters: %1 of %2 charted").arg(m_counters.size()).arg(counterTracks(m_store).size()));
}

void CounterChartsPanel::onItemChanged(QTreeWidgetItem* item)
{
    if (m_updatingChooser || !item->parent())
        return;
    const auto track = static_cast<model::TrackId>(item->data(0, Qt::UserRole).toULongLong());
    auto counters = m_counters;
    std::erase(counters, track);
    if (item->checkState(0) == Qt::Checked) {
        // Keep the tree's order among the charts.
        const auto all = counterTracks(m_store);
        counters.push_back(track);
        std::ranges::sort(counters, {},
            [&](model::TrackId t) { return std::ranges::find(all, t) - all.begin(); });
    }
    setCounters(std::move(counters));
}

void CounterChartsPanel::setCounters(std::vector<model::TrackId> tracks)
{
    if (tracks == m_counters)
        return;
    m_counters = std::move(tracks);
    buildChooser();
    rebuildCharts();
    emit countersChanged();
}

void CounterChartsPanel::rebuildCharts()
{
    for (CounterChart* c : m_charts)
        delete c;
    m_charts.clear();
    const model::ResourceTree& tree = m_store.resources();
    for (const model::TrackId t : m_counters) {
        const model::TrackInfo& info = tree.track(t);
        const QString name = QString::fromStdString(
            info.unit.empty() ? info.name : info.name + " (" + info.unit + ")");
        // The stack shares one time axis: only the bottom chart labels it.
        auto* chart = new CounterChart(t, name, t == m_counters.back(), m_chartsHost);
        chart->view()->installEventFilter(this);  // its plot realigns when it resizes
        m_chartsLayout->addWidget(chart);
        m_charts.push_back(chart);
    }
    alignPlots();
    setWindow(m_window);
    m_fetcher->request({ m_counters, m_window, plotWidthPx() });
    applyData();
}

std::vector<QChart*> CounterChartsPanel::charts() const
{
    std::vector<QChart*> out;
    for (const CounterChart* c : m_charts)
        out.push_back(c->chart());
    return out;
}

const CounterSeries* CounterChartsPanel::series(model::TrackId track) const
{
    for (const CounterChart* c : m_charts)
        if (c->track() == track)
            return &c->data();
    return nullptr;
}

int CounterChartsPanel::plotWidthPx() const
{
    if (m_plotWidthPx >= 16)
        return m_plotWidthPx;
    return std::max(64, width() - TimelineFrame {}.labelWidthPx);  // not laid out yet
}

void CounterChartsPanel::alignTo(TimelineWidget* timeline)
{
    for (const QPointer<QObject>& o : m_watched)
        if (o)
            o->removeEventFilter(this);
    m_watched.clear();
    m_timeline = timeline;
    if (timeline) {
        // The timeline's data area moves on screen when the timeline or this panel does
        // (docks dragged, splitters moved): watch both, and every ancestor of the panel.
        m_watched.emplace_back(timeline);
        for (QWidget* w = parentWidget(); w; w = w->parentWidget())
            m_watched.emplace_back(w);
        for (const QPointer<QObject>& o : m_watched)
            o->installEventFilter(this);
    }
    alignPlots();
}

bool CounterChartsPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::Resize || event->type() == QEvent::Move
        || event->type() == QEvent::Show)
        scheduleAlign();
    return QWidget::eventFilter(watched, event);
}

void CounterChartsPanel::scheduleAlign()
{
    // Filters see a resize before the widget handles it (a chart view resizes its chart
    // afterwards), and one drag moves several widgets: align once, when all have settled.
    if (m_alignPending)
        return;
    m_alignPending = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_alignPending = false;
            alignPlots();
        },
        Qt::QueuedConnection);
}

void CounterChartsPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    scheduleAlign();
}

void CounterChartsPanel::alignPlots()
{
    // The x-range, in this panel's coordinates, of the timeline's data area
    // (TimelineFrame::xOf maps the window onto [labelWidthPx, widthPx)).
    TimelineFrame frame;
    frame.widthPx = width();
    QPoint origin;
    if (m_timeline) {
        frame = m_timeline->frame();
        origin = mapFromGlobal(m_timeline->mapToGlobal(QPoint(0, 0)));
    }
    const double left = origin.x() + frame.labelWidthPx;
    const double right = origin.x() + frame.widthPx;
    int plotWidth = 0;
    for (CounterChart* c : m_charts)
        plotWidth = std::max(plotWidth, c->placePlot(left, right, this));
    if (plotWidth != m_plotWidthPx && plotWidth > 0) {
        m_plotWidthPx = plotWidth;
        updateTimeAxes();
        requestData();
    }
}

void CounterChartsPanel::setWindow(model::TimeRange window)
{
    if (window.empty())
        return;
    m_window = window;
    updateTimeAxes();
    requestData();
}

void CounterChartsPanel::updateTimeAxes()
{
    // The ruler's ticks at the ruler's step, for the same plot width.
    const std::vector<TimeTick> ticks = timeTicks(m_window, plotWidthPx());
    const QString title =
        tr("time from the trace's start (window %1 wide)")
            .arg(QString::fromStdString(model::formatDuration(m_window.durationNs())));
    for (CounterChart* c : m_charts)
        c->setTimeAxis(m_window, ticks, title);
}

void CounterChartsPanel::setCursor(model::TimeNs timeNs)
{
    m_cursor = timeNs;
    for (CounterChart* c : m_charts)
        c->setCursor(m_cursor);
}

void CounterChartsPanel::requestData()
{
    if (!m_counters.empty())
        m_fetcher->request({ m_counters, m_window, plotWidthPx() });
}

void CounterChartsPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    scheduleAlign();
    requestData();
}

void CounterChartsPanel::waitForData()
{
    alignPlots();
    requestData();  // the plot width is known once laid out
    m_fetcher->waitUntilIdle();
    applyData();
}

void CounterChartsPanel::setKernelMetric(std::shared_ptr<const KernelMetricColors> metric)
{
    m_gradient->setMetric(std::move(metric));
}

void CounterChartsPanel::applyData()
{
    const auto answer = m_fetcher->latest();
    for (CounterChart* c : m_charts) {
        if (const storage::TrackSlice* slice = answer->slice(c->track()))
            c->setData(counterSeries(
                *slice, m_store.grid(), m_window, m_store.summary(c->track()).lastNs));
    }
}

}  // namespace strata::views
