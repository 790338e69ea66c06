#include "views/row_canvas.h"

#include <QPaintEngine>

#include <algorithm>
#include <cstring>

namespace strata::views {

namespace {

/// True when the painter maps its coordinates 1:1 onto a raster image: a blit of our own
/// image then lands exactly where the boxes would.
bool paintsPixels1to1(QPainter& p)
{
    return p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster
        && p.deviceTransform().type() <= QTransform::TxTranslate && p.device()
        && p.device()->devicePixelRatio() == 1.0;
}

}  // namespace

RowCanvas::RowCanvas(QPainter& painter, QRect area, QImage& buffer)
    : m_painter(painter)
    , m_area(area)
    , m_image(buffer)
    , m_pixels(!area.isEmpty() && paintsPixels1to1(painter))
{
    if (!m_pixels)
        return;
    if (m_image.width() < area.width() || m_image.height() < area.height())
        m_image = QImage(std::max(m_image.width(), area.width()),
            std::max(m_image.height(), area.height()), QImage::Format_RGB32);
    m_bits = reinterpret_cast<QRgb*>(m_image.bits());
    m_stride = m_image.bytesPerLine() / static_cast<qsizetype>(sizeof(QRgb));
    static_assert(qRgb(255, 255, 255) == 0xffffffffu, "white is all bits set: memset paints it");
    for (int y = 0; y < area.height(); ++y)
        std::memset(m_bits + y * m_stride, 0xff, static_cast<std::size_t>(area.width()) * sizeof(QRgb));
}

RowCanvas::~RowCanvas()
{
    if (m_pixels)
        m_painter.drawImage(m_area.topLeft(), m_image, QRect(QPoint(0, 0), m_area.size()));
}

void RowCanvas::fill(QRect box, QRgb color)
{
    if (!m_pixels) {
        box = box.intersected(m_area);
        if (!box.isEmpty())
            m_painter.fillRect(box, QColor::fromRgb(color));
        return;
    }
    // ~10^5 calls a frame, most one pixel wide: clip by hand, write without a library call.
    const int x0 = std::max(box.left(), m_area.left()) - m_area.left();
    const int x1 = std::min(box.left() + box.width(), m_area.left() + m_area.width()) - m_area.left();
    const int y0 = std::max(box.top(), m_area.top()) - m_area.top();
    const int y1 = std::min(box.top() + box.height(), m_area.top() + m_area.height()) - m_area.top();
    if (x0 >= x1 || y0 >= y1)
        return;
    QRgb* line = m_bits + y0 * m_stride + x0;
    if (x1 - x0 == 1) {
        for (int y = y0; y < y1; ++y, line += m_stride)
            *line = color;
        return;
    }
    for (int y = y0; y < y1; ++y, line += m_stride)
        std::fill(line, line + (x1 - x0), color);
}

}  // namespace strata::views
