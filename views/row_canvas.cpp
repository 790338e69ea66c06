#include "views/row_canvas.h"

#include <QPaintEngine>

#include <algorithm>

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
    for (int y = 0; y < area.height(); ++y)
        std::fill_n(m_bits + y * m_stride, area.width(), qRgb(255, 255, 255));
}

RowCanvas::~RowCanvas()
{
    if (m_pixels)
        m_painter.drawImage(m_area.topLeft(), m_image, QRect(QPoint(0, 0), m_area.size()));
}

void RowCanvas::fill(QRect box, QRgb color)
{
    box = box.intersected(m_area);
    if (box.isEmpty())
        return;
    if (!m_pixels) {
        m_painter.fillRect(box, QColor::fromRgb(color));
        return;
    }
    const int x0 = box.left() - m_area.left();
    const int x1 = x0 + box.width();
    for (int y = box.top() - m_area.top(); y <= box.bottom() - m_area.top(); ++y)
        std::fill(m_bits + y * m_stride + x0, m_bits + y * m_stride + x1, color);
}

}  // namespace strata::views
