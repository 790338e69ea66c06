#pragma once
// The dense part of a timeline row (summary columns, sub-pixel intervals, counter
// envelopes) drawn as pixels.
//
// A whole-run frame of a large store fills ~10^5 boxes one pixel wide; through QPainter
// each is a call, a clip and one span per pixel row, and that, not the pixels, was most
// of the frame. On a raster device painted 1:1 (the widget, PNG export) RowCanvas writes
// the boxes straight into an opaque image of the row and blits it once; on a HiDPI screen
// (a whole device-pixel ratio) the image has the device's resolution. Elsewhere (SVG, a
// zoomed or fractionally scaled painter) it passes each box to the painter, so vectors
// stay vectors.

#include <QImage>
#include <QPainter>

namespace strata::views {

class RowCanvas
{
public:
    /// Starts a row covering `area` (painter coordinates), white where nothing is filled.
    /// The painter's state (transform, clip) must not change until the canvas is drawn.
    /// `buffer` is reused across rows and frames.
    RowCanvas(QPainter& painter, QRect area, QImage& buffer);
    RowCanvas(const RowCanvas&) = delete;
    RowCanvas& operator=(const RowCanvas&) = delete;
    /// Draws the row (once).
    ~RowCanvas();

    /// Fills `box` (painter coordinates, clipped to the row) with an opaque colour.
    void fill(QRect box, QRgb color);
    bool pixels() const { return m_scale > 0; }

private:
    QPainter& m_painter;
    QRect m_area;
    QImage& m_image;
    int m_scale = 0;  ///< device pixels per painter unit; 0: boxes go to the painter
    QRgb* m_bits = nullptr;
    qsizetype m_stride = 0;  ///< pixels per image line
};

}  // namespace strata::views
