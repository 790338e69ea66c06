#include "views/counter_charts_panel.h"

#include "views/gradient_legend.h"
#include "views/timeline_fetcher.h"

#include "model/time_units.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLineSeries>
#include <QScrollArea>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <map>

namespace strata::views {

namespace {

constexpr int kChartHeightPx = 150;

QString valueText(double v)
{
    return QString::number(v, 'g', 4);
}

} // namespace

struct CounterChartsPanel::Chart
{
    model::TrackId track = model::kNoTrack;
    QString name;
    QChartView* view = nullptr;
    QChart* chart = nullptr;
    QLineSeries* lower = nullptr;
    QLineSeries* upper = nullptr;
    QLineSeries* mean = nullptr;
    QLineSeries* cursor = nullptr;
    QValueAxis* x = nullptr;
    QValueAxis* y = nullptr;
    CounterSeries data;
};

CounterChartsPanel::CounterChartsPanel(storage::StoreReader& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_fetcher(std::make_unique<TimelineFetcher>(store))
    , m_window(store.span())
{
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    m_chooser = new QTreeWidget(splitter);
    m_chooser->setHeaderLabel(tr("Counters"));
    m_chooser->setMinimumWidth(160);
    auto* scroll = new QScrollArea(splitter);
    scroll->setWidgetResizable(true);
    auto* chartsHost = new QWidget(scroll);
    m_chartsLayout = new QVBoxLayout(chartsHost);
    m_chartsLayout->setContentsMargins(0, 0, 0, 0);
    m_chartsLayout->setSpacing(0);
    m_chartsLayout->addStretch(1);
    scroll->setWidget(chartsHost);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({200, 1000});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
    m_gradient = new GradientLegend(this);
    layout->addWidget(m_gradient);

    connect(m_fetcher.get(), &TimelineFetcher::ready, this, &CounterChartsPanel::applyData, Qt::QueuedConnection);
    connect(m_chooser, &QTreeWidget::itemChanged, this, &CounterChartsPanel::onItemChanged);

    const auto all = counterTracks(store);
    m_counters.assign(all.begin(), all.begin() + std::min<std::ptrdiff_t>(kDefaultCharts, std::ssize(all)));
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
            group->setText(0, parent == model::kNoTrack ? tr("(top)") : QString::fromStdString(tree.path(parent)));
            group->setExpanded(true);
        }
        auto* item = new QTreeWidgetItem(group);
        const model::TrackInfo& info = tree.track(t);
        item->setText(0, QString::fromStdString(info.unit.empty() ? info.name : info.name + " (" + info.unit + ")"));
        item->setData(0, Qt::UserRole, static_cast<qulonglong>(t));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        const bool on = std::find(m_counters.begin(), m_counters.end(), t) != m_counters.end();
        item->setCheckState(0, on ? Qt::Checked : Qt::Unchecked);
    }
    m_chooser->expandAll();
    m_updatingChooser = false;
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
        std::ranges::sort(counters, {}, [&](model::TrackId t) { return std::ranges::find(all, t) - all.begin(); });
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
    for (auto& c : m_charts)
        delete c->view;
    m_charts.clear();
    const model::ResourceTree& tree = m_store.resources();
    for (const model::TrackId t : m_counters) {
        auto c = std::make_unique<Chart>();
        c->track = t;
        const model::TrackInfo& info = tree.track(t);
        c->name = QString::fromStdString(info.unit.empty() ? info.name : info.name + " (" + info.unit + ")");
        c->chart = new QChart();
        c->chart->legend()->hide();
        c->chart->setMargins(QMargins(4, 2, 4, 2));
        c->chart->setBackgroundRoundness(0);
        c->lower = new QLineSeries();
        c->upper = new QLineSeries();
        auto* envelope = new QAreaSeries(c->upper, c->lower);
        QColor fill(0x3b, 0x7d, 0xd8, 70);
        envelope->setBrush(fill);
        envelope->setPen(QPen(QColor(0x3b, 0x7d, 0xd8, 120), 1));
        c->mean = new QLineSeries();
        c->mean->setPen(QPen(QColor(0x1a, 0x4a, 0x8c), 1.5));
        c->cursor = new QLineSeries();
        c->cursor->setPen(QPen(QColor(0xd0, 0x20, 0x20), 1));
        c->x = new QValueAxis();
        c->x->setLabelFormat("%.6g");
        // The stack shares one time axis: only the bottom chart labels it.
        const bool bottom = t == m_counters.back();
        c->x->setLabelsVisible(bottom);
        c->x->setTitleVisible(bottom);
        c->y = new QValueAxis();
        c->y->setLabelFormat("%.4g");
        c->chart->addAxis(c->x, Qt::AlignBottom);
        c->chart->addAxis(c->y, Qt::AlignLeft);
        for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(envelope), static_cast<QAbstractSeries*>(c->mean),
                                   static_cast<QAbstractSeries*>(c->cursor)}) {
            c->chart->addSeries(s);
            s->attachAxis(c->x);
            s->attachAxis(c->y);
        }
        c->chart->setTitle(c->name);
        c->view = new QChartView(c->chart);
        c->view->setRenderHint(QPainter::Antialiasing);
        c->view->setMinimumHeight(kChartHeightPx);
        m_chartsLayout->insertWidget(m_chartsLayout->count() - 1, c->view);
        m_charts.push_back(std::move(c));
    }
    setWindow(m_window);
    m_fetcher->request({m_counters, m_window, plotWidthPx()});
    applyData();
}

std::vector<QChart*> CounterChartsPanel::charts() const
{
    std::vector<QChart*> out;
    for (const auto& c : m_charts)
        out.push_back(c->chart);
    return out;
}

const CounterSeries* CounterChartsPanel::series(model::TrackId track) const
{
    for (const auto& c : m_charts)
        if (c->track == track)
            return &c->data;
    return nullptr;
}

int CounterChartsPanel::plotWidthPx() const
{
    if (!m_charts.empty()) {
        const int w = static_cast<int>(m_charts.front()->chart->plotArea().width());
        if (w >= 16)
            return w;
    }
    return std::max(64, width() - 280);  // not laid out yet: chooser and y axis aside
}

void CounterChartsPanel::setWindow(model::TimeRange window)
{
    if (window.empty())
        return;
    m_window = window;
    const QString span = QStringLiteral("time (ns from the trace's start): %1 wide from %2")
                             .arg(QString::fromStdString(model::formatDuration(window.durationNs())),
                                  QString::fromStdString(model::formatTimestamp(window.startNs, window.durationNs() / 1000)));
    for (auto& c : m_charts) {
        c->x->setRange(static_cast<double>(window.startNs), static_cast<double>(window.endNs));
        c->x->setTitleText(span);
        updateCursor(*c);
    }
    requestData();
}

void CounterChartsPanel::setCursor(model::TimeNs timeNs)
{
    m_cursor = timeNs;
    for (auto& c : m_charts)
        updateCursor(*c);
}

void CounterChartsPanel::updateCursor(Chart& c)
{
    if (!m_cursor || *m_cursor < m_window.startNs || *m_cursor > m_window.endNs) {
        c.cursor->clear();
        return;
    }
    const double x = static_cast<double>(*m_cursor);
    c.cursor->replace(QList<QPointF>{{x, c.y->min()}, {x, c.y->max()}});
}

void CounterChartsPanel::requestData()
{
    if (!m_counters.empty())
        m_fetcher->request({m_counters, m_window, plotWidthPx()});
}

void CounterChartsPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    requestData();
}

void CounterChartsPanel::waitForData()
{
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
    for (auto& c : m_charts) {
        const storage::TrackSlice* slice = answer->slice(c->track);
        if (!slice)
            continue;
        c->data = counterSeries(*slice, m_store.grid(), m_window, m_store.summary(c->track).lastNs);
        c->lower->replace(c->data.minPoints);
        c->upper->replace(c->data.maxPoints);
        c->mean->replace(c->data.meanPoints);
        double lo = c->data.minValue, hi = c->data.maxValue;
        if (hi <= lo) {
            lo -= 1;
            hi += 1;
        }
        const double pad = (hi - lo) * 0.05;
        c->y->setRange(lo - pad, hi + pad);
        c->chart->setTitle(c->data.empty() ? c->name
                                           : QStringLiteral("%1   [%2 … %3]%4")
                                                 .arg(c->name, valueText(c->data.minValue), valueText(c->data.maxValue),
                                                      c->data.exact ? QString() : tr("  (per-pixel min/mean/max)")));
        updateCursor(*c);
    }
}

} // namespace strata::views
