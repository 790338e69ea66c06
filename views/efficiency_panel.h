#pragma once
// The Efficiency panel: the POP metrics (and their GPU extension, docs/metrics.md) of the
// whole run beside those of the timeline's window, at a chosen worker level, coloured
// like POP reports; below, each worker's time by role in the window. Values come from
// storage::computeEfficiency, run on a worker thread (LatestJobRunner) ~150 ms after the
// window stops moving, so the GUI never waits on it.
//
// Clicking a worker row emits its tracks (to filter or select them in the timeline);
// clicking a metric row emits the roles whose time that metric loses (CommE: comm and
// sync), so the timeline can colour by role.

#include "model/role.h"
#include "model/workers.h"
#include "storage/analysis/efficiency_report.h"
#include "views/latest_job_runner.h"
#include "views/on_screen_work.h"

#include <QColor>
#include <QWidget>

#include <filesystem>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QTableWidget;
class QTimer;

namespace strata::views {

class ScalingDialog;

/// POP report colours for a metric in 0..1: red below 0.6, orange to yellow up to 0.8,
/// green from 0.8 (light shades, for dark text).
QColor efficiencyColor(double value);
/// The scale in words (the cells' tooltip).
QString efficiencyScaleText();

/// One metric row: its value in a report, if the report has it.
struct EfficiencyMetric
{
    QString name;
    std::optional<double> (*value)(const storage::EfficiencyReport&);
    std::vector<model::Role> losingRoles;  ///< whose time lowers it
    QString formula;
};
const std::vector<EfficiencyMetric>& efficiencyMetrics();

class EfficiencyPanel : public QWidget
{
    Q_OBJECT
public:
    explicit EfficiencyPanel(storage::StoreReader& store, QWidget* parent = nullptr);
    ~EfficiencyPanel() override;

    model::WorkerLevel level() const { return m_level; }
    void setLevel(model::WorkerLevel level);
    /// The timeline's window; the window column follows it after a short pause.
    void setWindow(model::TimeRange window);
    /// Blocks until the reports for the current level and window have arrived (tests,
    /// `strata render`).
    void waitForReports();
    /// The panel came on screen (its dock's tab raised): computes what waited meanwhile.
    void resume();

    const std::optional<storage::EfficiencyReport>& wholeRunReport() const { return m_whole; }
    const std::optional<storage::EfficiencyReport>& windowReport() const { return m_window; }
    QTableWidget* metricsTable() const { return m_metrics; }
    QTableWidget* workersTable() const { return m_workers; }
    /// "Compare runs…": a dialog (not yet shown, deleted on close) computing the POP
    /// scaling table of this store and `others`.
    ScalingDialog* compareRuns(const std::vector<std::filesystem::path>& others);

signals:
    void workerActivated(const QString& name, const std::vector<strata::model::TrackId>& tracks);
    void rolesLosingEfficiency(const QString& metric, const std::vector<strata::model::Role>& roles);

protected:
    void showEvent(QShowEvent* event) override;

private:
    /// The report for the current request; run by m_work, only while on screen (a dock
    /// tabbed away costs no work: on a 100M-event store, up to ~100 MB a panel).
    void compute();
    void showReports();
    void showWorkers();
    void onMetricClicked(int row);
    void onWorkerClicked(int row);

    storage::StoreReader& m_store;
    model::WorkerLevel m_level = model::WorkerLevel::Process;
    model::TimeRange m_requestedWindow;
    std::optional<storage::EfficiencyReport> m_whole, m_window;
    std::vector<model::Worker> m_levelWorkers;
    QComboBox* m_levelBox = nullptr;
    QLabel* m_status = nullptr;
    QTableWidget* m_metrics = nullptr;
    QTableWidget* m_workers = nullptr;
    std::vector<int> m_metricRows;  ///< table row -> index in efficiencyMetrics()
    /// compute() after a 150 ms pause in window changes, only while on screen.
    OnScreenWork m_work {*this, 150, [this] { compute(); }};
    LatestJobRunner m_runner {this};  // last: its thread stops before the rest goes
};

} // namespace strata::views
