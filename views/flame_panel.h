#pragma once
// The flame graph dock: the call tree of the timeline's window and tracks (stack samples
// where the tracks have them, else interval nesting), rebuilt on a worker thread when
// the window or the tracks change (debounced, the newest scope wins) and only while the
// dock is visible, so zooming the timeline never waits on it.
//
// Differential mode: with a baseline the dock shows diff(baseline, current scope), red
// where a frame's share of the total grew, blue where it shrank. The baseline is either
//   - pinned: the tree of the scope at the moment "Pin as baseline" was pressed; later
//     windows are compared with it (its tree is built once and kept), or
//   - another store (a second run): the same tracks (by resource path) and either the
//     same window relative to its start or its whole run (the "whole run" box).
// A readout under the buttons names the baseline.

#include "storage/analysis/flame_query.h"
#include "views/flame_graph_widget.h"
#include "views/latest_job_runner.h"

#include <QTimer>
#include <QWidget>

#include <filesystem>
#include <memory>

class QCheckBox;
class QLabel;
class QPushButton;

namespace strata::views {

class FlamePanel : public QWidget
{
    Q_OBJECT
public:
    explicit FlamePanel(storage::StoreReader& store, QWidget* parent = nullptr);
    ~FlamePanel() override;

    /// The window and tracks to aggregate (empty tracks: every track).
    void setScope(model::TimeRange window, std::vector<model::TrackId> tracks);
    /// Compares every later scope with the current one.
    void pinBaseline();
    /// Compares with the store at `path` (throws storage::StoreError when it cannot be
    /// read): its whole run when `wholeRun`, else the current window relative to its start.
    void compareWithStore(const std::filesystem::path& path, bool wholeRun);
    void clearBaseline();
    /// "window 1.2s – 1.5s", "run-a.strata, whole run"; empty without a baseline.
    QString baselineText() const;
    /// Builds the tree for the current scope now and waits (tests, headless pictures).
    void rebuildAndWait();
    /// The panel came on screen (its dock's tab raised): builds what waited meanwhile.
    void resume();
    FlameGraphWidget* graph() const { return m_graph; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    struct Baseline
    {
        std::shared_ptr<storage::StoreReader> store;  ///< null: the panel's own store
        QString storeName;
        std::optional<storage::FlameRequest> pinned;  ///< a pinned scope of the own store
        bool wholeRun = false;  ///< store baselines: the whole run, not the current window
        std::shared_ptr<const model::FlameTree> tree;  ///< built once when it is fixed
        std::uint64_t generation = 0;
    };
    /// What the baseline tree is built from for the current scope.
    storage::FlameRequest baselineRequest() const;
    bool baselineIsFixed() const { return m_baseline->pinned || m_baseline->wholeRun; }
    void chooseStore();
    void baselineChanged();
    void rebuild();
    void build();

    storage::StoreReader& m_store;
    FlameGraphWidget* m_graph = nullptr;
    QPushButton* m_clear = nullptr;
    QCheckBox* m_wholeRun = nullptr;
    QLabel* m_readout = nullptr;
    QTimer m_debounce;
    storage::FlameRequest m_request;
    std::optional<Baseline> m_baseline;
    std::uint64_t m_baselineGeneration = 0;
    bool m_stale = true;
    std::unique_ptr<LatestJobRunner> m_runner;  ///< last member: joined first on destruction
};

} // namespace strata::views
