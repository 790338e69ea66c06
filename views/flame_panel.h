#pragma once
// The flame graph dock: the call tree of the timeline's window and tracks (stack samples
// where the tracks have them, else interval nesting), rebuilt on a worker thread when
// the window or the tracks change (debounced, the newest scope wins) and only while the
// dock is visible, so zooming the timeline never waits on it.

#include "storage/flame_query.h"
#include "views/flame_graph_widget.h"
#include "views/latest_job_runner.h"

#include <QTimer>
#include <QWidget>

#include <memory>

namespace strata::views {

class FlamePanel : public QWidget
{
    Q_OBJECT
public:
    explicit FlamePanel(storage::StoreReader& store, QWidget* parent = nullptr);
    ~FlamePanel() override;

    /// The window and tracks to aggregate (empty tracks: every track).
    void setScope(model::TimeRange window, std::vector<model::TrackId> tracks);
    /// Builds the tree for the current scope now and waits (tests, headless pictures).
    void rebuildAndWait();
    FlameGraphWidget* graph() const { return m_graph; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    void rebuild();

    storage::StoreReader& m_store;
    FlameGraphWidget* m_graph = nullptr;
    QTimer m_debounce;
    storage::FlameRequest m_request;
    bool m_stale = true;
    std::unique_ptr<LatestJobRunner> m_runner;  ///< last member: joined first on destruction
};

} // namespace strata::views
