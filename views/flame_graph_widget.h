#pragma once
// FlameGraphWidget: the interactive flame graph. A toolbar (search box, orientation,
// "left heavy" order), a breadcrumb of the zoom path, the graph itself (FlameGraphCanvas,
// painted by FlameGraphRenderer) and, beside it, a sortable table of the callers and
// callees of the selected function.
//
//   click a frame ........ selects it (table) and zooms into it (it spans the width)
//   breadcrumb link ...... zooms back out to that frame ("all" resets)
//   hover ................ tooltip: name, total, self, share of the whole and of the zoom
//   search ............... matching frames highlighted, share of the total in the header
//
// The tree is given ready-made (setTree / setDiff): building it reads the store and may
// take a while for big windows, so the caller runs storage::buildFlameTree on a worker
// and hands the result over on the GUI thread.

#include "views/flame_graph_renderer.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QStandardItemModel;
class QTableView;

namespace strata::views {

/// The painted part, with mouse handling; owned by FlameGraphWidget.
class FlameGraphCanvas : public QWidget
{
    Q_OBJECT
public:
    explicit FlameGraphCanvas(FlameGraphRenderer& renderer, QWidget* parent = nullptr);
    QSize sizeHint() const override { return {900, 500}; }

signals:
    void frameClicked(model::FlameNodeId node);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;  ///< tooltips

private:
    FlameGraphRenderer& m_renderer;
};

class FlameGraphWidget : public QWidget
{
    Q_OBJECT
public:
    explicit FlameGraphWidget(QWidget* parent = nullptr);
    ~FlameGraphWidget() override;

    void setTree(model::FlameTree tree);
    /// Differential mode; `baseline` names what the tree is compared with (the header).
    void setDiff(model::FlameDiff diff, QString baseline = {});
    /// Zooms into `node` (kRoot: the whole tree) and selects its function.
    void zoomTo(model::FlameNodeId node);
    void setSearch(const QString& text);
    void setOrientation(FlameOrientation orientation);
    void setLeftHeavy(bool leftHeavy);

    const FlameGraphRenderer& renderer() const { return m_renderer; }
    FlameGraphCanvas* canvas() const { return m_canvas; }
    QTableView* callersTable() const { return m_table; }
    QLabel* breadcrumb() const { return m_breadcrumb; }
    /// The selected function ("" when none).
    const std::string& selectedFunction() const { return m_selected; }

signals:
    void functionSelected(const QString& name);

private:
    void refresh();
    void fillCallersTable();

    FlameGraphRenderer m_renderer;
    std::string m_selected;
    FlameGraphCanvas* m_canvas = nullptr;
    QLineEdit* m_search = nullptr;
    QComboBox* m_orientation = nullptr;
    QCheckBox* m_leftHeavy = nullptr;
    QLabel* m_breadcrumb = nullptr;
    QTableView* m_table = nullptr;
    QStandardItemModel* m_model = nullptr;
};

} // namespace strata::views
