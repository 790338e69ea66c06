#include "views/text_masks.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStaticText>

#include <cmath>

namespace strata::views {

namespace {

/// Names kept at most: a frame shows a few hundred, and panning and zooming bring new
/// ones (a name cut to a box is another text). A mask of ~200 x 13 pixels is ~10 KB (four
/// times that on a HiDPI screen), so the masks stay within ~10 MB (40 MB).
constexpr qsizetype kMaxMasks = 1024;

}  // namespace

void TextMasks::begin(const Style& style)
{
    if (!(style == m_style) || m_masks.size() > kMaxMasks) {
        m_masks.clear();
        m_style = style;
    }
}

const QImage& TextMasks::mask(const QString& text)
{
    auto it = m_masks.find(text);
    if (it != m_masks.end())
        return *it;
    const Style& s = m_style;
    QImage image(1, 1, QImage::Format_RGB32);
    // The device's resolution, so that the font has the size it has on the device.
    image.setDotsPerMeterX(static_cast<int>(std::lround(s.dpiX / 0.0254)));
    image.setDotsPerMeterY(static_cast<int>(std::lround(s.dpiY / 0.0254)));
    // As wide as the text, and a pixel for a glyph that overhangs its advance.
    const int width =
        static_cast<int>(std::ceil(QFontMetricsF(s.font, &image).horizontalAdvance(text))) + 2;
    QImage drawn(QSize(width, s.boxHeightPx) * s.scale, QImage::Format_RGB32);
    drawn.setDotsPerMeterX(image.dotsPerMeterX());
    drawn.setDotsPerMeterY(image.dotsPerMeterY());
    drawn.setDevicePixelRatio(s.scale);
    drawn.fill(Qt::white);
    {
        QPainter p(&drawn);
        p.setFont(s.font);
        p.setPen(Qt::black);
        // As TimelineRenderer::drawLine lays text out and places it.
        QStaticText laid(text);
        laid.setTextFormat(Qt::PlainText);
        p.drawStaticText(QPointF(0, s.textTop), laid);
    }
    return *m_masks.insert(text, std::move(drawn));
}

}  // namespace strata::views
