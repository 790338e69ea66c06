#include "app/main_window.h"

#include "app/cut_job.h"
#include "app/progress_dialog.h"
#include "app/trace_opener.h"
#include "model/filter_expression.h"
#include "storage/analysis/event_search.h"
#include "storage/store/input_error.h"
#include "views/analyzer_panel.h"
#include "views/counter_charts_panel.h"
#include "views/details_panel.h"
#include "views/efficiency_panel.h"
#include "views/flame_panel.h"
#include "views/kernel_metric_colors.h"
#include "views/legend_panel.h"
#include "views/overview_strip.h"
#include "views/picture_export.h"
#include "views/search_bar.h"
#include "views/timeline_widget.h"
#include "views/variability_panel.h"

#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>

namespace strata::app {

namespace {

constexpr int kMaxRecent = 10;

QString durationText(model::TimeNs ns)
{
    return QString::fromStdString(model::formatDuration(ns));
}

/// The analysis panels skip their work while their dock's tab is behind another one;
/// raising the tab (or showing the dock) hands them the catch-up.
template<typename Panel>
void resumeWhenRaised(QDockWidget* dock, Panel* panel)
{
    QObject::connect(dock, &QDockWidget::visibilityChanged, panel, [panel](bool visible) {
        if (visible)
            panel->resume();
    });
}

} // namespace

QStringList recentFiles()
{
    return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void addRecentFile(const QString& path)
{
    QStringList files = recentFiles();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecent)
        files.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), files);
}

MainWindow::MainWindow(std::unique_ptr<storage::StoreReader> store, QWidget* parent)
    : QMainWindow(parent)
    , m_store(std::move(store))
{
    setWindowTitle(QStringLiteral("Strata — %1").arg(QString::fromStdString(m_store->path().filename().string())));
    setAcceptDrops(true);
    m_timeline = new views::TimelineWidget(*m_store, this);
    setCentralWidget(m_timeline);
    // The right docks run down to the status bar, so docks below the timeline (the counter
    // charts on its time axis) are exactly as wide as it.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    resize(1400, 860);
    buildDocks();
    buildToolbar();
    buildMenus();

    m_statusWindow = new QLabel(this);
    m_statusCursor = new QLabel(this);
    m_statusFrame = new QLabel(this);
    statusBar()->addWidget(m_statusWindow, 1);
    statusBar()->addPermanentWidget(m_statusCursor);
    statusBar()->addPermanentWidget(m_statusFrame);
    connect(m_timeline, &views::TimelineWidget::windowChanged, this, &MainWindow::updateStatus);
    connect(m_timeline, &views::TimelineWidget::rangeSelected, this, &MainWindow::updateStatus);
    connect(m_timeline, &views::TimelineWidget::cursorMoved, this, [this](model::TimeNs t) {
        m_statusCursor->setText(tr("cursor %1").arg(QString::fromStdString(model::formatTimestamp(
            t, std::max<model::TimeNs>(1, m_timeline->window().durationNs() / 2000)))));
    });
    connect(m_timeline, &views::TimelineWidget::framePainted, this, [this](double queryMs, double paintMs) {
        m_statusFrame->setText(tr("query %1 ms · paint %2 ms").arg(queryMs, 0, 'f', 1).arg(paintMs, 0, 'f', 1));
        // The legend follows the data, not every repaint (the cursor line repaints often).
        const auto shown = m_timeline->data();
        // Cells as drawn name only their colour: the legend waits for the full pass.
        if (shown->cells == storage::CellDetail::Full
            && (shown != m_legendData.lock() || m_timeline->palette().mode() != m_legendMode)) {
            m_legendData = shown;  // a weak_ptr: the address cannot be reused while it is held
            m_legendMode = m_timeline->palette().mode();
            m_legend->setEntries(views::legendEntries(m_store->strings(), m_timeline->palette(), *shown));
        }
    });
    connect(m_timeline, &views::TimelineWidget::queryFailed, this,
            [this](const QString& message) { statusBar()->showMessage(tr("Query failed: %1").arg(message), 10000); });
    updateStatus();

    const QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    addRecentFile(QString::fromStdString(std::filesystem::absolute(m_store->path()).string()));
}

MainWindow::~MainWindow()
{
    // The widgets query the store from their threads (the timeline's fetcher, the panels'
    // job runners); members go before the QWidget base deletes its children, so without
    // this a fetch still running would read a destroyed store.
    qDeleteAll(findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly));
}

void MainWindow::buildDocks()
{
    m_overview = new views::OverviewStrip(*m_store, this);
    auto* overviewDock = new QDockWidget(tr("Overview"), this);
    overviewDock->setObjectName(QStringLiteral("overview"));
    overviewDock->setWidget(m_overview);
    addDockWidget(Qt::TopDockWidgetArea, overviewDock);
    connect(m_timeline, &views::TimelineWidget::windowChanged, m_overview, &views::OverviewStrip::setWindow);
    connect(m_overview, &views::OverviewStrip::windowRequested, m_timeline, &views::TimelineWidget::setWindow);
    m_overview->setWindow(m_timeline->window());

    m_details = new views::DetailsPanel(*m_store, this);
    auto* detailsDock = new QDockWidget(tr("Details"), this);
    detailsDock->setObjectName(QStringLiteral("details"));
    detailsDock->setWidget(m_details);
    addDockWidget(Qt::RightDockWidgetArea, detailsDock);
    connect(m_timeline, &views::TimelineWidget::selectionChanged, m_details, &views::DetailsPanel::showSelection);
    connect(m_timeline, &views::TimelineWidget::rangeSelected, m_details, &views::DetailsPanel::showRange);

    // The flame graph of what the timeline shows: its window and its rows' tracks.
    auto* flame = new views::FlamePanel(*m_store, this);
    auto* flameDock = new QDockWidget(tr("Flame graph"), this);
    flameDock->setObjectName(QStringLiteral("flame"));
    flameDock->setWidget(flame);
    addDockWidget(Qt::BottomDockWidgetArea, flameDock);
    resumeWhenRaised(flameDock, flame);
    auto updateFlame = [this, flame] {
        std::vector<model::TrackId> tracks;
        for (const views::TimelineRow& row : m_timeline->layout().rows) {
            if (!row.group)
                tracks.push_back(row.track);
        }
        flame->setScope(m_timeline->window(), std::move(tracks));
    };
    connect(m_timeline, &views::TimelineWidget::windowChanged, this, updateFlame);
    connect(m_timeline, &views::TimelineWidget::layoutChanged, this, updateFlame);
    updateFlame();

    m_legend = new views::LegendPanel(this);
    auto* legendDock = new QDockWidget(tr("Legend"), this);
    legendDock->setObjectName(QStringLiteral("legend"));
    legendDock->setWidget(m_legend);
    addDockWidget(Qt::RightDockWidgetArea, legendDock);
    // Cells are read in full for the legend only while it shows (a hidden or closed dock,
    // or a tab behind another).
    connect(legendDock, &QDockWidget::visibilityChanged, m_timeline,
        &views::TimelineWidget::setFullCellsWanted);
    if (!views::CounterChartsPanel::counterTracks(*m_store).empty()) {
        m_counters = new views::CounterChartsPanel(*m_store, this);
        auto* countersDock = new QDockWidget(tr("Counters"), this);
        countersDock->setObjectName(QStringLiteral("counters"));
        countersDock->setWidget(m_counters);
        addDockWidget(Qt::BottomDockWidgetArea, countersDock);
        connect(m_timeline, &views::TimelineWidget::windowChanged, m_counters, &views::CounterChartsPanel::setWindow);
        connect(m_timeline, &views::TimelineWidget::cursorMoved, m_counters, &views::CounterChartsPanel::setCursor);
        m_counters->setWindow(m_timeline->window());
        m_counters->alignTo(m_timeline);
    }
    buildAnalysisDocks();
}

void MainWindow::buildAnalysisDocks()
{
    m_efficiency = new views::EfficiencyPanel(*m_store, this);
    auto* efficiencyDock = new QDockWidget(tr("Efficiency"), this);
    efficiencyDock->setObjectName(QStringLiteral("efficiency"));
    efficiencyDock->setWidget(m_efficiency);
    addDockWidget(Qt::BottomDockWidgetArea, efficiencyDock);
    m_analyzer = new views::AnalyzerPanel(*m_store, this);
    auto* analyzerDock = new QDockWidget(tr("Analyzer"), this);
    analyzerDock->setObjectName(QStringLiteral("analyzer"));
    analyzerDock->setWidget(m_analyzer);
    tabifyDockWidget(efficiencyDock, analyzerDock);
    resumeWhenRaised(efficiencyDock, m_efficiency);
    resumeWhenRaised(analyzerDock, m_analyzer);
    m_variability = new views::VariabilityPanel(*m_store, this);
    auto* variabilityDock = new QDockWidget(tr("Variability"), this);
    variabilityDock->setObjectName(QStringLiteral("variability"));
    variabilityDock->setWidget(m_variability);
    tabifyDockWidget(efficiencyDock, variabilityDock);
    resumeWhenRaised(variabilityDock, m_variability);
    for (const char* name : {"flame", "counters"}) {
        if (auto* dock = findChild<QDockWidget*>(QString::fromLatin1(name)))
            tabifyDockWidget(efficiencyDock, dock);
    }
    // Counter charts, when the store has counters, come first: they share the timeline's
    // time axis and read best right under it. The timeline keeps most of the height until
    // the user (or saved state) says otherwise.
    auto* countersDock = findChild<QDockWidget*>(QStringLiteral("counters"));
    QDockWidget* front = countersDock ? countersDock : efficiencyDock;
    front->raise();
    resizeDocks({front}, {height() / (countersDock ? 3 : 4)}, Qt::Vertical);
    // A worker's row shows only that worker's tracks on the timeline.
    connect(m_efficiency, &views::EfficiencyPanel::workerActivated, this,
            [this](const QString& name, const std::vector<model::TrackId>& tracks) {
                m_timeline->showOnlyTracks(tracks);
                statusBar()->showMessage(tr("Showing %1 only; clear the track filter to see all").arg(name), 10000);
            });
    connect(m_timeline, &views::TimelineWidget::windowChanged, m_efficiency, &views::EfficiencyPanel::setWindow);
    connect(m_timeline, &views::TimelineWidget::windowChanged, m_analyzer, &views::AnalyzerPanel::setWindow);
    m_efficiency->setWindow(m_timeline->window());
    m_analyzer->setWindow(m_timeline->window());
    connect(m_timeline, &views::TimelineWidget::windowChanged, m_variability,
        &views::VariabilityPanel::setWindow);
    m_variability->setWindow(m_timeline->window());
    connect(m_variability, &views::VariabilityPanel::instanceActivated, this,
        &MainWindow::showInstance);
    connect(m_variability, &views::VariabilityPanel::stepActivated, this,
        [this](model::TimeRange step) {
            m_timeline->navigateTo(step);
            m_timeline->setSelectedRange(step);
        });
    connect(m_variability, &views::VariabilityPanel::workerActivated, this,
        [this](const QString& name, const std::vector<model::TrackId>& tracks) {
            m_timeline->showOnlyTracks(tracks);
            statusBar()->showMessage(
                tr("Showing %1 only; clear the track filter to see all").arg(name), 10000);
        });
    // A metric names the roles it loses to: colour the timeline by role to see them.
    connect(m_efficiency, &views::EfficiencyPanel::rolesLosingEfficiency, this,
            [this](const QString& metric, const std::vector<model::Role>& roles) {
                if (m_colorBy)
                    m_colorBy->setCurrentIndex(static_cast<int>(views::ColorBy::Role));
                m_timeline->setColorBy(views::ColorBy::Role);
                QStringList names;
                for (model::Role r : roles)
                    names << QString::fromUtf8(model::roleName(r).data());
                statusBar()->showMessage(tr("%1 loses to: %2").arg(metric, names.join(QStringLiteral(", "))), 10000);
            });
    connect(m_analyzer, &views::AnalyzerPanel::cellActivated, this, &MainWindow::showNameInWindow);
}

void MainWindow::showNameInWindow(model::TrackId track, model::StringId name)
{
    m_timeline->setSearchMatches({name});
    // The first instance on that track inside the window (the window being profiled).
    storage::SearchRequest request;
    request.pattern = std::string(m_store->strings().text(name));
    request.window = m_timeline->window();
    try {
        const storage::SearchResult found = storage::searchIntervals(*m_store, request);
        for (const storage::SearchMatch& m : found.matches) {
            if (m.track == track && m.interval.name == name) {
                m_timeline->showInterval({m.track, m.interval});
                return;
            }
        }
    } catch (const std::exception& e) {
        statusBar()->showMessage(tr("Search failed: %1").arg(QString::fromUtf8(e.what())), 10000);
    }
}

void MainWindow::showInstance(model::TrackId track, model::TimeNs startNs, const QString& name)
{
    // The variability report holds (track, start, duration) of an instance by name text:
    // the interval itself (depth, seq, role) comes from the store.
    try {
        for (const model::Interval& e : m_store->intervals(track, startNs, startNs + 1)) {
            if (e.startNs == startNs && m_store->strings().text(e.name) == name.toStdString()) {
                m_timeline->showInterval({ track, e });
                return;
            }
        }
    } catch (const std::exception& e) {
        statusBar()->showMessage(
            tr("Reading the instance failed: %1").arg(QString::fromUtf8(e.what())), 10000);
    }
}

void MainWindow::buildToolbar()
{
    QToolBar* bar = addToolBar(tr("Navigation"));
    bar->setObjectName(QStringLiteral("navigation"));
    QAction* back = bar->addAction(style()->standardIcon(QStyle::SP_ArrowBack), tr("Back"), m_timeline,
                                   &views::TimelineWidget::back);
    back->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
    QAction* forward = bar->addAction(style()->standardIcon(QStyle::SP_ArrowForward), tr("Forward"), m_timeline,
                                      &views::TimelineWidget::forward);
    forward->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));
    auto updateHistory = [this, back, forward] {
        back->setEnabled(m_timeline->canGoBack());
        forward->setEnabled(m_timeline->canGoForward());
    };
    connect(m_timeline, &views::TimelineWidget::historyChanged, this, updateHistory);
    updateHistory();
    bar->addAction(tr("Fit all"), m_timeline, &views::TimelineWidget::fitAll);
    bar->addAction(tr("Zoom to range"), m_timeline, &views::TimelineWidget::zoomToSelectedRange);
    bar->addSeparator();

    auto* colorBy = m_colorBy = new QComboBox(bar);
    colorBy->addItems({tr("Color by name"), tr("Color by category"), tr("Color by role")});
    for (const storage::KernelMetricInfo& m : m_store->kernelMetricNames())
        colorBy->addItem(tr("Kernels by %1").arg(QString::fromUtf8(m_store->strings().text(m.metric))),
                         QString::fromUtf8(m_store->strings().text(m.metric)));
    connect(colorBy, &QComboBox::currentIndexChanged, this, [this, colorBy](int i) {
        const auto metric = i >= 3 ? views::KernelMetricColors::load(*m_store, colorBy->itemData(i).toString().toStdString())
                                   : nullptr;
        if (metric)
            m_timeline->setKernelMetric(metric);
        else
            m_timeline->setColorBy(static_cast<views::ColorBy>(std::min(i, 2)));
        if (m_counters)
            m_counters->setKernelMetric(metric);
    });
    bar->addWidget(colorBy);
    auto* filter = new QLineEdit(bar);
    filter->setPlaceholderText(tr("Filter tracks"));
    filter->setClearButtonEnabled(true);
    filter->setMaximumWidth(180);
    connect(filter, &QLineEdit::textChanged, m_timeline, &views::TimelineWidget::setTrackFilter);
    bar->addWidget(filter);
    bar->addSeparator();

    m_search = new views::SearchBar(*m_store, bar);
    m_search->setMinimumWidth(420);
    bar->addWidget(m_search);
    connect(m_search, &views::SearchBar::matchesChanged, m_timeline, &views::TimelineWidget::setSearchMatches);
    connect(m_search, &views::SearchBar::showMatch, m_timeline, &views::TimelineWidget::showInterval);
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::openFiles);
    m_recentMenu = file->addMenu(tr("Open &recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::updateRecentMenu);
    file->addAction(tr("&Export timeline image…"), QKeySequence(Qt::CTRL | Qt::Key_E), this,
                    [this] { exportImage(m_timeline); });
    file->addAction(tr("Export &window image…"), this, [this] { exportImage(this); });
    file->addAction(tr("Export &sub-trace…"), this, &MainWindow::exportSubTrace);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Find…"), QKeySequence::Find, m_search, &views::SearchBar::focusSearch);
    view->addAction(tr("Find &next"), QKeySequence::FindNext, m_search, &views::SearchBar::next);
    view->addAction(tr("Find &previous"), QKeySequence::FindPrevious, m_search, &views::SearchBar::previous);
    view->addSeparator();
    view->addAction(tr("Taller rows"), QKeySequence(Qt::CTRL | Qt::Key_Plus), this,
                    [this] { m_timeline->setLaneHeight(m_timeline->laneHeight() + 2); });
    view->addAction(tr("Shorter rows"), QKeySequence(Qt::CTRL | Qt::Key_Minus), this,
                    [this] { m_timeline->setLaneHeight(m_timeline->laneHeight() - 2); });
    QAction* flows = view->addAction(tr("Show flows"));
    flows->setCheckable(true);
    flows->setChecked(true);
    connect(flows, &QAction::toggled, m_timeline, &views::TimelineWidget::setFlowsVisible);
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
}

void MainWindow::updateStatus()
{
    QString text = tr("window %1 wide").arg(durationText(m_timeline->window().durationNs()));
    if (const auto range = m_timeline->selectedRange())
        text += tr(" · selected range %1").arg(durationText(range->durationNs()));
    m_statusWindow->setText(text);
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    for (const QString& path : recentFiles())
        m_recentMenu->addAction(path, this, [this, path] { openPaths({path}, this); });
}

void MainWindow::openPaths(const QStringList& paths, QWidget* parent)
{
    const auto store = storeForPaths(paths, parent);
    if (!store)
        return;
    try {
        auto* window = new MainWindow(std::make_unique<storage::StoreReader>(*store));
        window->setAttribute(Qt::WA_DeleteOnClose);
        window->show();
        for (const QString& p : paths)
            addRecentFile(QFileInfo(p).absoluteFilePath());
    } catch (const std::exception& e) {
        QMessageBox::warning(parent, tr("Cannot open"), QString::fromUtf8(e.what()));
    }
}

void MainWindow::openFiles()
{
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Open a store or traces (several files: the ranks of one run)"), QString(),
        tr("Traces (*.strata *.json *.json.gz *.gz *.prv *.prv.gz *.sqlite *.csv *.txt *.otf2);;All files (*)"));
    if (!paths.isEmpty())
        openPaths(paths, this);
}

void MainWindow::exportImage(QWidget* what)
{
    const QString png = tr("PNG image (*.png)"), png2x = tr("PNG image at 2x (*.png)"), svg = tr("SVG vector image (*.svg)");
    QString filter = png;
    QString path = QFileDialog::getSaveFileName(this, tr("Export image"), QStringLiteral("strata.png"),
                                                QStringList{png, png2x, svg}.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty())
        return;
    if (filter == svg && !path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive))
        path += QStringLiteral(".svg");
    else if (filter != svg && !path.endsWith(QStringLiteral(".png"), Qt::CaseInsensitive))
        path += QStringLiteral(".png");
    try {
        views::saveWidgetPicture(path, *what, filter == png2x ? 2.0 : 1.0);
        statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Export failed"), QString::fromUtf8(e.what()));
    }
}

void MainWindow::exportSubTrace()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the window and shown tracks as a sub-trace"), QStringLiteral("cut.strata"),
        tr("Strata store (*.strata);;Chrome trace, gzipped (*.json.gz);;Chrome trace (*.json);;Paraver (*.prv)"));
    if (path.isEmpty())
        return;
    if (!cutWritesTo(path.toStdString())) {
        QMessageBox::warning(this, tr("Export failed"), tr("Sub-traces are .strata, .json, .json.gz or .prv files"));
        return;
    }
    bool ok = false;
    const QString filter = QInputDialog::getText(this, tr("Filter"),
                                                 tr("Keep events matching (empty: all), e.g. role=comm or dur>5ms:"),
                                                 QLineEdit::Normal, QString(), &ok);
    if (!ok)
        return;
    storage::CutOptions options;
    options.window = m_timeline->window();
    // The shown tracks, by exact path.
    std::vector<model::TrackId> shown;
    for (const views::TimelineRow& row : m_timeline->layout().rows) {
        if (!row.group)
            shown.push_back(row.track);
    }
    options.tracks = views::exactTracksPattern(m_store->resources(), shown);
    try {
        if (!filter.trimmed().isEmpty())
            options.filter = model::FilterExpression::parse(filter.toStdString());
        runWithProgress(this, tr("Exporting %1…").arg(path), [&](const PhasedProgress& progress) {
            options.progress = [&](std::uint64_t done, std::uint64_t total) { return progress("cutting", done, total); };
            cutToFile(*m_store, path.toStdString(), options);
        });
        statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
    } catch (const storage::Cancelled&) {
    } catch (const model::FilterSyntaxError& e) {
        QMessageBox::warning(this, tr("Bad filter"),
                             QStringLiteral("%1\n%2").arg(QString::fromUtf8(e.what()),
                                                          QString::fromStdString(model::FilterSyntaxError::caretLines(
                                                              filter.toStdString(), e.column()))));
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Export failed"), QString::fromUtf8(e.what()));
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile())
            paths << url.toLocalFile();
    }
    if (!paths.isEmpty())
        openPaths(paths, this);
}

} // namespace strata::app
