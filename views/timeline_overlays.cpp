// The parts of a timeline frame drawn over or beside the interval rows: counter
// envelopes, flow arrows, the selection, the selected range and the cursor line.

#include "model/value_units.h"
#include "views/counter_series.h"
#include "views/pixel_columns.h"
#include "views/plot_canvas.h"
#include "views/timeline_renderer.h"

#include <QPainterPath>

#include <cmath>
#include <limits>

namespace strata::views {

namespace {

/// Flows are drawn only when this few are in view: beyond, arrows are noise.
constexpr std::size_t kMaxFlowsDrawn = 400;

void drawArrow(QPainter& p, QPointF from, QPointF to)
{
    QPainterPath path(from);
    const double dx = std::max(12.0, std::abs(to.x() - from.x()) / 2);
    path.cubicTo(from + QPointF(dx, 0), to - QPointF(dx, 0), to);
    p.drawPath(path);
    // The curve enters its end horizontally from the left: the head points right.
    p.drawLine(to, to + QPointF(-7, -4));
    p.drawLine(to, to + QPointF(-7, 4));
}

} // namespace

void TimelineRenderer::paintCounter(const PlotCanvas::Clipped& canvas, const RowText& text,
    const TimelineFrame& f, const TimelineRow& row, const storage::TrackSlice& slice,
    PlotMarks& marks) const
{
    // Per pixel column: min and max of the steps over it; then one envelope line per
    // column. The steps are the counter charts' (forEachCounterStep, as heldCounter), so
    // the row and the chart agree, also in a window without a sample; they are taken as
    // they come, not stored: a wide window holds a few hundred thousand samples a row.
    const int width = f.plotWidthPx();
    constexpr double kNone = std::numeric_limits<double>::infinity();
    std::vector<double> lo(width, kNone), hi(width, -kNone);
    // f.xOf(t) - f.labelWidthPx, floored: a step inside the last column (most of a wide
    // window's) costs two compares.
    PixelColumns column(f.window.startNs, f.pxPerNs(), width, f.labelWidthPx);
    // The steps of the column where the last step ended, folded in registers until a step
    // leaves it: a wide window has ~10 steps a column.
    int runX = -1;
    double runLo = kNone, runHi = -kNone;
    auto endRun = [&] {
        if (runX >= 0) {
            lo[runX] = std::min(lo[runX], runLo);
            hi[runX] = std::max(hi[runX], runHi);
        }
    };
    forEachCounterStep(
        slice, m_store.grid(), counterHoldEnd(f.window, m_store.summary(row.track).lastNs),
        // Inline: a call per step was a third of the row's cost.
        [&](const CounterStep& step) __attribute__((always_inline)) {
            if (!step.showsIn(f.window))
                return;
            // A step shown starts left of the plot's right edge and ends right of its left
            // edge: x0 <= x1.
            const int x0 = std::max(0, column(step.startNs));
            const int x1 = std::min(width - 1, column(step.endNs));
            if (x0 == runX && x1 == runX) {
                runLo = std::min(runLo, step.min);
                runHi = std::max(runHi, step.max);
                return;
            }
            endRun();
            for (int x = x0; x < x1; ++x) {
                lo[x] = std::min(lo[x], step.min);
                hi[x] = std::max(hi[x], step.max);
            }
            runX = x1;
            runLo = step.min;
            runHi = step.max;
        });
    endRun();
    // The row's value range: every step shown covers a column (it starts before the
    // window's end and ends after its start), so the columns' extremes are the steps'.
    double vmin = kNone, vmax = -kNone;
    for (int x = 0; x < width; ++x) {
        vmin = std::min(vmin, lo[x]);
        vmax = std::max(vmax, hi[x]);
    }
    if (!(vmin <= vmax))
        return;  // nothing held in the window
    const int top = f.rowTop(row);
    const double scale = vmax > vmin ? (row.heightPx - 4) / (vmax - vmin) : 0;
    auto yOf = [&](double v) { return top + row.heightPx - 2 - (v - vmin) * scale; };
    const model::TrackInfo& info = m_store.resources().track(row.track);
    // The envelope: one pixel column per x, from the column's max down to its min.
    const QRgb color = colorForName(info.name).rgb();
    for (int x = 0; x < width; ++x) {
        if (lo[x] > hi[x])
            continue;  // no step over this column
        const int yHigh = floorToInt(yOf(hi[x]));
        const int yLow = floorToInt(yOf(lo[x]));
        canvas.fill(QRect(f.labelWidthPx + x, yHigh, 1, yLow - yHigh + 1), color);
    }
    // The row's value range, on a plate so it stays legible over a busy envelope (not in
    // rows too low for it, as in the overview strip).
    if (row.heightPx < text.heightPx + 4)
        return;
    const QString range = QString::fromStdString(
        model::formatQuantity(vmin, info.unit) + " .. " + model::formatQuantity(vmax, info.unit));
    marks.plates.emplace_back(
        QRectF(f.labelWidthPx + 2, top, 0, text.heightPx),  // its width: paintMarks
        range);
}

void TimelineRenderer::paintFlows(QPainter& p, const TimelineFrame& f, const TimelineData& data,
                                  const TimelineHighlights& h) const
{
    std::size_t total = 0;
    for (const storage::TrackSlice& s : data.slices)
        total += s.flows.size();
    const auto* selected = h.selection ? &*h.selection : nullptr;
    auto touchesSelection = [&](const storage::TrackSlice& s, const model::Flow& flow) {
        if (!selected)
            return false;
        const model::Interval& e = selected->interval;
        return (s.track == selected->track && flow.fromNs >= e.startNs && flow.fromNs <= e.endNs)
               || (flow.toTrack == selected->track && flow.toNs >= e.startNs && flow.toNs <= e.endNs);
    };
    const int lane = m_layout.laneHeightPx;
    for (const storage::TrackSlice& s : data.slices) {
        const TimelineRow* from = m_layout.rowOf(s.track);
        for (const model::Flow& flow : s.flows) {
            const bool emphasised = touchesSelection(s, flow);
            if (!emphasised && total > kMaxFlowsDrawn)
                continue;
            const TimelineRow* to = m_layout.rowOf(flow.toTrack);
            if (!from || !to)
                continue;
            const QPointF a(f.xOf(flow.fromNs), f.rowTop(*from) + lane / 2.0);
            const QPointF b(f.xOf(flow.toNs), f.rowTop(*to) + lane / 2.0);
            p.setPen(emphasised ? QPen(QColor(0xc0, 0x10, 0x10), 2) : QPen(QColor(0, 0, 0, 90), 1));
            drawArrow(p, a, b);
        }
    }
}

void TimelineRenderer::paintOverlays(QPainter& p, const TimelineFrame& f, const TimelineHighlights& h) const
{
    const double top = f.rulerHeightPx;
    const double bottom = f.heightPx;
    if (h.range && !h.range->empty()) {
        const double x0 = f.xOf(h.range->startNs);
        const double x1 = f.xOf(h.range->endNs);
        p.fillRect(QRectF(x0, top, x1 - x0, bottom - top), QColor(0x30, 0x60, 0xc0, 40));
        p.setPen(QPen(QColor(0x30, 0x60, 0xc0), 1));
        p.drawLine(QPointF(x0, top), QPointF(x0, bottom));
        p.drawLine(QPointF(x1, top), QPointF(x1, bottom));
        p.drawText(QRectF(x0 + 4, top + 2, std::max(160.0, x1 - x0), 14), Qt::AlignLeft,
                   QString::fromStdString(model::formatDuration(h.range->durationNs())));
    }
    if (h.selection) {
        if (const TimelineRow* row = m_layout.rowOf(h.selection->track)) {
            const model::Interval& e = h.selection->interval;
            const double x0 = f.xOf(e.startNs);
            const double x1 = std::max(x0 + 2, f.xOf(e.endNs));
            const int lane = m_layout.laneHeightPx;
            p.setPen(QPen(Qt::black, 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(x0 - 1, f.rowTop(*row) + e.depth * lane - 1, x1 - x0 + 2, lane + 1));
        }
    }
    if (h.cursorNs) {
        const double x = f.xOf(*h.cursorNs);
        p.setPen(QPen(QColor(0xd0, 0x20, 0x20), 1));
        p.drawLine(QPointF(x, top), QPointF(x, bottom));
        p.drawText(QPointF(x + 4, bottom - 6),
                   QString::fromStdString(model::formatDuration(*h.cursorNs)));
    }
}

} // namespace strata::views
