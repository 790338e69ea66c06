#include "views/flame_panel.h"

#include "views/on_screen.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

namespace strata::views {

FlamePanel::FlamePanel(storage::StoreReader& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_runner(std::make_unique<LatestJobRunner>(this))
{
    auto* pin = new QPushButton(tr("Pin as baseline"));
    pin->setToolTip(tr("Compare later windows with this window and these tracks"));
    auto* compare = new QPushButton(tr("Compare with store…"));
    compare->setToolTip(
        tr("Compare with another run's store: the same tracks, this window or its whole run"));
    m_clear = new QPushButton(tr("Clear baseline"));
    m_wholeRun = new QCheckBox(tr("Whole run"));
    m_wholeRun->setToolTip(
        tr("Compare with the other store's whole run instead of the same window"));
    m_readout = new QLabel;
    auto* bar = new QHBoxLayout;
    bar->addWidget(pin);
    bar->addWidget(compare);
    bar->addWidget(m_clear);
    bar->addWidget(m_wholeRun);
    bar->addWidget(m_readout, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    m_graph = new FlameGraphWidget(this);
    layout->addWidget(m_graph, 1);
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(200);
    connect(&m_debounce, &QTimer::timeout, this, &FlamePanel::rebuild);
    connect(pin, &QPushButton::clicked, this, &FlamePanel::pinBaseline);
    connect(compare, &QPushButton::clicked, this, &FlamePanel::chooseStore);
    connect(m_clear, &QPushButton::clicked, this, &FlamePanel::clearBaseline);
    connect(m_wholeRun, &QCheckBox::toggled, this, [this](bool wholeRun) {
        if (!m_baseline || !m_baseline->store || m_baseline->wholeRun == wholeRun)
            return;
        m_baseline->wholeRun = wholeRun;
        m_baseline->tree.reset();
        m_baseline->generation = ++m_baselineGeneration;
        baselineChanged();
    });
    baselineChanged();
}

FlamePanel::~FlamePanel() = default;

void FlamePanel::setScope(model::TimeRange window, std::vector<model::TrackId> tracks)
{
    m_request.startNs = window.startNs;
    m_request.endNs = window.endNs;
    m_request.tracks = std::move(tracks);
    m_stale = true;
    if (onScreen(*this))
        m_debounce.start();
}

void FlamePanel::pinBaseline()
{
    Baseline baseline;
    baseline.pinned = m_request;
    baseline.generation = ++m_baselineGeneration;
    m_baseline = std::move(baseline);
    baselineChanged();
}

void FlamePanel::compareWithStore(const std::filesystem::path& path, bool wholeRun)
{
    Baseline baseline;
    baseline.store = std::make_shared<storage::StoreReader>(path);
    baseline.storeName = QString::fromStdString(path.filename().string());
    baseline.wholeRun = wholeRun;
    baseline.generation = ++m_baselineGeneration;
    m_baseline = std::move(baseline);
    baselineChanged();
}

void FlamePanel::clearBaseline()
{
    m_baseline.reset();
    baselineChanged();
}

QString FlamePanel::baselineText() const
{
    if (!m_baseline)
        return {};
    const auto window = [](const storage::FlameRequest& r) {
        if (r.startNs == r.endNs)
            return tr("whole run");
        return tr("window %1 – %2")
            .arg(QString::fromStdString(model::formatDuration(r.startNs)),
                QString::fromStdString(model::formatDuration(r.endNs)));
    };
    if (m_baseline->pinned)
        return window(*m_baseline->pinned);
    return m_baseline->storeName + ", "
        + (m_baseline->wholeRun ? tr("whole run") : window(m_request));
}

storage::FlameRequest FlamePanel::baselineRequest() const
{
    if (m_baseline->pinned)
        return *m_baseline->pinned;
    storage::FlameRequest request = m_request;
    request.tracks = storage::sameTracksIn(m_store, m_request.tracks, *m_baseline->store);
    if (m_baseline->wholeRun)
        request.startNs = request.endNs = 0;
    return request;
}

void FlamePanel::chooseStore()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Compare with store"), QString(), tr("Strata stores (*.strata);;All files (*)"));
    if (path.isEmpty())
        return;
    // A scope that shows the whole run is compared with the other whole run (runs differ
    // in length); a zoomed-in window with the same window of the other run. The run is
    // its activity, as "Fit all" shows it (a counter log may reach beyond).
    const model::TimeRange span = m_store.activitySpan();
    const bool wholeRun = m_request.startNs == m_request.endNs
        || (m_request.startNs <= span.startNs && m_request.endNs >= span.endNs);
    try {
        compareWithStore(path.toStdString(), wholeRun);
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Compare with store"), QString::fromUtf8(e.what()));
    }
}

void FlamePanel::baselineChanged()
{
    m_clear->setEnabled(m_baseline.has_value());
    m_wholeRun->setVisible(m_baseline && m_baseline->store);
    if (m_baseline && m_baseline->store) {
        const QSignalBlocker block(m_wholeRun);
        m_wholeRun->setChecked(m_baseline->wholeRun);
    }
    m_readout->setText(m_baseline ? tr("Baseline: %1").arg(baselineText()) : tr("No baseline"));
    m_stale = true;
    if (onScreen(*this))
        rebuild();
}

void FlamePanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    resume();
}

void FlamePanel::resume()
{
    if (m_stale)
        m_debounce.start();
}

void FlamePanel::rebuild()
{
    if (onScreen(*this))
        build();  // else it stays stale: built when it comes on screen
}

void FlamePanel::build()
{
    m_stale = false;
    if (!m_baseline) {
        m_runner->submit([this, request = m_request]() -> LatestJobRunner::Continuation {
            auto tree =
                std::make_shared<model::FlameTree>(storage::buildFlameTree(m_store, request));
            return [this, tree] {
                m_graph->setTree(std::move(*tree));
            };
        });
        return;
    }
    // The job reads the baseline store on the worker thread and shares it (the panel may
    // drop the baseline meanwhile); a fixed baseline's tree comes back to be kept.
    m_runner->submit([this, request = m_request, baseRequest = baselineRequest(),
                         baseStore = m_baseline->store, cached = m_baseline->tree,
                         keep = baselineIsFixed(), generation = m_baseline->generation,
                         label = baselineText()]() -> LatestJobRunner::Continuation {
        const model::FlameTree current = storage::buildFlameTree(m_store, request);
        auto before = cached ? cached
                             : std::make_shared<const model::FlameTree>(storage::buildFlameTree(
                                 baseStore ? *baseStore : m_store, baseRequest));
        auto diff =
            std::make_shared<model::FlameDiff>(model::diffFlame(*before, current, request.order));
        return [this, before, diff, keep, generation, label] {
            if (keep && m_baseline && m_baseline->generation == generation)
                m_baseline->tree = before;
            m_graph->setDiff(std::move(*diff), label);
            m_readout->setText(
                tr("Baseline: %1").arg(label));  // a store's window follows the scope
        };
    });
}

void FlamePanel::rebuildAndWait()
{
    build();
    m_runner->waitUntilIdle();
}

} // namespace strata::views
