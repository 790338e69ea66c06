#include "views/scaling_table_widget.h"

#include "model/time_units.h"
#include "views/efficiency_panel.h"

#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QTableWidget>
#include <QVBoxLayout>

#include <exception>

namespace strata::views {

namespace {

QTableWidgetItem* cell(const QString& text)
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QString scalingName(model::Scaling s)
{
    return s == model::Scaling::Weak ? QObject::tr("weak") : QObject::tr("strong");
}

}  // namespace

ScalingTableWidget::ScalingTableWidget(QWidget* parent)
    : QWidget(parent)
{
    m_heading = new QLabel(this);
    m_table = new QTableWidget(this);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_notes = new QLabel(this);
    m_notes->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_heading);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_notes);
}

void ScalingTableWidget::setMessage(const QString& text)
{
    m_heading->setText(text);
}

void ScalingTableWidget::setTable(
    const model::ScalingTable& t, const std::vector<storage::ScalingRun>& runs)
{
    m_heading->setText(
        tr("%1 scaling (detected %2 from useful %3); reference: %4")
            .arg(scalingName(t.scaling), scalingName(t.detected),
                t.detectedFromInstructions ? tr("instructions") : tr("time"),
                t.columns.empty()
                    ? QString()
                    : QString::fromStdString(
                        std::filesystem::path(t.columns.front().run.store).filename().string())));
    const auto& rows = model::scalingRows();
    const int extra = 2;  // runtime, processes x threads
    m_table->clear();
    m_table->setRowCount(static_cast<int>(rows.size()) + extra);
    m_table->setColumnCount(static_cast<int>(t.columns.size()));
    QStringList headers;
    for (const model::ScalingColumn& c : t.columns)
        headers << QString::fromStdString(std::filesystem::path(c.run.store).stem().string());
    m_table->setHorizontalHeaderLabels(headers);
    QStringList labels;
    for (const model::ScalingRow& r : rows)
        labels << QString(2 * r.indent, QLatin1Char(' ')) + QString::fromUtf8(r.label);
    labels << tr("Runtime") << tr("Processes x threads");
    m_table->setVerticalHeaderLabels(labels);
    for (int col = 0; col < static_cast<int>(t.columns.size()); ++col) {
        const model::ScalingColumn& c = t.columns[static_cast<std::size_t>(col)];
        for (int row = 0; row < static_cast<int>(rows.size()); ++row) {
            const model::ScalingRow& r = rows[static_cast<std::size_t>(row)];
            const auto v = r.value(c);
            auto* item =
                cell(v ? QString::number(*v, 'f', r.efficiency ? 2 : 3) : QStringLiteral("-"));
            if (v && r.efficiency) {
                item->setBackground(efficiencyColor(*v));
                item->setForeground(Qt::black);
                item->setToolTip(efficiencyScaleText());
            }
            m_table->setItem(row, col, item);
        }
        const int base = static_cast<int>(rows.size());
        m_table->setItem(
            base, col, cell(QString::fromStdString(model::formatDuration(c.run.runtimeNs))));
        m_table->setItem(
            base + 1, col, cell(QStringLiteral("%1 x %2").arg(c.run.processes).arg(c.run.threads)));
    }
    QStringList notes;
    for (const model::ScalingColumn& c : t.columns) {
        for (const std::string& n : storage::notesOf(runs, c.run.store))
            notes << QString::fromStdString(
                std::filesystem::path(c.run.store).filename().string() + ": " + n);
    }
    m_notes->setText(notes.join(QLatin1Char('\n')));
    m_notes->setVisible(!notes.isEmpty());
}

ScalingDialog::ScalingDialog(std::vector<std::filesystem::path> stores, QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Compare runs"));
    m_widget = new ScalingTableWidget(this);
    m_widget->setMessage(tr("Computing the table of %1 runs...").arg(stores.size()));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_widget);
    resize(900, 560);
    // Each run reads its own store on the worker; the result comes back queued, and is
    // dropped if the dialog is gone (QPointer).
    QPointer<ScalingDialog> self(this);
    m_worker = std::jthread([self, stores = std::move(stores)](std::stop_token stop) {
        std::vector<storage::ScalingRun> runs;
        QString error;
        try {
            for (const auto& path : stores) {
                if (stop.stop_requested())
                    return;
                storage::StoreReader store(path);
                runs.push_back(storage::computeScalingRun(store, path.string()));
            }
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            qApp,
            [self, runs = std::move(runs), error] {
                if (!self)
                    return;
                if (!error.isEmpty())
                    self->m_widget->setMessage(error);
                else
                    self->m_widget->setTable(storage::scalingTableOf(runs), runs);
                self->m_ready = true;
                emit self->tableReady();
            },
            Qt::QueuedConnection);
    });
}

ScalingDialog::~ScalingDialog()
{
    m_worker.request_stop();
}

void ScalingDialog::waitForTable()
{
    while (!m_ready)
        QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
}

}  // namespace strata::views
