#pragma once
// Names in the timeline's boxes as pixels kept from frame to frame.
//
// QPainter draws text glyph by glyph, each blended through gamma tables: a name of ~20
// characters cost ~70 k instructions, and the names were half of a narrow frame's paint
// (a 275 ms window of the 100 M run: 13.5 of 29 M instructions for 192 names). A name
// looks the same in every frame at the same font and lane height, so it is drawn once,
// black on white, and its pixels are multiplied onto the canvas (PlotCanvas::Clipped::
// multiply): over white that is QPainter's own picture, and black text blended by a
// power-law gamma is the background scaled by the same factor whatever its colour.

#include <QFont>
#include <QHash>
#include <QImage>
#include <QString>

namespace strata::views {

class TextMasks
{
public:
    /// How the names of a frame are drawn: the painter's font and resolution, the box
    /// height and where the text's top lies in it (painter units).
    struct Style
    {
        QFont font;
        QString fontKey;  ///< font.key(), taken once: it is costly
        int boxHeightPx = 0;
        double textTop = 0;
        int scale = 1;  ///< device pixels a painter unit
        int dpiX = 96, dpiY = 96;
        bool operator==(const Style& o) const
        {
            return fontKey == o.fontKey && boxHeightPx == o.boxHeightPx && textTop == o.textTop
                && scale == o.scale && dpiX == o.dpiX && dpiY == o.dpiY;
        }
    };

    /// Starts a frame: the masks kept are dropped when the style changed.
    void begin(const Style& style);
    /// `text` drawn by QPainter in black at (0, textTop) on a white image boxHeightPx high
    /// (at the style's scale, so its size is in device pixels), as wide as the text.
    const QImage& mask(const QString& text);

private:
    Style m_style;
    QHash<QString, QImage> m_masks;
};

}  // namespace strata::views
