#include "views/timeline_widget.h"

#include "views/timeline_picking.h"

#include <QDateTime>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <cmath>

namespace strata::views {

namespace {

/// A wheel gesture that pauses this long starts a new history entry.
constexpr qint64 kWheelGestureMs = 600;
/// A press that moves less than this is a click, not a drag.
constexpr double kClickSlopPx = 3;

QString durationText(model::TimeNs ns)
{
    return QString::fromStdString(model::formatDuration(ns));
}

} // namespace

TimelineWidget::TimelineWidget(storage::StoreReader& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_renderer(store)
    , m_fetcher(store)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumSize(400, 200);
    connect(&m_fetcher, &TimelineFetcher::ready, this, qOverload<>(&QWidget::update));
    connect(&m_fetcher, &TimelineFetcher::failed, this, &TimelineWidget::queryFailed);
    m_window = fittedWindow(store);
}

TimelineFrame TimelineWidget::frame() const
{
    TimelineFrame f;
    f.window = m_window;
    f.widthPx = width();
    f.heightPx = height();
    f.scrollPx = m_scrollPx;
    return f;
}

void TimelineWidget::requestData()
{
    const TimelineFrame f = frame();
    // While a search marks names, every pass reads them all: a pass with the cells as
    // drawn would mark only the names the cells are coloured by.
    const bool searching = !m_highlights.matches.empty();
    m_fetcher.request({ visibleTracks(m_renderer.layout(), f), f.window, f.plotWidthPx(), 0,
        m_fullCellsWanted || searching ? storage::CellDetail::Full : storage::CellDetail::Drawn,
        !searching });
}

void TimelineWidget::setFullCellsWanted(bool wanted)
{
    if (wanted == m_fullCellsWanted)
        return;
    m_fullCellsWanted = wanted;
    requestData();
}

void TimelineWidget::waitForData()
{
    requestData();
    m_fetcher.waitUntilIdle();
}

void TimelineWidget::setWindow(model::TimeRange window)
{
    // Never narrower than 100 ns or wider than 4x the run.
    const model::TimeNs span = std::max<model::TimeNs>(1, m_store.span().durationNs());
    const model::TimeNs width = std::clamp<model::TimeNs>(window.durationNs(), 100, 4 * span);
    const model::TimeNs start
        = std::clamp<model::TimeNs>(window.startNs, m_store.span().startNs - span, m_store.span().endNs);
    const model::TimeRange next{start, start + width};
    if (next == m_window)
        return;
    m_window = next;
    requestData();
    emit windowChanged(m_window);
    update();
}

void TimelineWidget::navigateTo(model::TimeRange window)
{
    m_history.visit(m_window);
    setWindow(window);
    emit historyChanged();
}

void TimelineWidget::fitAll()
{
    navigateTo(fittedWindow(m_store));
}

void TimelineWidget::zoom(double factor, double anchorPx)
{
    const TimelineFrame f = frame();
    const double anchorNs = m_window.startNs + anchorPx / f.pxPerNs();
    const double width = m_window.durationNs() * factor;
    const double start = anchorNs - (anchorNs - m_window.startNs) * factor;
    setWindow({static_cast<model::TimeNs>(std::llround(start)), static_cast<model::TimeNs>(std::llround(start + width))});
}

void TimelineWidget::panPx(double px)
{
    const auto deltaNs = static_cast<model::TimeNs>(std::llround(px / frame().pxPerNs()));
    setWindow({m_window.startNs + deltaNs, m_window.endNs + deltaNs});
}

void TimelineWidget::back()
{
    if (const auto w = m_history.back(m_window)) {
        setWindow(*w);
        emit historyChanged();
    }
}

void TimelineWidget::forward()
{
    if (const auto w = m_history.forward(m_window)) {
        setWindow(*w);
        emit historyChanged();
    }
}

void TimelineWidget::showInterval(const PickedInterval& picked)
{
    const model::Interval& e = picked.interval;
    const model::TimeNs duration = std::max<model::TimeNs>(e.durationNs(), 100);
    const bool fits = e.startNs >= m_window.startNs && e.endNs <= m_window.endNs
                      && duration * frame().pxPerNs() >= 3;
    const model::TimeNs width = fits ? m_window.durationNs() : duration * 10;
    const model::TimeNs centre = e.startNs + duration / 2;
    navigateTo({centre - width / 2, centre - width / 2 + width});
    // Scroll the row into view.
    if (const TimelineRow* row = m_renderer.layout().rowOf(picked.track)) {
        const int plotHeight = height() - frame().rulerHeightPx;
        if (row->topPx < m_scrollPx || row->topPx + row->heightPx > m_scrollPx + plotHeight) {
            m_scrollPx = row->topPx - plotHeight / 3;
            clampScroll();
            requestData();
        }
    }
    m_highlights.selection = picked;
    emit selectionChanged(picked);
    update();
}

void TimelineWidget::setSelectedRange(std::optional<model::TimeRange> range)
{
    m_highlights.range = range;
    emit rangeSelected(range);
    update();
}

void TimelineWidget::zoomToSelectedRange()
{
    if (m_highlights.range && m_highlights.range->durationNs() > 0)
        navigateTo(*m_highlights.range);
}

void TimelineWidget::clearSelection()
{
    m_highlights.selection.reset();
    setSelectedRange(std::nullopt);
    emit selectionChanged(std::nullopt);
}

void TimelineWidget::setSearchMatches(std::unordered_set<model::StringId> names)
{
    m_highlights.matches = std::move(names);
    update();
}

void TimelineWidget::relayout(const LayoutOptions& options)
{
    m_renderer.setLayoutOptions(options);
    clampScroll();
    requestData();
    emit layoutChanged();
    update();
}

void TimelineWidget::setTrackFilter(const QString& filter)
{
    LayoutOptions options = m_renderer.layoutOptions();
    options.filter = filter.toStdString();
    options.filterIsRegex = false;
    relayout(options);
}

void TimelineWidget::showOnlyTracks(const std::vector<model::TrackId>& tracks)
{
    LayoutOptions options = m_renderer.layoutOptions();
    options.filter = exactTracksPattern(m_store.resources(), tracks);
    options.filterIsRegex = !options.filter.empty();
    relayout(options);
}

void TimelineWidget::setLaneHeight(int px)
{
    LayoutOptions options = m_renderer.layoutOptions();
    options.laneHeightPx = std::clamp(px, 4, 64);
    relayout(options);
}

void TimelineWidget::setKernelMetric(std::shared_ptr<const KernelMetricColors> metric)
{
    const ColorBy mode = metric ? ColorBy::KernelMetric : ColorBy::Name;
    m_renderer.palette().setKernelMetric(std::move(metric));
    setColorBy(mode);
}

void TimelineWidget::setColorBy(ColorBy mode)
{
    m_renderer.palette().setMode(mode);
    emit layoutChanged();
    update();
}

void TimelineWidget::toggleCollapsed(model::TrackId group)
{
    LayoutOptions options = m_renderer.layoutOptions();
    if (!options.collapsed.erase(group))
        options.collapsed.insert(group);
    relayout(options);
}

void TimelineWidget::setFlowsVisible(bool visible)
{
    m_highlights.flows = visible;
    update();
}

void TimelineWidget::clampScroll()
{
    m_scrollPx = std::clamp(m_scrollPx, 0, std::max(0, m_renderer.layout().heightPx - height() / 2));
}

void TimelineWidget::paintEvent(QPaintEvent*)
{
    requestData();
    QPainter painter(this);
    const auto data = m_fetcher.latest();
    m_renderer.paint(painter, frame(), *data, m_highlights);
    emit framePainted(m_renderer.lastTimings().queryMs, m_renderer.lastTimings().paintMs);
}

void TimelineWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    requestData();
}

void TimelineWidget::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (event->modifiers() & Qt::ShiftModifier) {
        m_scrollPx -= static_cast<int>(steps * 40);
        clampScroll();
        requestData();
        update();
    } else if (event->modifiers() & Qt::ControlModifier) {
        setLaneHeight(laneHeight() + static_cast<int>(std::lround(steps * 2)));
    } else {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        if (now - m_lastWheelMs > kWheelGestureMs) {
            m_history.visit(m_window);
            emit historyChanged();
        }
        m_lastWheelMs = now;
        zoom(std::pow(0.8, steps), event->position().x() - frame().labelWidthPx);
    }
    event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    m_pressPos = event->position();
    m_lastX = event->position().x();
    m_moved = false;
    if (event->modifiers() & Qt::ControlModifier)
        m_drag = Drag::ZoomRange;
    else if (event->modifiers() & Qt::ShiftModifier)
        m_drag = Drag::SelectRange;
    else
        m_drag = Drag::Pan;
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event)
{
    const QPointF pos = event->position();
    const TimelineFrame f = frame();
    if (pos.x() >= f.labelWidthPx) {
        m_highlights.cursorNs = f.timeAt(pos.x());
        emit cursorMoved(*m_highlights.cursorNs);
    } else {
        m_highlights.cursorNs.reset();
    }
    if (m_drag == Drag::None) {
        showTooltip(pos);
        update();
        return;
    }
    if (!m_moved && std::abs(pos.x() - m_pressPos.x()) < kClickSlopPx && std::abs(pos.y() - m_pressPos.y()) < kClickSlopPx)
        return;
    if (!m_moved && m_drag == Drag::Pan)
        m_history.visit(m_window);
    m_moved = true;
    if (m_drag == Drag::Pan) {
        panPx(m_lastX - pos.x());
        m_lastX = pos.x();
    } else {
        const model::TimeNs a = f.timeAt(std::max<double>(m_pressPos.x(), f.labelWidthPx));
        const model::TimeNs b = f.timeAt(std::max<double>(pos.x(), f.labelWidthPx));
        m_highlights.range = model::TimeRange{std::min(a, b), std::max(a, b)};
        emit rangeSelected(m_highlights.range);
        update();
    }
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event)
{
    const Drag drag = std::exchange(m_drag, Drag::None);
    if (drag == Drag::None || event->button() != Qt::LeftButton)
        return;
    if (m_moved) {
        if (drag == Drag::Pan)
            emit historyChanged();
        if (drag == Drag::ZoomRange)
            zoomToSelectedRange();
        return;
    }
    // A click: toggle a group, or select what lies under the pointer.
    const TimelineFrame f = frame();
    const TimelineHit hit = pickAt(m_renderer.layout(), f, *m_fetcher.latest(), m_store.grid(), event->position().x(),
                                   event->position().y());
    if (hit.row && hit.row->group) {
        toggleCollapsed(hit.row->track);
        return;
    }
    m_highlights.selection = hit.interval;
    emit selectionChanged(hit.interval);
    update();
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent* event)
{
    const TimelineHit hit = pickAt(m_renderer.layout(), frame(), *m_fetcher.latest(), m_store.grid(),
                                   event->position().x(), event->position().y());
    if (!hit.interval)
        return;
    const model::Interval& e = hit.interval->interval;
    const model::TimeNs margin = std::max<model::TimeNs>(e.durationNs() / 10, 10);
    navigateTo({e.startNs - margin, e.endNs + margin});
    m_highlights.selection = hit.interval;
    emit selectionChanged(hit.interval);
}

void TimelineWidget::leaveEvent(QEvent*)
{
    m_highlights.cursorNs.reset();
    update();
}

void TimelineWidget::showTooltip(QPointF pos)
{
    const auto data = m_fetcher.latest();
    TimelineHit hit = pickAt(m_renderer.layout(), frame(), *data, m_store.grid(), pos.x(), pos.y());
    readPickedCell(hit, m_store, *data);
    QString text;
    if (hit.interval) {
        const model::Interval& e = hit.interval->interval;
        text = QStringLiteral("<b>%1</b><br>start %2<br>duration %3<br>%4")
                   .arg(QString::fromStdString(std::string(m_store.strings().text(e.name))).toHtmlEscaped(),
                        durationText(e.startNs), durationText(e.durationNs()),
                        QString::fromStdString(m_store.resources().path(hit.interval->track)).toHtmlEscaped());
    } else if (hit.cell) {
        text = QStringLiteral("<b>%1 events folded</b> (starting in this %2 bucket)")
                   .arg(hit.cell->count)
                   .arg(durationText(
                       m_store.grid().bucketNs(data->slice(hit.row->track)->intervalLevel)));
        for (const storage::Coverage& c : hit.cellEntries) {
            const std::string name = c.name == storage::kOtherNames ? std::string("other")
                                                                    : std::string(m_store.strings().text(c.name));
            text += QStringLiteral("<br>%1: %2").arg(QString::fromStdString(name).toHtmlEscaped(), durationText(c.coverageNs));
        }
    }
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(mapToGlobal(pos.toPoint()), text, this);
}

void TimelineWidget::keyPressEvent(QKeyEvent* event)
{
    const double centre = frame().plotWidthPx() / 2.0;
    if (event->modifiers() & Qt::AltModifier) {
        if (event->key() == Qt::Key_Left)
            return back();
        if (event->key() == Qt::Key_Right)
            return forward();
    }
    switch (event->key()) {
    case Qt::Key_W: zoom(0.8, centre); break;
    case Qt::Key_S: zoom(1.25, centre); break;
    case Qt::Key_A: panPx(-frame().plotWidthPx() / 10.0); break;
    case Qt::Key_D: panPx(frame().plotWidthPx() / 10.0); break;
    case Qt::Key_F:
    case Qt::Key_Home: fitAll(); break;
    case Qt::Key_Z: zoomToSelectedRange(); break;
    case Qt::Key_Escape: clearSelection(); break;
    default: QWidget::keyPressEvent(event);
    }
}

} // namespace strata::views
