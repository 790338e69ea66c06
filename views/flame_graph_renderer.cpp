#include "views/flame_graph_renderer.h"

#include <QFontMetrics>
#include <QLocale>
#include <QPaintEngine>

#include <algorithm>
#include <cmath>

namespace strata::views {

namespace {

/// flamegraph.pl's warm palette, hashed from the name (stable across runs).
QColor warmColor(std::string_view name)
{
    std::uint32_t h = 2166136261u;
    for (const char c : name) {
        h ^= static_cast<unsigned char>(c);
        h *= 16777619u;
    }
    return QColor::fromHsv(static_cast<int>(h % 50), 140 + static_cast<int>((h >> 8) % 90),
                           215 + static_cast<int>((h >> 16) % 40));
}

/// Differential colour: `strength` in [-1, 1], red for growth, blue for shrinkage, light
/// grey for none.
QColor diffColor(double strength)
{
    if (strength == 0)
        return QColor(0xe8, 0xe8, 0xe8);
    const int fade = 235 - static_cast<int>(std::lround(200 * std::min(1.0, std::abs(strength))));
    return strength > 0 ? QColor(255, fade, fade) : QColor(fade, fade, 255);
}

} // namespace

QString formatFlameWeight(std::int64_t weight, const std::string& unit)
{
    if (unit == "ns")
        return QString::fromStdString(model::formatDuration(weight));
    return QLocale(QLocale::English).toString(static_cast<qlonglong>(weight)) + " " + QString::fromStdString(unit);
}

void FlameGraphRenderer::setTree(model::FlameTree tree)
{
    m_tree = std::move(tree);
    m_diff.reset();
    m_zoom = model::FlameTree::kRoot;
    setSearch(m_searchText);
    invalidate();
}

void FlameGraphRenderer::setDiff(model::FlameDiff diff, QString baseline)
{
    m_diff = std::move(diff);
    m_baseline = std::move(baseline);
    m_maxChange = 0;
    for (model::FlameNodeId i = 0; i < m_diff->tree.size(); ++i)
        m_maxChange = std::max(m_maxChange, std::abs(m_diff->change(i)));
    m_zoom = model::FlameTree::kRoot;
    setSearch(m_searchText);
    invalidate();
}

void FlameGraphRenderer::setZoom(model::FlameNodeId node)
{
    m_zoom = node < tree().size() ? node : model::FlameTree::kRoot;
    invalidate();
}

void FlameGraphRenderer::setSearch(const std::string& text)
{
    m_searchText = text;
    m_search = model::searchFlame(tree(), text);
}

const FlameGraphRenderer::Geometry& FlameGraphRenderer::geometry(QSize size) const
{
    Geometry& g = m_geometry;
    if (g.size == size && g.zoom == m_zoom && g.orientation == m_orientation)
        return g;
    g.size = size;
    g.zoom = m_zoom;
    g.orientation = m_orientation;
    const double widthPx = std::max(1, size.width());
    g.boxes = model::layoutFlame(tree(), m_zoom, 0.5 / widthPx);
    std::uint32_t rows = 1;
    for (const model::FlameBox& b : g.boxes)
        rows = std::max(rows, b.row + 1);
    const int available = std::max(1, size.height() - kHeaderHeightPx);
    g.rowHeightPx = std::clamp(available / static_cast<int>(rows), 2, kMaxRowHeightPx);
    return g;
}

QRect FlameGraphRenderer::rectOf(const model::FlameBox& box, const Geometry& g) const
{
    const int width = g.size.width();
    const int x0 = static_cast<int>(std::floor(box.x0 * width));
    const int x1 = std::max(x0 + 1, static_cast<int>(std::floor(box.x1 * width)));
    const int rowOffset = static_cast<int>(box.row) * g.rowHeightPx;
    const int y = m_orientation == FlameOrientation::Icicle ? kHeaderHeightPx + rowOffset
                                                             : g.size.height() - rowOffset - g.rowHeightPx;
    return QRect(x0, y, x1 - x0, g.rowHeightPx);
}

QColor FlameGraphRenderer::colorOf(model::FlameNodeId node) const
{
    if (!m_searchText.empty())
        return m_search.matched[node] ? QColor(0xe0, 0x3c, 0xc8) : QColor(0xd4, 0xd4, 0xd4);
    if (m_diff) {
        return diffColor(m_maxChange == 0 ? 0.0 : m_diff->change(node) / m_maxChange);
    }
    return warmColor(tree().node(node).name);
}

void FlameGraphRenderer::paint(QPainter& painter, QSize size)
{
    const Geometry& g = geometry(size);
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    painter.setRenderHint(QPainter::Antialiasing, false);
    // Deep stacks get short rows: shrink the labels with them (down to 8 px) rather
    // than drop them. A vector picture (SVG) names every frame that has room, in any row
    // height: it is zoomed into and searched like FlameGraph's SVG.
    const bool vector = painter.paintEngine() && painter.paintEngine()->type() == QPaintEngine::SVG;
    const QFont headerFont = painter.font();
    QFont boxFont = headerFont;
    boxFont.setPixelSize(
        vector ? std::clamp(g.rowHeightPx - 3, 1, 12) : std::clamp(g.rowHeightPx - 4, 8, 12));
    painter.setFont(boxFont);
    const QFontMetrics metrics(boxFont);
    const int minTextWidth = metrics.averageCharWidth() * 4;
    const bool text = vector || g.rowHeightPx >= 10;
    const model::FlameTree& t = tree();
    for (const model::FlameBox& box : g.boxes) {
        const QRect r = rectOf(box, g);
        const QColor color = colorOf(box.node);
        painter.fillRect(r.adjusted(0, 0, r.width() > 2 ? -1 : 0, -1), color);
        if (text && r.width() >= minTextWidth) {
            // Dark boxes (strong diff blue, search magenta) get light text.
            painter.setPen(qGray(color.rgb()) < 128 ? QColor(Qt::white) : QColor(0x20, 0x20, 0x20));
            const QString name = QString::fromStdString(t.node(box.node).name);
            painter.drawText(r.adjusted(3, 0, -2, -1), Qt::AlignVCenter | Qt::AlignLeft,
                             metrics.elidedText(name, Qt::ElideRight, r.width() - 5));
        }
    }
    // Header: total, zoom path, search share.
    painter.setFont(headerFont);
    const QFontMetrics headerMetrics(headerFont);
    painter.fillRect(0, 0, size.width(), kHeaderHeightPx, QColor(0xf2, 0xf2, 0xf2));
    painter.setPen(QColor(0x33, 0x33, 0x33));
    QString header = QStringLiteral("total %1").arg(formatFlameWeight(t.node(m_zoom).total, t.unit));
    if (m_zoom != model::FlameTree::kRoot) {
        QStringList path;
        for (model::FlameNodeId id : breadcrumb())
            path << QString::fromStdString(t.node(id).name);
        header += QStringLiteral("  ·  ") + path.join(QStringLiteral(" › "));
    }
    if (!m_searchText.empty())
        header += QStringLiteral("  ·  search \"%1\": %2% of all").arg(QString::fromStdString(m_searchText))
                      .arg(100.0 * m_search.share, 0, 'f', 1);
    int textWidth = size.width() - 12;
    if (m_diff) {
        header += QStringLiteral(
            "  ·  baseline: %1  ·  colour: change in share of the total (strongest ±%2 points)")
                      .arg(m_baseline.isEmpty() ? QStringLiteral("(unnamed)") : m_baseline)
                      .arg(100.0 * m_maxChange, 0, 'f', 1);
        textWidth -= paintDiffLegend(painter, size.width());
    }
    painter.drawText(QRect(6, 0, textWidth, kHeaderHeightPx), Qt::AlignVCenter | Qt::AlignLeft,
        headerMetrics.elidedText(header, Qt::ElideMiddle, textWidth));
}

int FlameGraphRenderer::paintDiffLegend(QPainter& painter, int right) const
{
    // Right-aligned "[red] grew  [blue] shrank  [grey] same", in the colours the boxes use
    // at full strength.
    const QFontMetrics metrics(painter.font());
    const int swatch = kHeaderHeightPx - 10;
    const std::pair<QColor, QString> items[] = { { diffColor(1), QStringLiteral("grew") },
        { diffColor(-1), QStringLiteral("shrank") }, { diffColor(0), QStringLiteral("same") } };
    int width = 0;
    for (const auto& [color, label] : items)
        width += swatch + 4 + metrics.horizontalAdvance(label) + 10;
    int x = right - width;
    for (const auto& [color, label] : items) {
        painter.fillRect(QRect(x, 5, swatch, swatch), color);
        painter.drawRect(QRect(x, 5, swatch, swatch).adjusted(0, 0, -1, -1));
        x += swatch + 4;
        painter.drawText(QRect(x, 0, metrics.horizontalAdvance(label) + 2, kHeaderHeightPx),
            Qt::AlignVCenter, label);
        x += metrics.horizontalAdvance(label) + 10;
    }
    return width + 6;
}

model::FlameNodeId FlameGraphRenderer::nodeAt(QPoint pos, QSize size) const
{
    const Geometry& g = geometry(size);
    for (const model::FlameBox& box : g.boxes) {
        if (rectOf(box, g).contains(pos))
            return box.node;
    }
    return model::kNoFlameNode;
}

QRect FlameGraphRenderer::boxRect(model::FlameNodeId node, QSize size) const
{
    const Geometry& g = geometry(size);
    for (const model::FlameBox& box : g.boxes) {
        if (box.node == node)
            return rectOf(box, g);
    }
    return {};
}

FlameGraphRenderer flameGraphFor(storage::StoreReader& store, const FlameGraphRequest& request)
{
    FlameGraphRenderer renderer;
    model::FlameTree tree = storage::buildFlameTree(store, request.source);
    if (request.baseline) {
        const model::FlameTree before = storage::buildFlameTree(
            request.baselineStore ? *request.baselineStore : store, *request.baseline);
        renderer.setDiff(
            model::diffFlame(before, tree, request.source.order), request.baselineLabel);
    } else {
        renderer.setTree(std::move(tree));
    }
    renderer.setOrientation(request.orientation);
    renderer.setSearch(request.search);
    if (!request.zoomPath.empty()) {
        const model::FlameNodeId node = renderer.tree().find(request.zoomPath);
        if (node != model::kNoFlameNode)
            renderer.setZoom(node);
    }
    return renderer;
}

QImage renderFlameGraphImage(storage::StoreReader& store, const FlameGraphRequest& request, QSize size)
{
    FlameGraphRenderer renderer = flameGraphFor(store, request);
    QImage image(size, QImage::Format_RGB32);
    QPainter painter(&image);
    renderer.paint(painter, size);
    return image;
}

} // namespace strata::views
