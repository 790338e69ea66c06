#include "views/plot_canvas.h"

#include <QPaintEngine>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace strata::views {

int wholePixelScale(QPainter& p)
{
    // The device transform holds the world transform, the window/viewport mapping and
    // the device's pixel ratio: it must be a whole uniform scale plus a translation.
    if (!p.paintEngine() || p.paintEngine()->type() != QPaintEngine::Raster)
        return 0;
    const QTransform t = p.deviceTransform();
    const double ratio = t.m11();
    if (t.type() > QTransform::TxScale || t.m22() != ratio || ratio < 1 || ratio > 4
        || ratio != std::floor(ratio))
        return 0;
    return static_cast<int>(ratio);
}

namespace {

/// The image the painter writes into, when the canvas may write the same pixels itself:
/// a 32-bit image (the PNG export's, or a widget's raster backing store) whose pixels
/// under `area` are inside the system clip and the painter's clip, painted opaquely.
QImage* writableTarget(QPainter& p, QRect area, QRect& inTarget)
{
    QPaintDevice* device = p.paintEngine()->paintDevice();
    if (!device || device->devType() != QInternal::Image || p.opacity() != 1.0
        || p.compositionMode() != QPainter::CompositionMode_SourceOver)
        return nullptr;
    auto* image = static_cast<QImage*>(device);
    if (image->format() != QImage::Format_RGB32
        && image->format() != QImage::Format_ARGB32_Premultiplied)
        return nullptr;  // opaque 0xffRRGGBB is the same word in both
    inTarget = p.deviceTransform().mapRect(area);
    const QRegion systemClip = p.paintEngine()->systemClip();
    if (!image->rect().contains(inTarget)
        || (!systemClip.isEmpty() && !QRegion(inTarget).subtracted(systemClip).isEmpty())
        || (p.hasClipping() && !QRegion(area).subtracted(p.clipRegion()).isEmpty()))
        return nullptr;
    return image;
}

}  // namespace

PlotCanvas::PlotCanvas(QPainter& painter, QRect area, QImage& buffer)
    : m_painter(painter)
    , m_area(area)
    , m_image(buffer)
    , m_scale(area.isEmpty() ? 0 : wholePixelScale(painter))
{
    if (!pixels()) {
        if (!area.isEmpty())
            m_painter.fillRect(area, Qt::white);
        return;
    }
    const QSize size = area.size() * m_scale;
    QRect inTarget;
    if (QImage* target = writableTarget(painter, area, inTarget)) {
        // Straight into the painter's image: the blit of our own image was a third of a
        // frame's paint. The painter already detached the image when it began.
        m_bits = reinterpret_cast<QRgb*>(const_cast<uchar*>(target->constBits()));
        m_stride = target->bytesPerLine() / static_cast<qsizetype>(sizeof(QRgb));
        m_bits += inTarget.top() * m_stride + inTarget.left();
        m_drawn = true;
    } else {
        if (m_image.width() < size.width() || m_image.height() < size.height())
            m_image = QImage(std::max(m_image.width(), size.width()),
                std::max(m_image.height(), size.height()), QImage::Format_RGB32);
        m_image.setDevicePixelRatio(m_scale);
        m_bits = reinterpret_cast<QRgb*>(m_image.bits());
        m_stride = m_image.bytesPerLine() / static_cast<qsizetype>(sizeof(QRgb));
    }
    m_cleared.assign(static_cast<std::size_t>(size.height()), 0);
}

PlotCanvas::~PlotCanvas()
{
    draw();
}

namespace {

void whiten(QRgb* line, int width)
{
    static_assert(qRgb(255, 255, 255) == 0xffffffffu, "white is all bits set: memset paints it");
    std::memset(line, 0xff, static_cast<std::size_t>(width) * sizeof(QRgb));
}

}  // namespace

void PlotCanvas::draw()
{
    if (!pixels())
        return;
    const int width = m_area.width() * m_scale;
    for (std::size_t y = 0; y < m_cleared.size(); ++y) {
        if (!m_cleared[y])
            whiten(m_bits + static_cast<qsizetype>(y) * m_stride, width);
    }
    m_cleared.assign(m_cleared.size(), 1);  // drawn once: a second draw() changes nothing
    if (!m_drawn)
        m_painter.drawImage(
            m_area.topLeft(), m_image, QRect(QPoint(0, 0), m_area.size() * m_scale));
    m_drawn = true;
}

void PlotCanvas::Clipped::clear() const
{
    take(true);
}

void PlotCanvas::Clipped::claim() const
{
    take(false);
}

void PlotCanvas::Clipped::take(bool whitenIt) const
{
    const PlotCanvas& c = *m_canvas;
    if (!c.pixels() || m_clip.isEmpty())
        return;  // the painter's area was filled white when the canvas began
    const int scale = c.m_scale;
    const int x0 = (m_clip.left() - c.m_area.left()) * scale;
    const int width = m_clip.width() * scale;
    const bool wholeLines = x0 == 0 && width == c.m_area.width() * scale;
    whitenIt = whitenIt || !wholeLines;  // draw() whitens only whole lines left untaken
    for (int y = (m_clip.top() - c.m_area.top()) * scale, end = y + m_clip.height() * scale;
         y < end; ++y) {
        if (whitenIt)
            whiten(c.m_bits + y * c.m_stride + x0, width);
        if (wholeLines)
            c.m_cleared[static_cast<std::size_t>(y)] = 1;
    }
}

void PlotCanvas::Clipped::multiply(QPoint at, const QImage& mask, QRect clip) const
{
    const PlotCanvas& c = *m_canvas;
    if (!c.pixels() || mask.format() != QImage::Format_RGB32)
        return;
    const int scale = c.m_scale;
    const QRect within = clip.intersected(m_clip).translated(-c.m_area.topLeft());
    const QPoint origin = (at - c.m_area.topLeft()) * scale;  // the mask's, in canvas pixels
    const int x0 = std::max(within.left() * scale, origin.x());
    const int x1 = std::min((within.left() + within.width()) * scale, origin.x() + mask.width());
    const int y0 = std::max(within.top() * scale, origin.y());
    const int y1 = std::min((within.top() + within.height()) * scale, origin.y() + mask.height());
    // d * k / 255 rounded, for d, k in 0..255.
    auto times = [](QRgb d, QRgb k, int shift) {
        const unsigned v = ((d >> shift) & 0xff) * ((k >> shift) & 0xff) + 128;
        return ((v + (v >> 8)) >> 8) << shift;
    };
    for (int y = y0; y < y1; ++y) {
        const auto* k =
            reinterpret_cast<const QRgb*>(mask.constScanLine(y - origin.y())) + (x0 - origin.x());
        QRgb* d = c.m_bits + y * c.m_stride + x0;
        int x = 0;
#if defined(__SSE2__)
        // Four pixels at a time, the same rounding: (v + (v >> 8)) >> 8 with v = d * k + 128
        // is d * k / 255 rounded for bytes.
        const __m128i zero = _mm_setzero_si128();
        const __m128i half = _mm_set1_epi16(128);
        const __m128i white = _mm_set1_epi32(-1);
        auto times4 = [&](__m128i a, __m128i b) {  // 16-bit lanes
            const __m128i v = _mm_add_epi16(_mm_mullo_epi16(a, b), half);
            return _mm_srli_epi16(_mm_add_epi16(v, _mm_srli_epi16(v, 8)), 8);
        };
        for (; x + 4 <= x1 - x0; x += 4) {
            const __m128i k4 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(k + x));
            if (_mm_movemask_epi8(_mm_cmpeq_epi32(k4, white)) == 0xffff)
                continue;  // no ink
            const __m128i d4 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + x));
            const __m128i low = times4(_mm_unpacklo_epi8(d4, zero), _mm_unpacklo_epi8(k4, zero));
            const __m128i high = times4(_mm_unpackhi_epi8(d4, zero), _mm_unpackhi_epi8(k4, zero));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(d + x), _mm_packus_epi16(low, high));
        }
#endif
        for (; x < x1 - x0; ++x) {
            if (k[x] == 0xffffffffu)
                continue;  // no ink: most of a name's pixels
            d[x] =
                0xff000000u | times(d[x], k[x], 16) | times(d[x], k[x], 8) | times(d[x], k[x], 0);
        }
    }
}

void PlotCanvas::Clipped::fillOther(QRect box, QRgb color) const
{
    box = box.normalized();  // as QPainter takes it
    if (m_canvas->pixels()) {
        if (box.width() > 0 && box.height() > 0)
            fill(box, color);
        return;
    }
    box = box.intersected(m_clip);
    if (!box.isEmpty())
        m_canvas->m_painter.fillRect(box, QColor::fromRgb(color));
}

}  // namespace strata::views
