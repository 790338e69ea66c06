#pragma once
// Times to pixel columns, for the folds of a frame that take hundreds of thousands of
// times in order (a counter row's samples over a wide window: ~10 to a column).

#include "model/time_units.h"

#include <algorithm>
#include <limits>

namespace strata::views {

/// floor(x) for |x| < 2^31, without the libm call (or the dozen-instruction inline
/// sequence) that x86-64 without SSE4.1 makes of std::floor: truncate, then step down
/// for a negative fraction.
inline int floorToInt(double x)
{
    const int i = static_cast<int>(x);
    return i - (x < i ? 1 : 0);
}

/// The pixel column of a time in a plot `width` columns wide whose left edge is
/// `startNs`, `label` pixels from the painter's origin:
/// floor((label + (t - startNs) * pxPerNs) - label), clamped to [-1, width] (-1: before
/// the plot, width: after it). The same number for the same time as that formula, but for
/// times taken in order: the last column's range of times is kept, so a time inside it
/// costs two compares instead of a multiply and a floor.
class PixelColumns
{
public:
    PixelColumns(model::TimeNs startNs, double pxPerNs, int width, double label = 0)
        : m_startNs(startNs)
        , m_pxPerNs(pxPerNs)
        , m_nsPerPx(1 / pxPerNs)
        , m_width(width)
        , m_label(label)
    {}

    [[gnu::always_inline]] int operator()(model::TimeNs t)
    {
        if (t >= m_fromNs && t <= m_untilNs)
            return m_column;
        return locate(t);
    }

    /// The formula itself, for any time.
    int columnOf(model::TimeNs t) const
    {
        const double x = m_label + static_cast<double>(t - m_startNs) * m_pxPerNs;
        return floorToInt(std::clamp(x - m_label, -1.0, static_cast<double>(m_width)));
    }

private:
    /// Finds t's column and a range of times around t inside it: [m_fromNs, m_untilNs].
    /// The range's ends are guessed a few ns inside the column's true edges and kept only
    /// if the formula agrees there; as the formula never decreases with t, every time
    /// between two times of one column is in that column too.
    [[gnu::noinline]] int locate(model::TimeNs t)
    {
        constexpr model::TimeNs kMin = std::numeric_limits<model::TimeNs>::min();
        constexpr model::TimeNs kMax = std::numeric_limits<model::TimeNs>::max();
        const int c = columnOf(t);
        m_column = c;
        m_fromNs = m_untilNs = t;
        const double startOffset = static_cast<double>(t - m_startNs);
        if (c <= -1) {
            m_fromNs = kMin;
        } else {
            const double from = c * m_nsPerPx + 2;  // ns after the start, a little inside
            if (from < startOffset) {
                const model::TimeNs guess = m_startNs + static_cast<model::TimeNs>(from);
                if (columnOf(guess) == c)
                    m_fromNs = guess;
            }
        }
        if (c >= m_width) {
            m_untilNs = kMax;
        } else {
            const double until = (c + 1) * m_nsPerPx - 2;
            if (until > startOffset) {
                const model::TimeNs guess = m_startNs + static_cast<model::TimeNs>(until);
                if (columnOf(guess) == c)
                    m_untilNs = guess;
            }
        }
        return c;
    }

    model::TimeNs m_startNs;
    double m_pxPerNs;
    double m_nsPerPx;
    int m_width;
    double m_label;
    int m_column = 0;
    model::TimeNs m_fromNs = 1;  ///< empty until the first time is located
    model::TimeNs m_untilNs = 0;
};

}  // namespace strata::views
