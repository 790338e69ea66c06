#include "views/flame_graph_widget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>

namespace strata::views {

namespace {

QString percent(std::int64_t part, std::int64_t whole)
{
    return whole > 0 ? QString::number(100.0 * static_cast<double>(part) / static_cast<double>(whole), 'f', 1) + "%"
                     : QStringLiteral("-");
}

} // namespace

FlameGraphCanvas::FlameGraphCanvas(FlameGraphRenderer& renderer, QWidget* parent)
    : QWidget(parent)
    , m_renderer(renderer)
{
    setMouseTracking(true);
    setMinimumSize(200, 120);
}

void FlameGraphCanvas::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    m_renderer.paint(painter, size());
}

void FlameGraphCanvas::mousePressEvent(QMouseEvent* event)
{
    const model::FlameNodeId node = m_renderer.nodeAt(event->position().toPoint(), size());
    if (event->button() == Qt::LeftButton && node != model::kNoFlameNode)
        emit frameClicked(node);
}

bool FlameGraphCanvas::event(QEvent* event)
{
    if (event->type() != QEvent::ToolTip)
        return QWidget::event(event);
    auto* help = static_cast<QHelpEvent*>(event);
    const model::FlameNodeId id = m_renderer.nodeAt(help->pos(), size());
    if (id == model::kNoFlameNode) {
        QToolTip::hideText();
        return true;
    }
    const model::FlameTree& tree = m_renderer.tree();
    const model::FlameNode& n = tree.node(id);
    QString tip = QStringLiteral("<b>%1</b><br>total %2 (%3 of all, %4 of zoom)<br>self %5 (%6)")
                      .arg(QString::fromStdString(n.name).toHtmlEscaped(), formatFlameWeight(n.total, tree.unit),
                           percent(n.total, tree.total()), percent(n.total, tree.node(m_renderer.zoom()).total),
                           formatFlameWeight(n.self, tree.unit), percent(n.self, tree.total()));
    if (const auto& diff = m_renderer.diff())
        tip += QStringLiteral("<br>baseline %1 (%2), now %3 (%4): %5%6 points of share")
                   .arg(formatFlameWeight(diff->before[id], tree.unit),
                       percent(diff->before[id], diff->before[model::FlameTree::kRoot]),
                       formatFlameWeight(diff->after[id], tree.unit),
                       percent(diff->after[id], diff->after[model::FlameTree::kRoot]),
                       diff->change(id) >= 0 ? QStringLiteral("+") : QString())
                   .arg(100.0 * diff->change(id), 0, 'f', 2);
    QToolTip::showText(help->globalPos(), tip, this);
    return true;
}

FlameGraphWidget::FlameGraphWidget(QWidget* parent)
    : QWidget(parent)
{
    m_search = new QLineEdit;
    m_search->setPlaceholderText(tr("Search frames"));
    m_search->setClearButtonEnabled(true);
    m_orientation = new QComboBox;
    m_orientation->addItems({tr("Icicle (root on top)"), tr("Flame (root at bottom)")});
    m_leftHeavy = new QCheckBox(tr("Left heavy"));
    m_breadcrumb = new QLabel;
    m_breadcrumb->setTextFormat(Qt::RichText);
    m_canvas = new FlameGraphCanvas(m_renderer);
    m_model = new QStandardItemModel(0, 4, this);
    m_model->setHorizontalHeaderLabels({tr("Relation"), tr("Function"), tr("Weight"), tr("Share")});
    m_table = new QTableView;
    m_table->setModel(m_model);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();

    auto* toolbar = new QHBoxLayout;
    toolbar->addWidget(m_search, 1);
    toolbar->addWidget(m_orientation);
    toolbar->addWidget(m_leftHeavy);
    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(m_canvas);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(toolbar);
    layout->addWidget(m_breadcrumb);
    layout->addWidget(splitter, 1);

    connect(m_search, &QLineEdit::textChanged, this, &FlameGraphWidget::setSearch);
    connect(m_orientation, &QComboBox::currentIndexChanged, this, [this](int index) {
        setOrientation(index == 1 ? FlameOrientation::Flame : FlameOrientation::Icicle);
    });
    connect(m_leftHeavy, &QCheckBox::toggled, this, &FlameGraphWidget::setLeftHeavy);
    connect(m_canvas, &FlameGraphCanvas::frameClicked, this, &FlameGraphWidget::zoomTo);
    connect(m_breadcrumb, &QLabel::linkActivated, this,
            [this](const QString& link) { zoomTo(static_cast<model::FlameNodeId>(link.toUInt())); });
    refresh();
}

FlameGraphWidget::~FlameGraphWidget() = default;

void FlameGraphWidget::setTree(model::FlameTree tree)
{
    tree.finish(m_leftHeavy->isChecked() ? model::FlameOrder::LeftHeavy : model::FlameOrder::ByName);
    m_renderer.setTree(std::move(tree));
    m_selected.clear();
    refresh();
}

void FlameGraphWidget::setDiff(model::FlameDiff diff, QString baseline)
{
    diff.tree.finish(m_leftHeavy->isChecked() ? model::FlameOrder::LeftHeavy : model::FlameOrder::ByName);
    m_renderer.setDiff(std::move(diff), std::move(baseline));
    m_selected.clear();
    refresh();
}

void FlameGraphWidget::zoomTo(model::FlameNodeId node)
{
    m_renderer.setZoom(node);
    m_selected = node == model::FlameTree::kRoot || node >= m_renderer.tree().size() ? std::string()
                                                                                   : m_renderer.tree().node(node).name;
    refresh();
    emit functionSelected(QString::fromStdString(m_selected));
}

void FlameGraphWidget::setSearch(const QString& text)
{
    if (m_search->text() != text)
        m_search->setText(text);  // re-enters through textChanged
    m_renderer.setSearch(text.toStdString());
    refresh();
}

void FlameGraphWidget::setOrientation(FlameOrientation orientation)
{
    m_orientation->setCurrentIndex(orientation == FlameOrientation::Flame ? 1 : 0);
    m_renderer.setOrientation(orientation);
    refresh();
}

void FlameGraphWidget::setLeftHeavy(bool leftHeavy)
{
    if (m_leftHeavy->isChecked() != leftHeavy)
        m_leftHeavy->setChecked(leftHeavy);  // re-enters through toggled
    // Re-ordering siblings keeps node ids: the zoom and the search stay valid.
    const model::FlameNodeId zoom = m_renderer.zoom();
    const auto order = leftHeavy ? model::FlameOrder::LeftHeavy : model::FlameOrder::ByName;
    if (auto diff = m_renderer.diff()) {
        diff->tree.finish(order);
        m_renderer.setDiff(std::move(*diff), m_renderer.baseline());
    } else {
        model::FlameTree tree = m_renderer.tree();
        tree.finish(order);
        m_renderer.setTree(std::move(tree));
    }
    m_renderer.setZoom(zoom);
    refresh();
}

void FlameGraphWidget::refresh()
{
    const model::FlameTree& tree = m_renderer.tree();
    QStringList links;
    for (model::FlameNodeId id : m_renderer.breadcrumb())
        links << QStringLiteral("<a href=\"%1\">%2</a>").arg(id).arg(QString::fromStdString(tree.node(id).name).toHtmlEscaped());
    m_breadcrumb->setText(links.join(QStringLiteral(" › ")));
    fillCallersTable();
    m_canvas->update();
}

void FlameGraphWidget::fillCallersTable()
{
    m_model->removeRows(0, m_model->rowCount());
    if (m_selected.empty())
        return;
    const model::FlameTree& tree = m_renderer.tree();
    const model::FrameCallers fc = model::callersAndCallees(tree, m_selected);
    auto addRows = [&](const QString& relation, const std::vector<model::CallerCallee>& edges) {
        for (const model::CallerCallee& e : edges) {
            auto* weight = new QStandardItem;
            weight->setData(static_cast<qlonglong>(e.weight), Qt::DisplayRole);
            weight->setToolTip(formatFlameWeight(e.weight, tree.unit));
            auto* share = new QStandardItem;
            share->setData(tree.total() > 0 ? 100.0 * static_cast<double>(e.weight) / static_cast<double>(tree.total()) : 0.0,
                           Qt::DisplayRole);
            m_model->appendRow({new QStandardItem(relation), new QStandardItem(QString::fromStdString(e.name)), weight, share});
        }
    };
    addRows(tr("caller"), fc.callers);
    addRows(tr("callee"), fc.callees);
    m_table->sortByColumn(2, Qt::DescendingOrder);
}

} // namespace strata::views
