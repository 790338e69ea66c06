#include "views/flame_panel.h"

#include <QVBoxLayout>

namespace strata::views {

FlamePanel::FlamePanel(storage::StoreReader& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_graph = new FlameGraphWidget(this);
    layout->addWidget(m_graph);
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(200);
    connect(&m_debounce, &QTimer::timeout, this, &FlamePanel::rebuild);
}

FlamePanel::~FlamePanel()
{
    if (m_worker.joinable())
        m_worker.join();
}

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
    if (m_worker.joinable()) {
        m_rebuildPending = true;  // one build at a time: the next starts when it delivers
        return;
    }
    m_stale = false;
    const int generation = ++m_generation;
    m_worker = std::thread([this, request = m_request, generation] {
        auto tree = std::make_unique<model::FlameTree>(storage::buildFlameTree(m_store, request));
        {
            std::lock_guard lock(m_mutex);
            m_result = std::move(tree);
        }
        QMetaObject::invokeMethod(this, "deliver", Qt::QueuedConnection, Q_ARG(int, generation));
    });
}

void FlamePanel::deliver(int generation)
{
    if (m_worker.joinable())
        m_worker.join();  // it has finished: it queued this call last
    std::unique_ptr<model::FlameTree> tree;
    {
        std::lock_guard lock(m_mutex);
        tree = std::move(m_result);
    }
    if (std::exchange(m_rebuildPending, false)) {
        rebuild();  // the scope moved while building: this tree is already old
        return;
    }
    if (tree && generation == m_generation)
        m_graph->setTree(std::move(*tree));
}

void FlamePanel::rebuildAndWait()
{
    if (m_worker.joinable())
        m_worker.join();
    m_rebuildPending = false;
    rebuild();
    m_worker.join();
    deliver(m_generation);
}

} // namespace strata::views
