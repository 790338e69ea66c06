#include "views/timeline_renderer.h"

#include "views/pixel_columns.h"
#include "views/plot_canvas.h"
#include "views/time_ticks.h"

#include <QFontMetrics>

#include <array>
#include <chrono>
#include <cmath>
#include <limits>

namespace strata::views {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

const QColor kGroupBand(0xec, 0xef, 0xf4);
const QColor kRowSeparator(0xe0, 0xe0, 0xe0);

QString qtext(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

} // namespace

const storage::TrackSlice* TimelineData::slice(model::TrackId track) const
{
    const auto it = m_index.find(track);
    return it == m_index.end() ? nullptr : &slices[it->second];
}

TimelineData fetchTimeline(storage::StoreReader& store, std::vector<model::TrackId> tracks,
    model::TimeRange window, int plotWidthPx, int depthLimit, storage::CellDetail cells)
{
    const auto start = Clock::now();
    TimelineData data;
    data.window = window;
    data.plotWidthPx = plotWidthPx;
    data.cells = cells;
    if (!window.empty() && !tracks.empty())
        data.slices = store.query(
            { std::move(tracks), window.startNs, window.endNs, plotWidthPx, depthLimit, cells });
    for (std::size_t i = 0; i < data.slices.size(); ++i)
        data.m_index.emplace(data.slices[i].track, i);
    data.queryMs = msSince(start);
    return data;
}

std::vector<model::TrackId> visibleTracks(const TimelineLayout& layout, const TimelineFrame& frame)
{
    std::vector<model::TrackId> tracks;
    for (const TimelineRow& row : layout.rows) {
        const int top = frame.rowTop(row);
        if (!row.group && top + row.heightPx >= frame.rulerHeightPx && top < frame.heightPx)
            tracks.push_back(row.track);
    }
    return tracks;
}

model::TimeRange withMargin(model::TimeRange span)
{
    const model::TimeNs margin = std::max<model::TimeNs>(1, span.durationNs() / 100);
    return {span.startNs - margin, span.endNs + margin};
}

model::TimeRange fittedWindow(const storage::StoreReader& store)
{
    // The activity, not span(): a counter log recorded around the trace would otherwise
    // squeeze the run into a sliver. Its rows outside stay a zoom-out away.
    return withMargin(store.activitySpan());
}

TimelineRenderer::TimelineRenderer(storage::StoreReader& store)
    : m_store(store)
    , m_layout(TimelineLayout::forStore(store))
    , m_palette(store.strings(), store.allMeta())
{
}

void TimelineRenderer::setLayoutOptions(const LayoutOptions& options)
{
    m_layoutOptions = options;
    m_layout = TimelineLayout::forStore(m_store, options);
    ++m_layoutGeneration;
}

void TimelineRenderer::paintRuler(QPainter& p, const TimelineFrame& f) const
{
    p.fillRect(0, 0, f.widthPx, f.rulerHeightPx, QColor(0xf2, 0xf2, 0xf2));
    p.setPen(QColor(0x55, 0x55, 0x55));
    for (const TimeTick& tick : timeTicks(f.window, f.plotWidthPx())) {
        const int x = static_cast<int>(std::lround(f.xOf(tick.timeNs)));
        p.drawLine(x, f.rulerHeightPx - 6, x, f.rulerHeightPx);
        p.drawText(x + 3, f.rulerHeightPx - 8, QString::fromStdString(tick.label));
    }
    p.drawText(QRect(4, 0, f.labelWidthPx - 8, f.rulerHeightPx), Qt::AlignVCenter | Qt::AlignLeft,
               QStringLiteral("%1 wide").arg(QString::fromStdString(model::formatDuration(f.window.durationNs()))));
}

void TimelineRenderer::paintCells(const PlotCanvas::Clipped& canvas, const TimelineFrame& f,
    const TimelineRow& row, const storage::TrackSlice& slice, const TimelineHighlights& h,
    CellColors& colors) const
{
    // Cells are folded per pixel column and lane: the column takes the colour of its
    // most covered cell and is shaded by the share of the column's time covered.
    const model::TimeNs w = m_store.grid().bucketNs(slice.intervalLevel);
    const double pxPerNs = f.pxPerNs();
    const int width = f.plotWidthPx();
    const int lane = m_layout.laneHeightPx;
    const int top = f.rowTop(row);
    struct Column  // small: width x lanes of them are cleared for every row of every frame
    {
        double covered = 0;  ///< ns
        double best = -1;  ///< ns of the most covered cell
        QRgb color = 0;
        bool match = false;
    };
    std::vector<Column> columns(static_cast<std::size_t>(width) * row.lanes);
    for (const storage::IntervalCell& c : slice.cells) {
        if (c.depth >= row.lanes || c.entryCount == 0)
            continue;
        model::TimeNs covered = 0;
        bool match = false;
        for (std::uint32_t k = 0; k < c.entryCount; ++k) {
            const storage::Coverage& e = slice.entries[c.firstEntry + k];
            covered += e.coverageNs;
            match = match || (!h.matches.empty() && h.matches.count(e.name));
        }
        // Spread the cell's coverage over the columns its bucket overlaps.
        const double x0 = (c.bucket * w - f.window.startNs) * pxPerNs;
        const double x1 = x0 + w * pxPerNs;
        const double nsPerPx = covered / (x1 - x0);
        const storage::Coverage& dominant = slice.entries[c.firstEntry];
        // ~10^5 cells a frame: the palette lookup is memoised for the frame.
        CellColor& memo = colors[(dominant.name * 31 + static_cast<unsigned>(dominant.role)) % colors.size()];
        if (memo.name != dominant.name || memo.role != dominant.role) {
            memo = {dominant.name, dominant.role,
                    (dominant.name == storage::kOtherNames ? colorForRole(dominant.role)
                                                           : m_palette.coverage(dominant.name, dominant.role))
                        .rgb()};
        }
        const QRgb color = memo.rgb;
        // Columns floor(x0) .. those left of x1 (x < x1: x < ceil(x1)).
        const int first = std::max(0, floorToInt(std::clamp(x0, -1.0, double(width))));
        const int end = std::min(width, -floorToInt(std::clamp(-x1, -width - 1.0, 1.0)));
        for (int x = first; x < end; ++x) {
            Column& col = columns[static_cast<std::size_t>(c.depth) * width + x];
            const double part = (std::min(x1, x + 1.0) - std::max(x0, double(x))) * nsPerPx;
            col.covered += part;
            col.match = col.match || match;
            if (part > col.best) {
                col.best = part;
                col.color = color;
            }
        }
    }
    // One box per run of columns with the same colour, shade and match mark: the shade
    // is quantised to 8 steps, which keeps runs long where the canvas draws vectors.
    const double nsPerColumn = 1.0 / pxPerNs;
    auto shadeOf = [&](const Column& col) {
        return static_cast<int>(std::clamp(col.covered / nsPerColumn, 0.0, 1.0) * 7 + 0.5);
    };
    for (int depth = 0; depth < row.lanes; ++depth) {
        const Column* lane0 = &columns[static_cast<std::size_t>(depth) * width];
        const int y = top + depth * lane;
        for (int x = 0; x < width;) {
            const Column& col = lane0[x];
            if (col.best < 0) {
                // White between cells: paintRow left the lane's pixels to this loop.
                int end = x + 1;
                while (end < width && lane0[end].best < 0)
                    ++end;
                if (canvas.pixels())
                    canvas.fill(
                        QRect(f.labelWidthPx + x, y, end - x, lane - 1), qRgb(255, 255, 255));
                x = end;
                continue;
            }
            const int shade = shadeOf(col);
            int end = x + 1;
            while (end < width && lane0[end].best >= 0 && lane0[end].color == col.color && lane0[end].match == col.match
                   && shadeOf(lane0[end]) == shade)
                ++end;
            // The shade is the colour at 30..100 % over the white plot, mixed here:
            // opaque pixels need no blending.
            const double alpha = 0.3 + 0.1 * shade;
            auto mix = [alpha](int c) {
                return static_cast<int>(c * alpha + 255 * (1 - alpha) + 0.5);
            };
            canvas.fill(QRect(f.labelWidthPx + x, y, end - x, lane - 1),
                        qRgb(mix(qRed(col.color)), mix(qGreen(col.color)), mix(qBlue(col.color))));
            if (col.match)
                canvas.fill(QRect(f.labelWidthPx + x, y, end - x, 3), qRgb(0, 0, 0));
            x = end;
        }
    }
}

void TimelineRenderer::paintIntervals(const PlotCanvas::Clipped& canvas, const RowText& text,
    const TimelineFrame& f, const TimelineRow& row, const storage::TrackSlice& slice,
    const TimelineHighlights& h, PlotMarks& marks, CellColors& colors) const
{
    const int top = f.rowTop(row);
    const int lane = m_layout.laneHeightPx;
    const double plotLeft = f.labelWidthPx;
    auto xOf = [&](model::TimeNs t) { return std::clamp(f.xOf(t), plotLeft - 2.0, plotLeft + f.plotWidthPx() + 2.0); };
    // The column QPainter fills (x is clamped near the plot).
    auto pixel = [](double x) {
        return floorToInt(x + 0.5);
    };
    const bool labels = text.labels;
    const int minLabelBoxPx = text.minLabelBoxPx;
    if (slice.intervalLevel > 0)
        paintCells(canvas, f, row, slice, h, colors);
    // Exact intervals by start time: of those a pixel wide or less, one per pixel
    // column and lane (a whole-run frame of a 100M-event store holds ~10^5).
    std::array<int, TimelineLayout::kMaxLanes> lastThinPx;
    lastThinPx.fill(std::numeric_limits<int>::min());
    for (const model::Interval& e : slice.intervals) {
        if (e.depth >= row.lanes || e.endNs < f.window.startNs || e.startNs > f.window.endNs)
            continue;
        const int x0 = pixel(xOf(e.startNs));
        const int x1 = std::max(x0 + 1, pixel(xOf(e.endNs)));
        const bool match = !h.matches.empty() && h.matches.count(e.name);
        if (x1 - x0 == 1 && !match) {  // a search match always gets its pixel
            if (x0 == lastThinPx[e.depth])
                continue;
            lastThinPx[e.depth] = x0;
        }
        const QRect box(x0, top + e.depth * lane, x1 - x0, lane - 1);
        canvas.fill(box, m_palette.intervalRgb(slice.track, e));
        // Boxes wide enough for a name, or matching the search: their text and outline
        // go over the pixels once they are drawn.
        if (match && x1 - x0 <= 2)
            canvas.fill(box.adjusted(0, 0, 0, 3 - box.height()), qRgb(0, 0, 0));
        else if (match || (labels && x1 - x0 > minLabelBoxPx))
            marks.boxes.emplace_back(&e, box);
    }
    // Instants over the intervals (names and search outlines go over both): a tick at
    // the top of a track that holds intervals, so that marks as dense as the pixels
    // (one per training step over a whole run) do not hide the intervals under them;
    // the row's height on a track of instants alone.
    const bool withIntervals = m_store.summary(slice.track).intervals > 0;
    const int tickPx = withIntervals ? std::max(3, lane / 3) : row.heightPx;
    for (const model::Instant& i : slice.instants)
        canvas.fill(QRect(pixel(xOf(i.timeNs)), top, 1, tickPx), qRgb(0x30, 0x30, 0x30));
    for (const storage::InstantCell& c : slice.instantCells)
        canvas.fill(QRect(pixel(xOf(c.firstNs)), top, 1, tickPx), qRgb(0x30, 0x30, 0x30));
}

template<typename Name>
void TimelineRenderer::forEachName(const QFontMetrics& metrics, const RowText& text,
    const TimelineFrame& f, const PlotMarks& marks, Name&& name) const
{
    if (!text.labels)
        return;  // lanes too low for text
    for (const auto& [e, box] : marks.boxes) {
        if (box.width() <= text.minLabelBoxPx)
            continue;
        const QRect inView =
            box.intersected(QRect(f.labelWidthPx, box.top(), f.plotWidthPx(), box.height()));
        name(inView.adjusted(2, 0, -2, 0), label(e->name, metrics, inView.width() - 4));
    }
}

void TimelineRenderer::inkNames(const PlotCanvas& canvas, QPainter& p, const QFontMetrics& metrics,
    const RowText& text, const TimelineFrame& f, const PlotMarks& marks) const
{
    const int boxHeight = m_layout.laneHeightPx - 1;  // paintIntervals' boxes
    // Where drawLine puts the text's top in a box of that height.
    const double textTop = (boxHeight - QFontMetricsF(p.font()).height()) / 2;
    m_textMasks.begin({ p.font(), p.font().key(), boxHeight, textTop, canvas.scale(),
        p.device()->logicalDpiX(), p.device()->logicalDpiY() });
    const PlotCanvas::Clipped plot = canvas.clipped(f.plotRect());
    forEachName(metrics, text, f, marks, [&](QRect box, const QString& name) {
        if (!name.isEmpty())
            plot.multiply(box.topLeft(), m_textMasks.mask(name), box);
    });
}

void TimelineRenderer::paintMarks(QPainter& p, const QFontMetrics& metrics, const RowText& text,
    const TimelineFrame& f, const TimelineHighlights& h, const PlotMarks& marks,
    bool namesInked) const
{
    if (!h.matches.empty()) {
        p.setPen(QPen(Qt::black, 2));
        for (const auto& [e, box] : marks.boxes) {
            if (h.matches.count(e->name))
                p.drawRect(QRectF(box).adjusted(1, 1, -1, -1));
        }
    }
    if (!namesInked) {
        p.setPen(Qt::black);
        forEachName(metrics, text, f, marks,
            [&](QRect box, const QString& name) { drawLine(p, box, name, f.plotRect()); });
    }
    for (auto [plate, range] : marks.plates) {
        plate.setWidth(metrics.horizontalAdvance(range) + 6);
        p.setClipRect(f.plotRect());  // drawLine left it on its text
        p.fillRect(plate, QColor(255, 255, 255, 200));
        p.setPen(QColor(0x20, 0x20, 0x20));
        drawLine(p, plate.adjusted(3, 0, 0, 0), range, f.plotRect());
    }
    p.setClipRect(f.plotRect());
}

void TimelineRenderer::drawLine(
    QPainter& p, const QRectF& box, const QString& text, QRect plot) const
{
    // Laying text out (itemizing, shaping) is most of drawText's cost, and a frame shows
    // the same few hundred names and ranges again and again: each is laid out once.
    if (text.isEmpty())
        return;
    const QString font = p.font().key();
    if (font != m_laidOutFont || m_laidOut.size() > 4096) {
        m_laidOut.clear();
        m_laidOutFont = font;
    }
    auto it = m_laidOut.find(text);
    if (it == m_laidOut.end()) {
        QStaticText laid(text);
        laid.setTextFormat(Qt::PlainText);
        laid.setPerformanceHint(QStaticText::AggressiveCaching);
        laid.prepare(QTransform(), p.font());
        it = m_laidOut.insert(text, laid);
    }
    // As drawText(box, Qt::AlignVCenter | Qt::AlignLeft, text) in the plot's clip: clipped
    // to the box, so that descenders stay out of the lane below.
    p.setClipRect(box & QRectF(plot));
    p.drawStaticText(
        QPointF(box.left(), box.top() + (box.height() - QFontMetricsF(p.font()).height()) / 2),
        *it);
}

QString TimelineRenderer::label(model::StringId name, const QFontMetrics& metrics, int widthPx) const
{
    // Text layout is the costliest part of a frame: measure each name once, and cut a
    // name that does not fit by its average character width rather than laying it out
    // again for every box (QFontMetrics::elidedText).
    auto [it, inserted] = m_labelWidths.try_emplace(name, 0);
    const QString text = qtext(m_store.strings().text(name));
    if (inserted)
        it->second = metrics.horizontalAdvance(text);
    if (it->second <= widthPx)
        return text;
    const int chars = widthPx / std::max(1, metrics.averageCharWidth()) - 1;
    return chars > 0 ? text.left(chars) + QChar(0x2026) : QString();
}

void TimelineRenderer::paintLabels(QPainter& p, const TimelineFrame& f) const
{
    if (f.labelWidthPx <= 0 || f.heightPx <= f.rulerHeightPx)
        return;
    // The column depends on the rows and the scroll, not on the window: painted once into
    // an image and blitted while the user zooms and pans (its text was a quarter of a
    // frame's paint). Vector devices get the text itself.
    const int scale = wholePixelScale(p);
    if (scale == 0) {
        paintLabelColumn(p, f);
        return;
    }
    const QRect area(0, f.rulerHeightPx, f.labelWidthPx, f.heightPx - f.rulerHeightPx);
    const int dpi = p.device()->logicalDpiX();
    const LabelColumnKey key { area.size(), f.scrollPx, f.rulerHeightPx, scale, dpi,
        m_layoutGeneration, p.font().key() };
    if (!m_labelColumn || m_labelColumn->key != key) {
        QImage image(area.size() * scale, QImage::Format_RGB32);
        image.setDevicePixelRatio(scale);
        // The device's resolution, so that the font has the size it has on the device.
        image.setDotsPerMeterX(static_cast<int>(std::lround(dpi / 0.0254)));
        image.setDotsPerMeterY(static_cast<int>(std::lround(p.device()->logicalDpiY() / 0.0254)));
        {
            QPainter column(&image);
            column.setFont(p.font());
            column.translate(0, -f.rulerHeightPx);
            paintLabelColumn(column, f);
        }
        m_labelColumn = LabelColumn { key, std::move(image) };
    }
    p.drawImage(area.topLeft(), m_labelColumn->image);
}

void TimelineRenderer::paintRowSeparators(QPainter& p, const TimelineFrame& f) const
{
    // Over everything in the plot. Separators are boxes one pixel high, not lines: a
    // cosmetic line is stroked pixel by pixel (7 % of a frame's paint for ~30 of them).
    for (const TimelineRow& row : m_layout.rows) {
        const int top = f.rowTop(row);
        if (top + row.heightPx < f.rulerHeightPx || top >= f.heightPx)
            continue;
        if (row.group) {
            p.fillRect(f.labelWidthPx, top, f.plotWidthPx(), row.heightPx, kGroupBand);
        } else {
            p.fillRect(f.labelWidthPx, top + row.heightPx + 1, f.plotWidthPx(), 1, kRowSeparator);
        }
    }
}

void TimelineRenderer::paintLabelColumn(QPainter& p, const TimelineFrame& f) const
{
    p.fillRect(0, f.rulerHeightPx, f.labelWidthPx, f.heightPx - f.rulerHeightPx, QColor(0xfa, 0xfa, 0xfa));
    const QFont normal = p.font();
    QFont bold = normal;
    bold.setBold(true);
    for (const TimelineRow& row : m_layout.rows) {
        const int top = f.rowTop(row);
        if (top + row.heightPx < f.rulerHeightPx || top >= f.heightPx)
            continue;
        const int indentPx = 4 + 12 * row.indent;
        if (row.group) {
            p.fillRect(0, top, f.labelWidthPx, row.heightPx, kGroupBand);
            p.setPen(QColor(0x40, 0x40, 0x40));
            p.drawText(QRect(indentPx, top, 12, row.heightPx), Qt::AlignCenter,
                       row.collapsed ? QStringLiteral("▸") : QStringLiteral("▾"));
        } else {
            p.fillRect(0, top + row.heightPx + 1, f.labelWidthPx, 1, kRowSeparator);
        }
        p.setFont(row.group ? bold : normal);
        p.setPen(Qt::black);
        const int x = indentPx + (row.group ? 14 : 0);
        const int width = f.labelWidthPx - x - 4;
        // Eliding lays the text out: once per label and width, not every frame.
        auto [it, inserted] = m_elidedLabels.try_emplace({row.label, width, p.font().key()});
        if (inserted)
            it->second = QFontMetrics(p.font()).elidedText(QString::fromStdString(row.label), Qt::ElideRight, width);
        p.drawText(QRect(x, top, width, std::min(row.heightPx, 16)), Qt::AlignVCenter | Qt::AlignLeft, it->second);
    }
    p.setFont(normal);
}

namespace {

/// The plot's part of a row: where its pixels go.
QRect rowRect(const TimelineFrame& f, const TimelineRow& row)
{
    return { f.labelWidthPx, f.rowTop(row), f.plotWidthPx(), row.heightPx };
}

}  // namespace

void TimelineRenderer::paintRow(const PlotCanvas::Clipped& canvas, const RowText& text,
    const TimelineFrame& f, const TimelineHighlights& h, const RowJob& job, PlotMarks& marks,
    CellColors& colors) const
{
    const TimelineRow& row = *job.row;
    if (!row.counter && job.slice->intervalLevel > 0 && canvas.pixels()) {
        // Summary cells on a pixel canvas: paintCells writes every pixel of the lanes'
        // boxes, white where no cell is, so only the line under each is cleared. Clearing
        // the whole row wrote its pixels twice, and clearing was a fifth of a frame's paint.
        const int lane = m_layout.laneHeightPx;
        for (int depth = 0, top = f.rowTop(row); depth < row.lanes; ++depth, top += lane) {
            canvas.clipped(QRect(f.labelWidthPx, top, f.plotWidthPx(), lane - 1)).claim();
            canvas.clipped(QRect(f.labelWidthPx, top + lane - 1, f.plotWidthPx(), 1)).clear();
        }
    } else {
        canvas.clear();
    }
    if (row.counter)
        paintCounter(canvas, text, f, *job.row, *job.slice, marks);
    else
        paintIntervals(canvas, text, f, *job.row, *job.slice, h, marks, colors);
}

void TimelineRenderer::paint(QPainter& p, const TimelineFrame& f, const TimelineData& data,
                             const TimelineHighlights& highlights)
{
    const auto paintStart = Clock::now();
    // No white under the whole frame: the canvas clears the plot, the label column and
    // the ruler paint their own backgrounds.
    const QRect plot = f.plotRect();
    p.save();
    p.setClipRect(plot);
    PlotMarks marks;
    bool namesInked = false;
    const QFontMetrics metrics(p.font());  // costly: once a frame, not per row
    RowText text;
    text.labels = m_layout.laneHeightPx >= metrics.height() - 2;
    text.minLabelBoxPx = 6 * metrics.averageCharWidth();
    text.heightPx = metrics.height();
    {
        PlotCanvas canvas(p, plot, m_plotPixels);
        // A row's work: its events and cells, and a pass over its pixel columns.
        auto workOf = [&f](const storage::TrackSlice& s) {
            return s.cells.size() + s.intervals.size() + s.instants.size() + s.instantCells.size()
                + s.samples.size() + s.counterCells.size()
                + static_cast<std::size_t>(f.plotWidthPx());
        };
        std::vector<RowJob> jobs;
        std::size_t work = 0;
        for (const TimelineRow& row : m_layout.rows) {
            const int top = f.rowTop(row);
            if (row.group || top + row.heightPx < f.rulerHeightPx || top >= f.heightPx)
                continue;
            if (const storage::TrackSlice* slice = data.slice(row.track)) {
                jobs.push_back({ &row, slice });
                work += workOf(*slice);
            }
        }
        // Summary cells take a name's category from the frame's exact intervals, whichever
        // row they are in, and whichever thread paints them.
        if (m_palette.mode() == ColorBy::Category) {
            for (const RowJob& job : jobs) {
                for (const model::Interval& e : job.slice->intervals)
                    m_palette.learnCategory(e.name, e.category);
            }
        }
        // A busy frame's rows on two cores when the second is free (storage/store/helper_thread.h):
        // each row writes its own pixels (the canvas must write pixels itself: a painter is for one
        // thread) and keeps its own marks, drawn after in row order as one thread would; each
        // thread keeps its own colour memo.
        constexpr std::size_t kHelpFrom = 20000;
        std::array<CellColors, 2> colors;
        if (m_paintThreads > 1 && canvas.pixels() && work >= kHelpFrom && jobs.size() > 1) {
            if (!m_helper)
                m_helper = std::make_unique<storage::HelperThread>();
            std::vector<PlotMarks> rowMarks(jobs.size());
            std::array<bool, 2> helped {};
            m_helper->run(jobs.size(), [&](std::size_t i, int worker) {
                paintRow(canvas.clipped(rowRect(f, *jobs[i].row)), text, f, highlights, jobs[i],
                    rowMarks[i], colors[static_cast<std::size_t>(worker)]);
                helped[static_cast<std::size_t>(worker)] = true;
            });
            for (PlotMarks& m : rowMarks) {
                marks.boxes.insert(marks.boxes.end(), m.boxes.begin(), m.boxes.end());
                marks.plates.insert(marks.plates.end(), m.plates.begin(), m.plates.end());
            }
            m_timings.paintThreads = helped[1] ? 2 : 1;
        } else {
            for (const RowJob& job : jobs)
                paintRow(canvas.clipped(rowRect(f, *job.row)), text, f, highlights, job, marks,
                    colors[0]);
            m_timings.paintThreads = 1;
        }
        // Names into the pixels where the canvas has them: drawn by QPainter, glyph by
        // glyph, they were half of a narrow frame's paint.
        namesInked = canvas.pixels();
        if (namesInked)
            inkNames(canvas, p, metrics, text, f, marks);
        canvas.draw();
    }
    paintMarks(p, metrics, text, f, highlights, marks, namesInked);
    if (highlights.flows)
        paintFlows(p, f, data, highlights);
    paintOverlays(p, f, highlights);
    if (f.labelWidthPx > 0)  // the overview strip has no labels, bands nor separators
        paintRowSeparators(p, f);
    p.restore();
    paintLabels(p, f);
    if (f.rulerHeightPx > 0)
        paintRuler(p, f);
    m_timings.queryMs = data.queryMs;
    m_timings.paintMs = msSince(paintStart);
}

void TimelineRenderer::paint(QPainter& painter, const TimelineFrame& frame, const TimelineHighlights& highlights)
{
    // Search marks need every name of a cell; the picture alone needs its colour only.
    const auto cells =
        highlights.matches.empty() ? storage::CellDetail::Drawn : storage::CellDetail::Full;
    const TimelineData data = fetchTimeline(
        m_store, visibleTracks(m_layout, frame), frame.window, frame.plotWidthPx(), 0, cells);
    paint(painter, frame, data, highlights);
}

QImage renderTimelineImage(storage::StoreReader& store, model::TimeRange window, QSize size,
                           const LayoutOptions& layout, ColorBy colorBy)
{
    if (window.empty())
        window = fittedWindow(store);
    QImage image(size, QImage::Format_RGB32);
    QPainter painter(&image);
    TimelineRenderer renderer(store);
    renderer.setLayoutOptions(layout);
    renderer.palette().setMode(colorBy);
    TimelineFrame frame;
    frame.window = window;
    frame.widthPx = size.width();
    frame.heightPx = size.height();
    renderer.paint(painter, frame);
    return image;
}

} // namespace strata::views
