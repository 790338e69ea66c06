#include "app/main_window.h"

#include "views/timeline_widget.h"

#include <QAction>
#include <QFileDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

namespace strata::app {

MainWindow::MainWindow(std::unique_ptr<storage::StoreReader> store, QWidget* parent)
    : QMainWindow(parent)
    , m_store(std::move(store))
{
    setWindowTitle(QStringLiteral("Strata — %1").arg(QString::fromStdString(m_store->path().filename().string())));
    m_timeline = new views::TimelineWidget(*m_store, this);
    setCentralWidget(m_timeline);
    resize(1400, 800);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open store…"), QKeySequence::Open, this, &MainWindow::openFile);
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Fit all"), QKeySequence(Qt::Key_F), m_timeline, &views::TimelineWidget::fitAll);

    connect(m_timeline, &views::TimelineWidget::framePainted, this, [this](double queryMs, double paintMs) {
        statusBar()->showMessage(tr("window %1 wide · query %2 ms · paint %3 ms")
                                     .arg(QString::fromStdString(model::formatDuration(m_timeline->window().durationNs())))
                                     .arg(queryMs, 0, 'f', 1)
                                     .arg(paintMs, 0, 'f', 1));
    });
}

MainWindow::~MainWindow() = default;

void MainWindow::openFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a Strata store"), QString(),
                                                      tr("Strata stores (*.strata);;All files (*)"));
    if (path.isEmpty())
        return;
    try {
        auto store = std::make_unique<storage::StoreReader>(path.toStdString());
        auto* next = new MainWindow(std::move(store));
        next->setAttribute(Qt::WA_DeleteOnClose);
        next->show();
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Cannot open"), QString::fromUtf8(e.what()));
    }
}

} // namespace strata::app
