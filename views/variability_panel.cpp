#include "views/variability_panel.h"

#include "model/time_units.h"
#include "storage/store/input_error.h"

#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <array>

namespace strata::views {

namespace {

constexpr std::array kLevels = { model::WorkerLevel::Process, model::WorkerLevel::Thread,
    model::WorkerLevel::Gpu, model::WorkerLevel::Stream };

// What a details row stands for (Qt::UserRole), and its payload (UserRole + 1, + 2).
enum RowKind { kInstanceRow = 1, kStepRow, kWorkerRow };

QString text(const std::string& s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString duration(model::TimeNs ns)
{
    return text(model::formatDuration(ns));
}

/// The unit the box plot's axis reads in: the largest that keeps the longest max >= 1.
std::pair<double, QString> axisUnit(model::TimeNs longestNs)
{
    if (longestNs >= 1'000'000'000)
        return { 1e9, QStringLiteral("s") };
    if (longestNs >= 1'000'000)
        return { 1e6, QStringLiteral("ms") };
    if (longestNs >= 1'000)
        return { 1e3, QStringLiteral("µs") };
    return { 1, QStringLiteral("ns") };
}

QTreeWidgetItem* row(QTreeWidgetItem* parent, const QStringList& columns)
{
    auto* item = new QTreeWidgetItem(parent, columns);
    return item;
}

}  // namespace

VariabilityPanel::VariabilityPanel(storage::StoreReader& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_window(store.activitySpan())
{
    m_levelBox = new QComboBox(this);
    for (model::WorkerLevel level : kLevels)
        m_levelBox->addItem(QString::fromUtf8(model::workerLevelName(level).data()));
    connect(m_levelBox, &QComboBox::currentIndexChanged, this,
        [this](int i) { setLevel(kLevels[static_cast<std::size_t>(i)]); });
    m_nameBox = new QComboBox(this);
    m_nameBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_nameBox->setMinimumContentsLength(40);
    m_nameBox->setToolTip(tr("Names ranked by variability cost: the time their instances spent "
                             "beyond the name's median"));
    connect(m_nameBox, &QComboBox::currentIndexChanged, this, &VariabilityPanel::rebuild);
    m_status = new QLabel(this);

    m_chart = new QChart();
    m_chart->legend()->hide();
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->setBackgroundRoundness(0);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_boxes = new QBoxPlotSeries();
    m_boxes->setBrush(QColor(0x3b, 0x7d, 0xd8, 90));
    m_boxes->setPen(QPen(QColor(0x1a, 0x4a, 0x8c), 1.2));
    m_chart->addSeries(m_boxes);
    auto* x = new QBarCategoryAxis();
    auto* y = new QValueAxis();
    y->setLabelFormat("%.4g");
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    m_boxes->attachAxis(x);
    m_boxes->attachAxis(y);
    connect(m_boxes, &QBoxPlotSeries::clicked, this,
        [this](QBoxSet* set) { activateWorker(set->label()); });
    m_chartView = new QChartView(m_chart, this);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setMinimumSize(320, 200);

    m_details = new QTreeWidget(this);
    m_details->setHeaderLabels({ tr("what"), tr("duration"), tr("start") });
    m_details->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_details->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_details->header()->setStretchLastSection(false);
    m_details->setUniformRowHeights(true);
    connect(m_details, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        const int kind = item->data(0, Qt::UserRole).toInt();
        const int name = m_nameBox->currentIndex();
        if (kind == kInstanceRow && m_report && name >= 0
            && static_cast<std::size_t>(name) < m_report->names.size()) {
            emit instanceActivated(
                static_cast<model::TrackId>(item->data(0, Qt::UserRole + 1).toLongLong()),
                item->data(0, Qt::UserRole + 2).toLongLong(),
                text(m_report->names[static_cast<std::size_t>(name)].name));
        } else if (kind == kStepRow) {
            emit stepActivated({ item->data(0, Qt::UserRole + 1).toLongLong(),
                item->data(0, Qt::UserRole + 2).toLongLong() });
        } else if (kind == kWorkerRow) {
            activateWorker(item->data(0, Qt::UserRole + 1).toString());
        }
    });

    auto* splitter = new QSplitter(this);
    splitter->addWidget(m_chartView);
    splitter->addWidget(m_details);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({ 600, 400 });

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Workers"), this));
    top->addWidget(m_levelBox);
    top->addWidget(new QLabel(tr("name"), this));
    top->addWidget(m_nameBox, 1);
    top->addWidget(m_status);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);

    m_work.requestNow();
}

VariabilityPanel::~VariabilityPanel() = default;

void VariabilityPanel::setWindow(model::TimeRange window)
{
    if (window == m_window)
        return;
    m_window = window;
    m_work.request();
}

void VariabilityPanel::setLevel(model::WorkerLevel level)
{
    m_level = level;
    m_levelBox->blockSignals(true);
    m_levelBox->setCurrentIndex(
        static_cast<int>(std::find(kLevels.begin(), kLevels.end(), level) - kLevels.begin()));
    m_levelBox->blockSignals(false);
    m_work.requestNow();
}

void VariabilityPanel::setNamesRegex(const std::string& regex)
{
    m_namesRegex = regex;
    m_work.requestNow();
}

void VariabilityPanel::setCurrentName(int index)
{
    m_nameBox->setCurrentIndex(index);
}

void VariabilityPanel::waitForReport()
{
    m_work.runPending();
    m_runner.waitUntilIdle();
}

void VariabilityPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    resume();
}

void VariabilityPanel::resume()
{
    m_work.resume();
}

void VariabilityPanel::compute()
{
    storage::VariabilityRequest request;
    request.window = m_window;
    request.level = m_level;
    request.namesRegex = m_namesRegex;
    request.top = 30;
    m_status->setText(tr("computing…"));
    const std::uint64_t generation = ++m_generation;
    m_runner.submit(
        [this, &store = m_store, request, generation]() -> LatestJobRunner::Continuation {
            int shownPercent = -1;
            const auto progress = [&](std::uint64_t done, std::uint64_t total) {
                if (m_generation != generation)
                    return false;
                const int percent = total ? static_cast<int>(100 * done / total) : 0;
                if (percent / 10 != shownPercent / 10) {
                    shownPercent = percent;
                    // Queued: runs on the GUI thread, and not at all once the panel is gone.
                    QMetaObject::invokeMethod(
                        this,
                        [this, percent, generation] {
                            if (m_generation == generation)
                                m_status->setText(tr("computing… %1%").arg(percent));
                        },
                        Qt::QueuedConnection);
                }
                return true;
            };
            try {
                auto report = std::make_shared<storage::VariabilityReport>(
                    storage::computeVariability(store, request, progress));
                return [this, report] {
                    m_report = std::move(*report);
                    m_status->setText(tr("window %1").arg(duration(m_report->window.durationNs())));
                    const QString current = m_nameBox->currentText();
                    m_nameBox->blockSignals(true);
                    m_nameBox->clear();
                    for (const storage::NameVariability& n : m_report->names)
                        m_nameBox->addItem(n.device ? text(n.name) + tr(" (GPU)") : text(n.name));
                    // Keep the name the user chose while the window moves.
                    m_nameBox->setCurrentIndex(std::max(0, m_nameBox->findText(current)));
                    m_nameBox->blockSignals(false);
                    rebuild();
                };
            } catch (const storage::Cancelled&) {
                return {};  // a newer request runs next
            } catch (const std::exception& e) {
                return [this, message = QString::fromUtf8(e.what())] {
                    m_status->setText(tr("failed: %1").arg(message));
                };
            }
        });
}

void VariabilityPanel::rebuild()
{
    m_boxes->clear();
    m_details->clear();
    if (!m_report)
        return;
    const int index = m_nameBox->currentIndex();
    const storage::NameVariability* name =
        index >= 0 && static_cast<std::size_t>(index) < m_report->names.size()
        ? &m_report->names[static_cast<std::size_t>(index)]
        : nullptr;

    auto* x = static_cast<QBarCategoryAxis*>(m_chart->axes(Qt::Horizontal).front());
    auto* y = static_cast<QValueAxis*>(m_chart->axes(Qt::Vertical).front());
    x->clear();
    if (name) {
        const auto [scale, unit] = axisUnit(name->stats.maxNs);
        QStringList workers;
        for (const storage::WorkerVariability& w : name->workers) {
            const storage::DurationStats& s = w.stats;
            auto* set =
                new QBoxSet(static_cast<qreal>(s.minNs) / scale, static_cast<qreal>(s.q1Ns) / scale,
                    static_cast<qreal>(s.p50Ns) / scale, static_cast<qreal>(s.q3Ns) / scale,
                    static_cast<qreal>(s.maxNs) / scale, text(w.worker));
            if (w.systematicallySlower)
                set->setBrush(QColor(0xd8, 0x5a, 0x3b, 120));
            m_boxes->append(set);
            workers << text(w.worker);
        }
        x->append(workers);
        y->setRange(0, static_cast<double>(name->stats.maxNs) / scale * 1.05);
        y->setTitleText(tr("duration (%1)").arg(unit));
        m_chart->setTitle(tr("%1: %2 instances, p50 %3, p95 %4, CV %5")
                              .arg(text(name->name).left(40))
                              .arg(name->stats.count)
                              .arg(duration(name->stats.p50Ns), duration(name->stats.p95Ns))
                              .arg(name->stats.cv, 0, 'f', 2));

        auto* slowest = new QTreeWidgetItem(m_details, { tr("Slowest instances") });
        for (const storage::SlowInstance& s : name->slowest) {
            QTreeWidgetItem* item =
                row(slowest, { text(s.worker), duration(s.durationNs), duration(s.startNs) });
            item->setData(0, Qt::UserRole, kInstanceRow);
            item->setData(0, Qt::UserRole + 1, static_cast<qlonglong>(s.track));
            item->setData(0, Qt::UserRole + 2, static_cast<qlonglong>(s.startNs));
        }
        auto* coincidence =
            new QTreeWidgetItem(m_details, { tr("During the slowest tenth vs the faster half") });
        for (const storage::Coincidence& c : m_report->coincidence) {
            if (c.name != name->name || c.device != name->device)
                continue;
            if (c.with.starts_with("counter:"))
                row(coincidence,
                    { tr("%1: mean %2 vs %3")
                            .arg(text(c.with.substr(8)), QString::number(c.slow, 'g', 4),
                                QString::number(c.fast, 'g', 4)) });
            else
                row(coincidence,
                    { tr("overlaps %1: %2% vs %3%")
                            .arg(text(c.with), QString::number(100 * c.slow, 'f', 0),
                                QString::number(100 * c.fast, 'f', 0)) });
        }
    } else {
        m_chart->setTitle(tr("no interval in the window"));
    }

    const QString none = m_report->stepsCompared == 0 ? tr("Stragglers: no steps to compare")
        : m_report->stragglers.empty()
        ? tr("Stragglers: none in %n step(s) (none works %1% of a step longer than the others)",
            nullptr, m_report->stepsCompared)
              .arg(100 * storage::kStragglerThreshold)
        : tr("Stragglers in %n step(s)", nullptr, m_report->stepsCompared);
    auto* stragglers = new QTreeWidgetItem(m_details, { none });
    for (const storage::Straggler& s : m_report->stragglers) {
        QTreeWidgetItem* item = row(stragglers, { text(s.worker), duration(s.excessNs) });
        item->setData(0, Qt::UserRole, kWorkerRow);
        item->setData(0, Qt::UserRole + 1, text(s.worker));
        for (const storage::StragglerStep& st : s.steps) {
            QTreeWidgetItem* step =
                row(item, { text(st.step), duration(st.excessNs), duration(st.startNs) });
            step->setData(0, Qt::UserRole, kStepRow);
            step->setData(0, Qt::UserRole + 1, static_cast<qlonglong>(st.startNs));
            step->setData(0, Qt::UserRole + 2, static_cast<qlonglong>(st.endNs));
        }
        for (const storage::StragglerCause& c : s.causes)
            row(item, { tr("cause: %1").arg(text(c.name).left(60)), duration(c.excessNs) });
    }
    // Headings and sentences span the row instead of widening the first column.
    for (int i = 0; i < m_details->topLevelItemCount(); ++i) {
        QTreeWidgetItem* top = m_details->topLevelItem(i);
        top->setFirstColumnSpanned(true);
        for (int c = 0; c < top->childCount(); ++c) {
            if (top->child(c)->text(1).isEmpty())
                top->child(c)->setFirstColumnSpanned(true);
        }
    }
    m_details->expandAll();
}

void VariabilityPanel::activateWorker(const QString& worker)
{
    for (const model::Worker& w : model::workersAt(m_store.resources(), m_level,
             [&](model::TrackId t) { return m_store.summary(t).intervals > 0; })) {
        if (text(w.name) == worker) {
            emit workerActivated(worker, w.tracks);
            return;
        }
    }
}

}  // namespace strata::views
