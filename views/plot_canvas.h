#pragma once
// The dense part of a timeline frame (summary columns, sub-pixel intervals, instants,
// counter envelopes, row bands and separators) drawn as pixels.
//
// A whole-run frame of a large store fills ~10^5 boxes one pixel wide; through QPainter
// each is a call, a clip and one span per pixel row, and that, not the pixels, was most
// of the frame. On a raster device painted 1:1 (the widget, PNG export) PlotCanvas writes
// the boxes straight into an opaque image of the plot and blits it once a frame; on a
// HiDPI screen (a whole device-pixel ratio) the image has the device's resolution.
// Elsewhere (SVG, a zoomed or fractionally scaled painter) it passes each box to the
// painter, so vectors stay vectors.
//
// One canvas for the whole plot, not one per row: a row's canvas cleared and blitted its
// own pixels, so each frame wrote the plot three times (the frame's white, the row's
// white, the blit) and made ~30 blits; now it is cleared once and blitted once. The
// clearing is the rows' own (Clipped::clear): a whole 1920x1080 plot cleared up front was
// a fifth of a busy frame's paint on the painter's thread, and the rows share it between
// the cores and paint into lines still in the cache; draw() whitens the lines no row took.

#include <QImage>
#include <QPainter>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <vector>

namespace strata::views {

class PlotCanvas
{
public:
    /// Starts a canvas covering `area` (painter coordinates), white where nothing is
    /// filled: fill within a view only after clearing it (Clipped::clear), or draw() may
    /// whiten the lines. The painter's state (transform, clip) must not change until the
    /// canvas is drawn. `buffer` is reused across frames.
    PlotCanvas(QPainter& painter, QRect area, QImage& buffer);
    PlotCanvas(const PlotCanvas&) = delete;
    PlotCanvas& operator=(const PlotCanvas&) = delete;
    /// Draws the canvas if draw() has not.
    ~PlotCanvas();

    /// The canvas limited to a clip, e.g. a row: what the rows are painted through.
    class Clipped
    {
    public:
        /// Fills `box` (painter coordinates, clipped) with an opaque colour.
        [[gnu::always_inline]] void fill(QRect box, QRgb color) const
        {
            // ~10^5 calls a frame, most one pixel wide: inline, clipped by hand, written
            // without a library call. Empty or flipped boxes and the painter's path go
            // out of line.
            const PlotCanvas& c = *m_canvas;
            if (c.m_scale == 0 || box.width() <= 0 || box.height() <= 0) {
                fillOther(box, color);
                return;
            }
            const int scale = c.m_scale;
            const QRect area = c.m_area;
            const int x0 = (std::max(box.left(), m_clip.left()) - area.left()) * scale;
            const int x1 =
                (std::min(box.left() + box.width(), m_clip.left() + m_clip.width()) - area.left())
                * scale;
            const int y0 = (std::max(box.top(), m_clip.top()) - area.top()) * scale;
            const int y1 =
                (std::min(box.top() + box.height(), m_clip.top() + m_clip.height()) - area.top())
                * scale;
            if (x0 >= x1 || y0 >= y1)
                return;
            const qsizetype stride = c.m_stride;
            QRgb* line = c.m_bits + y0 * stride + x0;
            if (x1 - x0 == 1) {
                for (int y = y0; y < y1; ++y, line += stride)
                    *line = color;
                return;
            }
#if defined(__SSE2__)
            // Four pixels a store (the cells' runs and wide boxes): the loop std::fill
            // makes writes one.
            const __m128i four = _mm_set1_epi32(static_cast<int>(color));
            for (int y = y0; y < y1; ++y, line += stride) {
                int x = 0;
                for (; x + 4 <= x1 - x0; x += 4)
                    _mm_storeu_si128(reinterpret_cast<__m128i*>(line + x), four);
                for (; x < x1 - x0; ++x)
                    line[x] = color;
            }
#else
            for (int y = y0; y < y1; ++y, line += stride)
                std::fill(line, line + (x1 - x0), color);
#endif
        }
        /// Makes the clip white: first thing, before any fill in it.
        void clear() const;
        /// Instead of clear(), for a caller that fills every pixel of the clip itself:
        /// nothing is whitened first, and draw() leaves the clip's lines alone.
        void claim() const;
        /// The canvas writes pixels (PlotCanvas::pixels).
        bool pixels() const
        {
            return m_canvas->pixels();
        }
        /// This view limited further to `clip` (painter coordinates).
        Clipped clipped(QRect clip) const
        {
            return { *m_canvas, clip.normalized().intersected(m_clip) };
        }
        /// Multiplies the pixels under `mask` (an RGB32 image at the canvas's scale, its
        /// top-left at `at` in painter coordinates), channel by channel, within `clip`:
        /// black text drawn on white (TextMasks) over what is there. Pixel canvases only.
        void multiply(QPoint at, const QImage& mask, QRect clip) const;

    private:
        friend class PlotCanvas;
        void fillOther(QRect box, QRgb color) const;
        void take(bool whiten) const;  ///< clear() or claim()
        Clipped(const PlotCanvas& canvas, QRect clip)
            : m_canvas(&canvas)
            , m_clip(clip)
        {}
        const PlotCanvas* m_canvas;
        QRect m_clip;  ///< within the canvas's area
    };
    /// The canvas limited to `clip` (painter coordinates). When the canvas writes pixels,
    /// views of disjoint clips may fill from different threads at once; otherwise their
    /// boxes go to the painter, from the painter's thread only.
    Clipped clipped(QRect clip) const { return { *this, clip.normalized().intersected(m_area) }; }
    /// Puts the pixels on the painter (once), the lines no view cleared made white first;
    /// what is painted afterwards goes over them.
    void draw();
    bool pixels() const { return m_scale > 0; }
    /// Device pixels per painter unit (0: the canvas passes boxes to the painter).
    int scale() const
    {
        return m_scale;
    }

private:
    QPainter& m_painter;
    QRect m_area;
    QImage& m_image;
    int m_scale = 0;  ///< device pixels per painter unit; 0: boxes go to the painter
    bool m_drawn = false;
    QRgb* m_bits = nullptr;
    qsizetype m_stride = 0;  ///< pixels per image line
    /// Per image line: whitened by a view's clear(). One byte each: views of disjoint
    /// lines clear from different threads.
    mutable std::vector<char> m_cleared;
};

/// Device pixels per painter unit when the painter maps its coordinates onto a raster
/// image by a whole-number scale and a translation (1, or 2 on a HiDPI screen): a blit of
/// an image of that resolution then lands exactly where the painter's own drawing would.
/// 0 otherwise.
int wholePixelScale(QPainter& painter);

}  // namespace strata::views
