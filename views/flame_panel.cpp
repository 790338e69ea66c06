#include "views/flame_panel.h"

#include <QVBoxLayout>

namespace strata::views {

FlamePanel::FlamePanel(storage::StoreReader& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_runner(std::make_unique<LatestJobRunner>(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_graph = new FlameGraphWidget(this);
    layout->addWidget(m_graph);
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(200);
    connect(&m_debounce, &QTimer::timeout, this, &FlamePanel::rebuild);
}

FlamePanel::~FlamePanel() = default;

void FlamePanel::setScope(model::TimeRange window, std::vector<model::TrackId> tracks)
{
    m_request.startNs = window.startNs;
    m_request.endNs = window.endNs;
    m_request.tracks = std::move(tracks);
    m_stale = true;
    if (isVisible())
        m_debounce.start();
}

void FlamePanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale)
        m_debounce.start();
}

void FlamePanel::rebuild()
{
    m_stale = false;
    m_runner->submit([this, request = m_request]() -> LatestJobRunner::Continuation {
        auto tree = std::make_shared<model::FlameTree>(storage::buildFlameTree(m_store, request));
        return [this, tree] { m_graph->setTree(std::move(*tree)); };
    });
}

void FlamePanel::rebuildAndWait()
{
    rebuild();
    m_runner->waitUntilIdle();
}

} // namespace strata::views
