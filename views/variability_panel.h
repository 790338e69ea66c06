#pragma once
// The Variability panel: storage::computeVariability for the timeline's window, at a
// worker level. For the chosen name (the names ranked by variability cost), a Qt Charts
// box plot per worker (min, Q1, median, Q3, max of its durations); beside it the slowest
// instances of that name, the stragglers with their steps and causes, and what coincides
// with the name's slow instances. The report runs on a worker thread (LatestJobRunner:
// the latest window wins, and a report that a newer request supersedes stops reading),
// only while the panel is on screen, with its progress in tracks read.
//
// Clicking an instance emits instanceActivated (the timeline shows and selects it), a
// straggler's step stepActivated (the timeline goes to the step and selects its range),
// a worker's box or a straggler workerActivated (the timeline shows that worker only).

#include "model/workers.h"
#include "storage/analysis/variability.h"
#include "views/latest_job_runner.h"
#include "views/on_screen_work.h"

#include <QWidget>

#include <atomic>

class QBoxPlotSeries;
class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QTreeWidget;

namespace strata::views {

class VariabilityPanel : public QWidget
{
    Q_OBJECT
public:
    explicit VariabilityPanel(storage::StoreReader& store, QWidget* parent = nullptr);
    ~VariabilityPanel() override;

    void setWindow(model::TimeRange window);
    void setLevel(model::WorkerLevel level);
    /// Only the names this ECMAScript regex finds (empty: all).
    void setNamesRegex(const std::string& regex);
    /// Shows the name at this rank of the report (0: the costliest).
    void setCurrentName(int index);
    /// Blocks until the report of the current request has arrived (tests, rendering).
    void waitForReport();
    /// The panel came on screen (its dock's tab raised): computes what waited meanwhile.
    void resume();

    const std::optional<storage::VariabilityReport>& report() const { return m_report; }
    QBoxPlotSeries* boxes() const { return m_boxes; }
    QTreeWidget* details() const { return m_details; }

signals:
    void instanceActivated(
        strata::model::TrackId track, strata::model::TimeNs startNs, const QString& name);
    void stepActivated(strata::model::TimeRange step);
    void workerActivated(const QString& worker, const std::vector<strata::model::TrackId>& tracks);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void compute();
    void rebuild();
    void activateWorker(const QString& worker);

    storage::StoreReader& m_store;
    model::TimeRange m_window;
    model::WorkerLevel m_level = model::WorkerLevel::Process;
    std::string m_namesRegex;
    std::optional<storage::VariabilityReport> m_report;
    QComboBox* m_levelBox = nullptr;
    QComboBox* m_nameBox = nullptr;
    QLabel* m_status = nullptr;
    QChart* m_chart = nullptr;
    QChartView* m_chartView = nullptr;
    QBoxPlotSeries* m_boxes = nullptr;
    QTreeWidget* m_details = nullptr;
    /// The newest request: a report still reading tracks for an older one stops (the
    /// latest window wins without waiting for a stale whole-run read to finish).
    std::atomic<std::uint64_t> m_generation { 0 };
    OnScreenWork m_work { *this, 150, [this] {
                             compute();
                         } };
    LatestJobRunner m_runner { this };  // last: its thread stops before the rest goes
};

}  // namespace strata::views
