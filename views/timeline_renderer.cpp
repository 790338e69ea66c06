#include "views/timeline_renderer.h"

#include "views/color_palette.h"

#include <QFontMetrics>

#include <chrono>
#include <cmath>
#include <unordered_map>

namespace strata::views {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

/// A "nice" tick step (1, 2 or 5 times a power of ten ns) giving ~`targetPx` per tick.
model::TimeNs tickStep(double nsPerPx, int targetPx)
{
    const double raw = nsPerPx * targetPx;
    double step = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
        if (step * m >= raw)
            return std::max<model::TimeNs>(1, static_cast<model::TimeNs>(step * m));
    }
    return static_cast<model::TimeNs>(step * 10);
}

} // namespace

TimelineRenderer::TimelineRenderer(storage::StoreReader& store)
    : m_store(store)
    , m_layout(TimelineLayout::forStore(store, 0))
{
}

void TimelineRenderer::paintRuler(QPainter& p, const TimelineFrame& f) const
{
    p.fillRect(0, 0, f.widthPx, f.rulerHeightPx, QColor(0xf2, 0xf2, 0xf2));
    const double nsPerPx = 1.0 / f.pxPerNs();
    const model::TimeNs step = tickStep(nsPerPx, 110);
    const model::TimeNs first = model::floorDiv(f.window.startNs, step) * step;
    p.setPen(QColor(0x55, 0x55, 0x55));
    for (model::TimeNs t = first; t < f.window.endNs; t += step) {
        const int x = f.labelWidthPx + static_cast<int>(std::lround((t - f.window.startNs) * f.pxPerNs()));
        if (x < f.labelWidthPx)
            continue;
        p.drawLine(x, f.rulerHeightPx - 6, x, f.rulerHeightPx);
        p.drawText(x + 3, f.rulerHeightPx - 8, QString::fromStdString(model::formatDuration(t - f.window.startNs)));
    }
    p.drawText(4, f.rulerHeightPx - 8,
               QStringLiteral("+%1  (%2 wide)")
                   .arg(QString::fromStdString(model::formatDuration(f.window.startNs)),
                        QString::fromStdString(model::formatDuration(f.window.durationNs()))));
}

void TimelineRenderer::paintIntervals(QPainter& p, const TimelineFrame& f, const TimelineRow& row,
                                      const storage::TrackSlice& slice) const
{
    const double pxPerNs = f.pxPerNs();
    const int top = f.rulerHeightPx + row.topPx - f.scrollPx;
    const int lane = TimelineLayout::kLaneHeightPx;
    const double plotLeft = f.labelWidthPx;
    auto xOf = [&](model::TimeNs t) {
        return plotLeft + std::clamp((t - f.window.startNs) * pxPerNs, -2.0, f.plotWidthPx() + 2.0);
    };
    // Summary cells first, exact events over them. Cells are folded per pixel column
    // and lane: the column takes the colour of its most covered cell and is shaded by
    // the share of the column's time that intervals cover.
    if (slice.intervalLevel > 0) {
        const model::TimeNs w = m_store.grid().bucketNs(slice.intervalLevel);
        const int width = f.plotWidthPx();
        struct Column
        {
            model::TimeNs covered = 0;
            model::TimeNs best = -1;
            QColor color;
        };
        std::vector<Column> columns(static_cast<std::size_t>(width) * row.lanes);
        for (const storage::IntervalCell& c : slice.cells) {
            if (c.depth >= row.lanes || c.entryCount == 0)
                continue;
            model::TimeNs covered = 0;
            for (std::uint32_t k = 0; k < c.entryCount; ++k)
                covered += slice.entries[c.firstEntry + k].coverageNs;
            // Spread the cell's coverage over the columns its bucket overlaps.
            const double x0 = (c.bucket * w - f.window.startNs) * pxPerNs;
            const double x1 = x0 + w * pxPerNs;
            const storage::Coverage& dominant = slice.entries[c.firstEntry];
            const QColor color = dominant.name == storage::kOtherNames
                                     ? colorForRole(dominant.role)
                                     : colorForName(m_store.strings().text(dominant.name));
            for (int x = std::max(0, static_cast<int>(std::floor(x0))); x < std::min<double>(width, x1); ++x) {
                const double share = (std::min(x1, x + 1.0) - std::max(x0, double(x))) / (x1 - x0);
                Column& col = columns[static_cast<std::size_t>(c.depth) * width + x];
                const auto part = static_cast<model::TimeNs>(std::llround(covered * share));
                col.covered += part;
                if (part > col.best) {
                    col.best = part;
                    col.color = color;
                }
            }
        }
        const double nsPerColumn = 1.0 / pxPerNs;
        for (int depth = 0; depth < row.lanes; ++depth) {
            for (int x = 0; x < width; ++x) {
                const Column& col = columns[static_cast<std::size_t>(depth) * width + x];
                if (col.best < 0)
                    continue;
                QColor color = col.color;
                const double fraction = std::clamp(static_cast<double>(col.covered) / nsPerColumn, 0.0, 1.0);
                color.setAlphaF(static_cast<float>(0.3 + 0.7 * fraction));
                p.fillRect(QRectF(plotLeft + x, top + depth * lane, 1, lane - 1), color);
            }
        }
    }
    const QFontMetrics metrics(p.font());
    for (const model::Interval& e : slice.intervals) {
        if (e.depth >= row.lanes)
            continue;
        const double x0 = xOf(e.startNs);
        const double x1 = std::max(x0 + 1.0, xOf(e.endNs));
        const QRectF box(x0, top + e.depth * lane, x1 - x0, lane - 1);
        const std::string_view name = m_store.strings().text(e.name);
        p.fillRect(box, colorForName(name));
        if (box.width() > 6 * metrics.averageCharWidth()) {
            p.setPen(Qt::black);
            const QRectF visible = box.intersected(QRectF(plotLeft, box.top(), f.plotWidthPx(), box.height()));
            p.drawText(visible.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       metrics.elidedText(QString::fromUtf8(name.data(), static_cast<int>(name.size())),
                                          Qt::ElideRight, static_cast<int>(visible.width()) - 4));
        }
    }
    p.setPen(QColor(0x30, 0x30, 0x30));
    for (const model::Instant& i : slice.instants) {
        const double x = xOf(i.timeNs);
        p.drawLine(QPointF(x, top), QPointF(x, top + row.heightPx - 1));
    }
    for (const storage::InstantCell& c : slice.instantCells) {
        const double x = xOf(c.firstNs);
        p.drawLine(QPointF(x, top), QPointF(x, top + row.heightPx - 1));
    }
}

void TimelineRenderer::paintCounter(QPainter& p, const TimelineFrame& f, const TimelineRow& row,
                                    const storage::TrackSlice& slice) const
{
    // Per pixel column: min, max, last value; then one envelope and one mean line.
    const int width = f.plotWidthPx();
    std::vector<double> lo(width, NAN), hi(width, NAN), mean(width, NAN);
    auto put = [&](int x, double mn, double mx, double m) {
        if (x < 0 || x >= width)
            return;
        lo[x] = std::isnan(lo[x]) ? mn : std::min(lo[x], mn);
        hi[x] = std::isnan(hi[x]) ? mx : std::max(hi[x], mx);
        mean[x] = m;
    };
    const double pxPerNs = f.pxPerNs();
    auto column = [&](model::TimeNs t) { return static_cast<int>(std::floor((t - f.window.startNs) * pxPerNs)); };
    // Step function: each value holds until the next one.
    auto fillSteps = [&](auto begin, auto end, auto time, auto value) {
        for (auto it = begin; it != end; ++it) {
            const auto next = std::next(it);
            const int x0 = std::max(0, column(time(*it)));
            const int x1 = next == end ? x0 : std::min(width - 1, column(time(*next)));
            for (int x = x0; x <= x1; ++x)
                put(x, value(*it).first, value(*it).second, (value(*it).first + value(*it).second) / 2);
        }
    };
    if (slice.counterLevel == 0) {
        fillSteps(slice.samples.begin(), slice.samples.end(), [](const auto& s) { return s.timeNs; },
                  [](const auto& s) { return std::pair(s.value, s.value); });
    } else {
        const model::TimeNs w = m_store.grid().bucketNs(slice.counterLevel);
        fillSteps(slice.counterCells.begin(), slice.counterCells.end(), [w](const auto& c) { return c.bucket * w; },
                  [](const auto& c) { return std::pair(c.min, c.max); });
    }
    double vmin = INFINITY, vmax = -INFINITY;
    for (int x = 0; x < width; ++x) {
        if (!std::isnan(lo[x])) {
            vmin = std::min(vmin, lo[x]);
            vmax = std::max(vmax, hi[x]);
        }
    }
    if (!std::isfinite(vmin))
        return;
    const int top = f.rulerHeightPx + row.topPx - f.scrollPx;
    const double scale = vmax > vmin ? (row.heightPx - 4) / (vmax - vmin) : 0;
    auto yOf = [&](double v) { return top + row.heightPx - 2 - (v - vmin) * scale; };
    const QColor color = colorForName(m_store.resources().track(row.track).name);
    p.setPen(color);
    for (int x = 0; x < width; ++x) {
        if (!std::isnan(lo[x]))
            p.drawLine(QPointF(f.labelWidthPx + x, yOf(lo[x])), QPointF(f.labelWidthPx + x, yOf(hi[x])));
    }
    p.setPen(QColor(0x20, 0x20, 0x20));
    p.drawText(QRectF(f.labelWidthPx + 4, top, 300, 12), Qt::AlignLeft | Qt::AlignTop,
               QStringLiteral("%1 .. %2 %3").arg(vmin, 0, 'g', 4).arg(vmax, 0, 'g', 4)
                   .arg(QString::fromStdString(m_store.resources().track(row.track).unit)));
}

void TimelineRenderer::paint(QPainter& p, const TimelineFrame& f)
{
    const auto queryStart = Clock::now();
    std::vector<const TimelineRow*> visible;
    storage::ViewportQuery q{{}, f.window.startNs, f.window.endNs, f.plotWidthPx()};
    for (const TimelineRow& row : m_layout.rows) {
        const int top = f.rulerHeightPx + row.topPx - f.scrollPx;
        if (top + row.heightPx >= f.rulerHeightPx && top < f.heightPx) {
            visible.push_back(&row);
            q.tracks.push_back(row.track);
        }
    }
    const std::vector<storage::TrackSlice> slices = f.window.empty() ? std::vector<storage::TrackSlice>() : m_store.query(q);
    m_timings.queryMs = msSince(queryStart);

    const auto paintStart = Clock::now();
    p.fillRect(0, 0, f.widthPx, f.heightPx, Qt::white);
    p.save();
    p.setClipRect(f.labelWidthPx, f.rulerHeightPx, f.plotWidthPx(), f.heightPx - f.rulerHeightPx);
    for (std::size_t i = 0; i < visible.size(); ++i) {
        if (visible[i]->counter)
            paintCounter(p, f, *visible[i], slices[i]);
        else
            paintIntervals(p, f, *visible[i], slices[i]);
    }
    p.restore();
    // Labels and row separators.
    p.fillRect(0, f.rulerHeightPx, f.labelWidthPx, f.heightPx - f.rulerHeightPx, QColor(0xfa, 0xfa, 0xfa));
    const QFontMetrics metrics(p.font());
    for (const TimelineRow* row : visible) {
        const int top = f.rulerHeightPx + row->topPx - f.scrollPx;
        p.setPen(QColor(0xe0, 0xe0, 0xe0));
        p.drawLine(0, top + row->heightPx + 1, f.widthPx, top + row->heightPx + 1);
        p.setPen(Qt::black);
        p.drawText(QRect(4, top, f.labelWidthPx - 8, std::min(row->heightPx, 16)), Qt::AlignVCenter | Qt::AlignLeft,
                   metrics.elidedText(QString::fromStdString(row->label), Qt::ElideLeft, f.labelWidthPx - 8));
    }
    paintRuler(p, f);
    m_timings.paintMs = msSince(paintStart);
}

QImage renderTimelineImage(storage::StoreReader& store, model::TimeRange window, QSize size)
{
    if (window.empty())
        window = {store.span().startNs, std::max(store.span().endNs, store.span().startNs + 1)};
    QImage image(size, QImage::Format_RGB32);
    QPainter painter(&image);
    TimelineRenderer renderer(store);
    TimelineFrame frame;
    frame.window = window;
    frame.widthPx = size.width();
    frame.heightPx = size.height();
    renderer.paint(painter, frame);
    return image;
}

} // namespace strata::views
