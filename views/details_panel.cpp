#include "views/details_panel.h"

#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace strata::views {

namespace {

QString text(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString timeText(model::TimeNs ns)
{
    return QString::fromStdString(model::formatTimestamp(ns, 1));
}

void addJson(QTreeWidgetItem* parent, const QString& key, const QJsonValue& value)
{
    auto* item = new QTreeWidgetItem(parent, {key});
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            addJson(item, it.key(), it.value());
        item->setExpanded(true);
    } else if (value.isArray()) {
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            addJson(item, QString::number(i), array[i]);
        item->setText(1, QStringLiteral("[%1]").arg(array.size()));
    } else if (value.isDouble()) {
        item->setText(1, QString::number(value.toDouble(), 'g', 15));
    } else if (value.isBool()) {
        item->setText(1, value.toBool() ? QStringLiteral("true") : QStringLiteral("false"));
    } else {
        item->setText(1, value.toString());
    }
}

} // namespace

DetailsPanel::DetailsPanel(storage::StoreReader& store, QWidget* parent)
    : QTreeWidget(parent)
    , m_store(store)
{
    setColumnCount(2);
    setHeaderLabels({tr("Field"), tr("Value")});
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    setAlternatingRowColors(true);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
}

void DetailsPanel::addRow(QTreeWidgetItem* parent, const QString& key, const QString& value)
{
    auto* item = parent ? new QTreeWidgetItem(parent, {key, value}) : new QTreeWidgetItem(this, {key, value});
    item->setToolTip(1, value);
}

void DetailsPanel::showSelection(const std::optional<PickedInterval>& selection)
{
    clear();
    if (!selection)
        return;
    const model::Interval& e = selection->interval;
    addRow(nullptr, tr("Name"), text(m_store.strings().text(e.name)));
    addRow(nullptr, tr("Category"), text(m_store.strings().text(e.category)));
    addRow(nullptr, tr("Role"), text(model::roleName(e.role)));
    addRow(nullptr, tr("Track"), QString::fromStdString(m_store.resources().path(selection->track)));
    addRow(nullptr, tr("Start"), timeText(e.startNs));
    addRow(nullptr, tr("End"), timeText(e.endNs));
    addRow(nullptr, tr("Duration"), QString::fromStdString(model::formatDuration(e.durationNs())));
    addRow(nullptr, tr("Depth"), QString::number(e.depth));
    const std::string args = m_store.intervalArgs(selection->track, e);
    if (args.empty())
        return;
    auto* argsItem = new QTreeWidgetItem(this, {tr("Args")});
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(args));
    if (doc.isObject()) {
        const QJsonObject object = doc.object();
        for (auto it = object.begin(); it != object.end(); ++it)
            addJson(argsItem, it.key(), it.value());
    } else {
        argsItem->setText(1, QString::fromStdString(args));
    }
    argsItem->setExpanded(true);
}

void DetailsPanel::showRange(const std::optional<model::TimeRange>& range)
{
    if (!range)
        return;
    clear();
    addRow(nullptr, tr("Range start"), timeText(range->startNs));
    addRow(nullptr, tr("Range end"), timeText(range->endNs));
    addRow(nullptr, tr("Duration"), QString::fromStdString(model::formatDuration(range->durationNs())));
}

} // namespace strata::views
