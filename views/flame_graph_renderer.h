#pragma once
// FlameGraphRenderer paints a finished call tree (model/flame_tree.h) as a flame graph:
// one box per frame, width proportional to its total, callees stacked under (icicle) or
// over (flame) their caller. It also answers the hit-testing the widget needs from the
// same geometry, so what is clicked is what was drawn.
//
//   tree + zoom + search/diff -> layoutFlame (model, fractions) -> pixels -> paint
//
// The header line shows the total and unit, the zoom path (breadcrumb) and the search
// share. Boxes narrower than half a pixel are left out with their subtrees (they stay
// inside their parent's box); rows shrink (down to 2 px) so that the deepest visible
// frame fits, and names are drawn only where about 4 characters fit (on screen only in
// rows of 10 px or more; in an SVG in any row, as text). Colours: a warm hue per name
// (stable across sessions); with a search, matches in magenta and the rest greyed; in
// differential mode, red for a growing share and blue for a shrinking one (strength
// relative to the largest change, which the header names with the baseline).
// Cost: O(visible boxes); no QGraphicsItem per frame (STYLE 8.3). Painting is vector
// (a rectangle and a text per frame), so a QSvgGenerator gets no bitmap.

#include "model/flame_analysis.h"
#include "storage/analysis/flame_query.h"

#include <QImage>
#include <QPainter>
#include <QRect>

#include <optional>
#include <string>
#include <vector>

namespace strata::views {

enum class FlameOrientation { Icicle, Flame };  ///< root at the top / at the bottom

class FlameGraphRenderer
{
public:
    static constexpr int kHeaderHeightPx = 22;
    static constexpr int kMaxRowHeightPx = 18;

    void setTree(model::FlameTree tree);
    /// Differential mode: the merged tree of `diff` is shown, coloured by change;
    /// `baseline` names what `diff.before` is ("window 1s – 2s", "run-a.strata") for the header.
    void setDiff(model::FlameDiff diff, QString baseline = {});
    void setZoom(model::FlameNodeId node);
    void setSearch(const std::string& text);
    void setOrientation(FlameOrientation orientation) { m_orientation = orientation; }

    const model::FlameTree& tree() const { return m_diff ? m_diff->tree : m_tree; }
    const std::optional<model::FlameDiff>& diff() const { return m_diff; }
    const QString& baseline() const { return m_baseline; }
    model::FlameNodeId zoom() const { return m_zoom; }
    const model::FlameSearch& search() const { return m_search; }
    FlameOrientation orientation() const { return m_orientation; }

    void paint(QPainter& painter, QSize size);
    /// The frame drawn at `pos`, or kNoFlameNode.
    model::FlameNodeId nodeAt(QPoint pos, QSize size) const;
    /// Where `node` is drawn (empty when it is not).
    QRect boxRect(model::FlameNodeId node, QSize size) const;
    /// "all > main > compute": the zoom path, for the header and the breadcrumb.
    std::vector<model::FlameNodeId> breadcrumb() const { return tree().pathTo(m_zoom); }

private:
    struct Geometry
    {
        QSize size;
        model::FlameNodeId zoom = model::kNoFlameNode;
        FlameOrientation orientation = FlameOrientation::Icicle;
        std::vector<model::FlameBox> boxes;
        int rowHeightPx = kMaxRowHeightPx;
    };
    const Geometry& geometry(QSize size) const;
    QRect rectOf(const model::FlameBox& box, const Geometry& g) const;
    QColor colorOf(model::FlameNodeId node) const;
    /// Paints the differential colour key right-aligned at `right`; returns its width.
    int paintDiffLegend(QPainter& painter, int right) const;
    void invalidate() { m_geometry.size = QSize(); }

    model::FlameTree m_tree;
    std::optional<model::FlameDiff> m_diff;
    QString m_baseline;
    model::FlameNodeId m_zoom = model::FlameTree::kRoot;
    std::string m_searchText;
    model::FlameSearch m_search;
    double m_maxChange = 0;
    FlameOrientation m_orientation = FlameOrientation::Icicle;
    mutable Geometry m_geometry;  ///< cache keyed by size, zoom and orientation
};

/// What a headless flame graph shows (`strata render --view flame`).
struct FlameGraphRequest
{
    storage::FlameRequest source;  ///< tracks, window, sibling order
    FlameOrientation orientation = FlameOrientation::Icicle;
    std::string search;
    /// Frames from the root's child down to the frame to zoom into; empty: no zoom.
    std::vector<std::string> zoomPath;
    /// Differential mode: `source` compared with this tree (of `baselineStore`, this
    /// store when null), named `baselineLabel` in the header.
    std::optional<storage::FlameRequest> baseline;
    storage::StoreReader* baselineStore = nullptr;
    QString baselineLabel;
};

/// A renderer holding the tree of `request` from `store`, zoomed, searched and oriented as
/// asked. Its paint() draws vector shapes (a rectangle and a text per frame), so a
/// QSvgGenerator painter gets frame names as searchable text.
FlameGraphRenderer flameGraphFor(storage::StoreReader& store, const FlameGraphRequest& request);

/// Builds the tree of `request` from `store` and renders it into an image of `size`.
QImage renderFlameGraphImage(storage::StoreReader& store, const FlameGraphRequest& request, QSize size);

/// Formats a weight with its unit: "12.5ms" for "ns", "1,234 cycles" otherwise.
QString formatFlameWeight(std::int64_t weight, const std::string& unit);

} // namespace strata::views
