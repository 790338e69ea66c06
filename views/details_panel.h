#pragma once
// The details of the selected event: name, category, role, track, start, end, duration,
// nesting depth, then every argument the trace recorded for it (kernel grid and block,
// collective sizes, ...), nested objects as sub-trees.

#include "storage/store/store_reader.h"
#include "views/timeline_renderer.h"

#include <QTreeWidget>

namespace strata::views {

class DetailsPanel : public QTreeWidget
{
    Q_OBJECT
public:
    explicit DetailsPanel(storage::StoreReader& store, QWidget* parent = nullptr);

    void showSelection(const std::optional<PickedInterval>& selection);
    void showRange(const std::optional<model::TimeRange>& range);

private:
    void addRow(QTreeWidgetItem* parent, const QString& key, const QString& value);

    storage::StoreReader& m_store;
};

} // namespace strata::views
