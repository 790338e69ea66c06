#pragma once
// The Analyzer panel: Paraver's 2D profile of the timeline's window. Rows are the tracks
// of a worker level, columns the top names by time (or the six roles), each cell one
// statistic of storage::profileNames (total, count, mean, stddev, CV, % of window) as a
// white-to-dark heat map scaled to the table's largest value; columns sort on click of
// their header. The profile runs on a worker thread like the Efficiency panel's.
// Clicking a name cell emits (track, name) so the timeline can show that name's instances.

#include "model/workers.h"
#include "storage/analysis/name_profile.h"
#include "views/latest_job_runner.h"
#include "views/on_screen_work.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QSpinBox;
class QTableWidget;
class QTimer;

namespace strata::views {

enum class ProfileStatistic { Total, Count, Mean, StdDev, CV, WindowShare };

class AnalyzerPanel : public QWidget
{
    Q_OBJECT
public:
    explicit AnalyzerPanel(storage::StoreReader& store, QWidget* parent = nullptr);
    ~AnalyzerPanel() override;

    void setWindow(model::TimeRange window);
    void setLevel(model::WorkerLevel level);
    void setStatistic(ProfileStatistic statistic);
    /// true: columns are roles; false: the top names.
    void setColumnsByRole(bool byRole);
    /// Blocks until the profile of the current window has arrived (tests, rendering).
    void waitForProfile();
    /// The panel came on screen (its dock's tab raised): computes what waited meanwhile.
    void resume();

    const std::optional<storage::NameProfile>& profile() const { return m_profile; }
    QTableWidget* table() const { return m_table; }

signals:
    void cellActivated(strata::model::TrackId track, strata::model::StringId name);

protected:
    void showEvent(QShowEvent* event) override;

private:
    /// The report for the current request; run by m_work, only while on screen (a dock
    /// tabbed away costs no work: on a 100M-event store, up to ~100 MB a panel).
    void compute();
    void rebuild();

    storage::StoreReader& m_store;
    model::TimeRange m_window;
    model::WorkerLevel m_level = model::WorkerLevel::Thread;
    std::optional<storage::NameProfile> m_profile;
    std::vector<model::TrackId> m_rowTracks;
    std::vector<model::StringId> m_columnNames;  ///< names mode
    QComboBox* m_levelBox = nullptr;
    QComboBox* m_statBox = nullptr;
    QComboBox* m_columnsBox = nullptr;
    QSpinBox* m_topN = nullptr;
    QLabel* m_status = nullptr;
    QTableWidget* m_table = nullptr;
    /// compute() after a 150 ms pause in window changes, only while on screen.
    OnScreenWork m_work {*this, 150, [this] { compute(); }};
    LatestJobRunner m_runner {this};  // last: its thread stops before the rest goes
};

} // namespace strata::views
