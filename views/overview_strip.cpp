#include "views/overview_strip.h"

#include <QMouseEvent>
#include <algorithm>
#include <QPainter>

namespace strata::views {

namespace {

constexpr int kBandPx = 3;

} // namespace

OverviewStrip::OverviewStrip(storage::StoreReader& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_renderer(store)
    , m_fetcher(store)
    // Everything stored, a counter log around the trace included: the strip is the map
    // to reach what the first view (fittedWindow, the activity) leaves out.
    , m_run(withMargin(store.span()))
    , m_window(m_run)
{
    LayoutOptions options;
    options.laneHeightPx = kBandPx;
    options.groupHeaders = false;
    options.maxLanes = 1;
    m_renderer.setLayoutOptions(options);
    setMinimumHeight(32);
    setCursor(Qt::PointingHandCursor);
    connect(&m_fetcher, &TimelineFetcher::ready, this, qOverload<>(&QWidget::update));
}

namespace {

constexpr int kCoarserBy = 4;

}  // namespace

TimelineFrame OverviewStrip::contentFrame() const
{
    TimelineFrame f;
    f.window = m_run;
    f.widthPx = std::max(1, width());
    f.heightPx = std::max(1, m_renderer.layout().heightPx);
    f.labelWidthPx = 0;
    f.rulerHeightPx = 0;
    return f;
}

void OverviewStrip::requestData()
{
    // Every track of the run in a strip a pixel or two per row, queried at a quarter of
    // the strip's width (one level coarser: cells still fill each column). On a 100M-event
    // store the full-width query of every track was most of the GUI's memory: the whole
    // window peaked at 309 MB with it, 177 MB with this. Its rows have one lane: what lies
    // deeper is not drawn, so not fetched either (on the 1 B run, most of the cells).
    const TimelineFrame f = contentFrame();
    m_fetcher.request({ visibleTracks(m_renderer.layout(), f), f.window,
        std::max(16, f.plotWidthPx() / kCoarserBy), m_renderer.layoutOptions().maxLanes,
        storage::CellDetail::Drawn });
}

void OverviewStrip::setWindow(model::TimeRange window)
{
    m_window = window;
    update();
}

QImage foldRows(const QImage& content, int height)
{
    height = std::max(1, height);
    if (content.height() <= height)
        return content.scaled(content.width(), height, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    const QImage source = content.convertToFormat(QImage::Format_RGB32);
    QImage out(source.width(), height, QImage::Format_RGB32);
    const int rows = source.height();
    for (int y = 0; y < height; ++y) {
        const int first = static_cast<int>(static_cast<long long>(y) * rows / height);
        const int last = std::max(first + 1, static_cast<int>(static_cast<long long>(y + 1) * rows / height));
        auto* target = reinterpret_cast<QRgb*>(out.scanLine(y));
        std::copy_n(reinterpret_cast<const QRgb*>(source.constScanLine(first)), source.width(), target);
        for (int r = first + 1; r < last; ++r) {
            const auto* row = reinterpret_cast<const QRgb*>(source.constScanLine(r));
            for (int x = 0; x < source.width(); ++x) {
                if (qGray(row[x]) < qGray(target[x]))
                    target[x] = row[x];
            }
        }
    }
    return out;
}

void OverviewStrip::paintEvent(QPaintEvent*)
{
    requestData();
    const TimelineFrame f = contentFrame();
    const std::shared_ptr<const TimelineData> latest = m_fetcher.latest();
    if (latest != m_pictureOf || m_picture.size() != size()) {
        QImage content(f.widthPx, f.heightPx, QImage::Format_RGB32);
        {
            QPainter p(&content);
            m_renderer.paint(p, f, *latest);
        }
        m_picture = foldRows(content, height());
        m_pictureOf = latest;
    }
    QPainter p(this);
    p.drawImage(0, 0, m_picture);
    // The timeline's window: a frame over the strip, the rest dimmed.
    const double x0 = f.xOf(m_window.startNs);
    const double x1 = std::max(x0 + 2, f.xOf(m_window.endNs));
    const QColor dim(0, 0, 0, 60);
    p.fillRect(QRectF(0, 0, std::max(0.0, x0), height()), dim);
    p.fillRect(QRectF(x1, 0, std::max(0.0, width() - x1), height()), dim);
    p.setPen(QPen(QColor(0x20, 0x50, 0xb0), 2));
    p.drawRect(QRectF(x0, 1, x1 - x0, height() - 2));
}

QImage OverviewStrip::grabStrip()
{
    requestData();
    m_fetcher.waitUntilIdle();
    return grab().toImage();
}

void OverviewStrip::moveTo(double x)
{
    const model::TimeNs centre = contentFrame().timeAt(x);
    const model::TimeNs width = m_window.durationNs();
    emit windowRequested({centre - width / 2, centre - width / 2 + width});
}

void OverviewStrip::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton)
        moveTo(event->position().x());
}

void OverviewStrip::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton)
        moveTo(event->position().x());
}

} // namespace strata::views
