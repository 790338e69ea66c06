#include "views/efficiency_panel.h"

#include "model/role_rules.h"
#include "model/time_units.h"
#include "views/on_screen_work.h"
#include "views/scaling_table_widget.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace strata::views {

using model::Role;
using storage::EfficiencyReport;

namespace {

constexpr std::array kLevels = { model::WorkerLevel::Process, model::WorkerLevel::Thread,
    model::WorkerLevel::Gpu, model::WorkerLevel::Stream };

std::optional<double> communication(const EfficiencyReport& r)
{
    return r.gpu ? r.gpu->communicationEfficiency : r.pop.communicationEfficiency;
}

QTableWidgetItem* readOnly(const QString& text)
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    return item;
}

/// A role's time in a worker's window: "12.3 ms  45%".
QString roleCell(model::TimeNs ns, model::TimeNs windowNs)
{
    const double share = windowNs > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(windowNs) : 0;
    return QStringLiteral("%1  %2%")
        .arg(QString::fromStdString(model::formatDuration(ns)))
        .arg(share, 0, 'f', 1);
}

} // namespace

QColor efficiencyColor(double value)
{
    const double v = std::clamp(value, 0.0, 1.0);
    double hue = 0; // red
    if (v >= 0.8)
        hue = 90 + (v - 0.8) / 0.2 * 30; // yellow-green to green
    else if (v >= 0.6)
        hue = 25 + (v - 0.6) / 0.2 * 30;  // orange to yellow
    return QColor::fromHsvF(static_cast<float>(hue / 360.0), 0.55f, 0.97f);
}

QString efficiencyScaleText()
{
    return QObject::tr(
        "Colour scale (POP reports): red below 0.6, orange to yellow from 0.6 to 0.8, "
        "green from 0.8; 1 is ideal.");
}

const std::vector<EfficiencyMetric>& efficiencyMetrics()
{
    static const std::vector<EfficiencyMetric> metrics = {
        { QObject::tr("Parallel efficiency"),
            [](const EfficiencyReport& r) -> std::optional<double> { return r.pop.parallelEfficiency; },
            { Role::Comm, Role::Sync, Role::Transfer, Role::Runtime, Role::Idle },
            QObject::tr("mean useful / T = LB x CommE (x Orchestration on GPUs)") },
        { QObject::tr("  Load balance"),
            [](const EfficiencyReport& r) -> std::optional<double> { return r.pop.loadBalance; },
            { Role::Useful }, QObject::tr("mean useful / max useful: the workers' useful time differs") },
        { QObject::tr("  Communication efficiency"), communication, { Role::Comm, Role::Sync, Role::Transfer },
            QObject::tr("host: max useful / T; GPU: max B / max(B + C), C = comm and transfer not "
                        "overlapped by compute") },
        { QObject::tr("  Orchestration efficiency"),
            [](const EfficiencyReport& r) -> std::optional<double> {
                if (r.gpu)
                    return r.gpu->orchestrationEfficiency;
                return std::nullopt;
            },
            { Role::Idle, Role::Runtime, Role::Sync },
            QObject::tr("GPU: max(B + C) / T, the GPU waiting for its host") },
        { QObject::tr("Host parallel efficiency"),
            [](const EfficiencyReport& r) -> std::optional<double> {
                if (r.hostPop)
                    return r.hostPop->parallelEfficiency;
                return std::nullopt;
            },
            { Role::Comm, Role::Sync, Role::Transfer, Role::Runtime, Role::Idle },
            QObject::tr("the GPUs' host processes, POP model") },
        { QObject::tr("  Host load balance"),
            [](const EfficiencyReport& r) -> std::optional<double> {
                if (r.hostPop)
                    return r.hostPop->loadBalance;
                return std::nullopt;
            },
            { Role::Useful }, QObject::tr("host processes: mean useful / max useful") },
        { QObject::tr("  Host communication efficiency"),
            [](const EfficiencyReport& r) -> std::optional<double> {
                if (r.hostPop)
                    return r.hostPop->communicationEfficiency;
                return std::nullopt;
            },
            { Role::Comm, Role::Sync }, QObject::tr("host processes: max useful / T") },
        { QObject::tr("Device-offload efficiency"),
            [](const EfficiencyReport& r) { return r.deviceOffloadEfficiency; }, { Role::Runtime },
            QObject::tr("host share not spent in GPU runtime calls") },
    };
    return metrics;
}

EfficiencyPanel::EfficiencyPanel(storage::StoreReader& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_requestedWindow(store.span())
{
    // The level computeEfficiency picks by itself: gpu when any stream holds intervals.
    const auto hasIntervals = [&](model::TrackId t) { return m_store.summary(t).intervals > 0; };
    m_level = model::workersAt(m_store.resources(), model::WorkerLevel::Gpu, hasIntervals).empty()
        ? model::WorkerLevel::Process
        : model::WorkerLevel::Gpu;

    m_levelBox = new QComboBox(this);
    for (model::WorkerLevel level : kLevels)
        m_levelBox->addItem(QString::fromUtf8(model::workerLevelName(level).data()));
    m_levelBox->setCurrentIndex(static_cast<int>(std::find(kLevels.begin(), kLevels.end(), m_level) - kLevels.begin()));
    connect(m_levelBox, &QComboBox::currentIndexChanged, this,
            [this](int i) { setLevel(kLevels[static_cast<std::size_t>(i)]); });
    m_status = new QLabel(this);

    m_metrics = new QTableWidget(0, 2, this);
    m_metrics->setHorizontalHeaderLabels({tr("whole run"), tr("window")});
    m_metrics->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_metrics->setMinimumWidth(420);
    m_metrics->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_metrics->setEditTriggers(QAbstractItemView::NoEditTriggers);
    connect(m_metrics, &QTableWidget::cellClicked, this, [this](int row, int) { onMetricClicked(row); });

    m_workers = new QTableWidget(0, 6, this);
    m_workers->setHorizontalHeaderLabels({tr("worker"), tr("useful"), tr("comm"), tr("sync"), tr("transfer"),
                                          tr("idle")});
    m_workers->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_workers->verticalHeader()->hide();
    m_workers->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_workers->setEditTriggers(QAbstractItemView::NoEditTriggers);
    connect(m_workers, &QTableWidget::cellClicked, this, [this](int row, int) { onWorkerClicked(row); });

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Level"), this));
    top->addWidget(m_levelBox);
    top->addWidget(m_status, 1);
    // Issue 19: the POP scaling table of this run and others of the same code.
    auto* compare = new QPushButton(tr("Compare runs…"), this);
    compare->setToolTip(tr("POP scaling table of this run and other stores of the same code "
                           "(efficiencies, scalabilities, IPC and frequency per run)"));
    connect(compare, &QPushButton::clicked, this, [this] {
        const QStringList files =
            QFileDialog::getOpenFileNames(this, tr("Runs to compare with this one"),
                QString::fromStdString(m_store.path().parent_path().string()),
                tr("Strata stores (*.strata)"));
        if (files.isEmpty())
            return;
        std::vector<std::filesystem::path> others;
        for (const QString& f : files)
            others.emplace_back(f.toStdString());
        compareRuns(others)->show();
    });
    top->addWidget(compare);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_metrics);
    split->addWidget(m_workers);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    setLevel(m_level);
}

EfficiencyPanel::~EfficiencyPanel() = default;

ScalingDialog* EfficiencyPanel::compareRuns(const std::vector<std::filesystem::path>& others)
{
    std::vector<std::filesystem::path> stores { m_store.path() };
    for (const auto& o : others) {
        if (o != m_store.path())
            stores.push_back(o);
    }
    auto* dialog = new ScalingDialog(std::move(stores), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    return dialog;
}

void EfficiencyPanel::setLevel(model::WorkerLevel level)
{
    m_level = level;
    m_levelBox->blockSignals(true);
    m_levelBox->setCurrentIndex(static_cast<int>(std::find(kLevels.begin(), kLevels.end(), level) - kLevels.begin()));
    m_levelBox->blockSignals(false);
    m_levelWorkers = model::workersAt(m_store.resources(), level,
                                      [&](model::TrackId t) { return m_store.summary(t).intervals > 0; });
    m_work.requestNow(); // a level change is deliberate: no pause
}

void EfficiencyPanel::setWindow(model::TimeRange window)
{
    if (window == m_requestedWindow)
        return;
    m_requestedWindow = window;
    m_work.request();
}

void EfficiencyPanel::compute()
{
    const model::WorkerLevel level = m_level;
    const model::TimeRange window = m_requestedWindow;
    const bool needWhole = !m_whole || m_whole->level != level;
    m_status->setText(tr("computing…"));
    m_runner.submit([this, &store = m_store, level, window, needWhole]() -> LatestJobRunner::Continuation {
        // Rules cache their matches and are not thread-safe: this thread's own copy.
        const model::RoleRules rules = model::RoleRules::defaults();
        storage::EfficiencyRequest request;
        request.level = level;
        request.rules = &rules;
        try {
            std::optional<EfficiencyReport> whole;
            if (needWhole) {
                // The MPI analyses (ideal replay, hybrid split) read every MPI call: once
                // per level, for the whole run.
                request.idealReplay = true;
                whole = storage::computeEfficiency(store, request);
                request.idealReplay = false;
            }
            request.window = window;
            auto inWindow = std::make_shared<EfficiencyReport>(storage::computeEfficiency(store, request));
            return [this, whole = std::move(whole), inWindow] {
                if (whole)
                    m_whole = *whole;
                m_window = *inWindow;
                m_status->clear();
                showReports();
            };
        } catch (const std::exception& e) {
            return [this, message = QString::fromUtf8(e.what())] { m_status->setText(tr("failed: %1").arg(message)); };
        }
    });
}

void EfficiencyPanel::waitForReports()
{
    m_work.runPending();
    m_runner.waitUntilIdle();
}

void EfficiencyPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    resume();
}

void EfficiencyPanel::resume()
{
    m_work.resume();
}

void EfficiencyPanel::showReports()
{
    m_metrics->setRowCount(0);
    m_metricRows.clear();
    const auto& metrics = efficiencyMetrics();
    for (std::size_t i = 0; i < metrics.size(); ++i) {
        const EfficiencyMetric& m = metrics[i];
        const std::optional<double> whole = m_whole ? m.value(*m_whole) : std::nullopt;
        const std::optional<double> window = m_window ? m.value(*m_window) : std::nullopt;
        if (!whole && !window)
            continue;
        const int row = m_metrics->rowCount();
        m_metrics->insertRow(row);
        m_metricRows.push_back(static_cast<int>(i));
        auto* header = new QTableWidgetItem(m.name);
        header->setToolTip(m.formula);
        m_metrics->setVerticalHeaderItem(row, header);
        int column = 0;
        for (const auto& value : {whole, window}) {
            auto* cell = readOnly(value ? QString::number(*value, 'f', 3) : tr("—"));
            cell->setTextAlignment(Qt::AlignCenter);
            if (value) {
                cell->setBackground(efficiencyColor(*value));
                cell->setForeground(QColor(Qt::black));
                cell->setData(Qt::UserRole, *value);
            }
            cell->setToolTip(m.formula + QStringLiteral("\n") + efficiencyScaleText());
            m_metrics->setItem(row, column++, cell);
        }
    }
    const int row = m_metrics->rowCount();
    m_metrics->insertRow(row);
    m_metrics->setVerticalHeaderItem(row, new QTableWidgetItem(tr("  Serialization / Transfer")));
    for (int c = 0; c < 2; ++c) {
        // Issue 19: the ideal replay splits the whole run's CommE (docs/metrics.md).
        const auto& report = c == 0 ? m_whole : m_window;
        const bool split = c == 0 && report && report->pop.serializationEfficiency && !report->gpu;
        auto* cell = readOnly(split ? QStringLiteral("%1 / %2")
                                          .arg(*report->pop.serializationEfficiency, 0, 'f', 3)
                                          .arg(*report->pop.transferEfficiency, 0, 'f', 3)
                                    : tr("n/a"));
        cell->setTextAlignment(Qt::AlignCenter);
        if (split) {
            cell->setBackground(efficiencyColor(
                std::min(*report->pop.serializationEfficiency, *report->pop.transferEfficiency)));
            cell->setForeground(QColor(Qt::black));
            cell->setToolTip(
                tr("SerE = max useful / T_ideal, TE = T_ideal / T, from a replay of the MPI "
                   "calls on an ideal network"));
        } else {
            cell->setForeground(QColor(Qt::gray));
            cell->setToolTip(c == 1 ? tr("The ideal-network replay covers the whole run only.")
                    : report && !report->replayUnavailable.empty()
                    ? QString::fromStdString(report->replayUnavailable)
                    : tr("POP's split of communication efficiency needs an ideal-network replay "
                         "of MPI calls and messages."));
        }
        m_metrics->setItem(row, c, cell);
    }
    if (m_window) {
        const auto& w = m_window->window;
        m_metrics->horizontalHeaderItem(1)->setToolTip(
            tr("%1 .. %2").arg(QString::fromStdString(model::formatDuration(w.startNs)),
                               QString::fromStdString(model::formatDuration(w.endNs))));
        m_metrics->horizontalHeaderItem(1)->setText(
            tr("window (%1)").arg(QString::fromStdString(model::formatDuration(w.durationNs()))));
    }
    showWorkers();
}

void EfficiencyPanel::showWorkers()
{
    m_workers->setRowCount(0);
    if (!m_window)
        return;
    const model::TimeNs T = m_window->window.durationNs();
    for (const model::WorkerTimes& w : m_window->workers) {
        const int row = m_workers->rowCount();
        m_workers->insertRow(row);
        m_workers->setItem(row, 0, readOnly(QString::fromStdString(w.name)));
        const model::RoleTimes& t = w.times;
        const model::TimeNs values[] = {t.at(Role::Useful), t.at(Role::Comm), t.at(Role::Sync),
                                        t.at(Role::Transfer), t.idleNs()};
        for (int c = 0; c < 5; ++c) {
            auto* cell = readOnly(roleCell(values[c], T));
            cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_workers->setItem(row, c + 1, cell);
        }
    }
}

void EfficiencyPanel::onMetricClicked(int row)
{
    if (row < 0 || row >= static_cast<int>(m_metricRows.size()))
        return;
    const EfficiencyMetric& m = efficiencyMetrics()[static_cast<std::size_t>(m_metricRows[static_cast<std::size_t>(row)])];
    emit rolesLosingEfficiency(m.name.trimmed(), m.losingRoles);
}

void EfficiencyPanel::onWorkerClicked(int row)
{
    const QTableWidgetItem* item = m_workers->item(row, 0);
    if (!item)
        return;
    const std::string name = item->text().toStdString();
    for (const model::Worker& w : m_levelWorkers) {
        if (w.name == name) {
            emit workerActivated(item->text(), w.tracks);
            return;
        }
    }
}

} // namespace strata::views
