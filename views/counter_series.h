#pragma once
// What a counter shows in a window, from the store's answer for its track. Both the
// counter charts and the timeline's counter rows draw from heldCounter(), so they agree
// on what the counter holds in any window, one with samples or without:
//
//   - a value holds from its sample until the next sample; a summary cell's min..max
//     covers its bucket, and its last value holds across buckets without samples;
//   - the last value holds to the window's end or the track's last sample, whichever
//     comes first; before the track's first sample and after its last there is nothing.
//
// counterSeries() turns the steps into chart points: a min/max envelope and a
// time-weighted mean line, one point per summary bucket (or two per exact sample, a flat
// step), so a million samples cost what the window's pixels cost. Held values are drawn
// flat, never interpolated.

#include "model/lod_grid.h"
#include "storage/store/store_reader.h"

#include <QList>
#include <QPointF>

#include <algorithm>
#include <cmath>
#include <vector>

namespace strata::views {

/// One stretch of a counter's step function: over [startNs, endNs) (a single instant
/// when they are equal) its value lies in [min, max].
struct CounterStep
{
    model::TimeNs startNs = 0, endNs = 0;
    double min = 0, max = 0, mean = 0;
    bool held =
        true;  ///< one value over the stretch (a sample, a value carried on), not a cell's spread

    /// Drawn in `window`: it shares time with it and has a finite value (an infinite
    /// sample has no height to draw).
    bool showsIn(model::TimeRange window) const
    {
        return startNs < window.endNs
            && (endNs > window.startNs || (endNs == startNs && startNs >= window.startNs))
            && std::isfinite(min) && std::isfinite(max);
    }
};

/// A counter's steps for a window and the range of the values it holds in it.
struct HeldCounter
{
    /// Every step of the answer, also the one before the window whose value holds into it.
    std::vector<CounterStep> steps;
    double minValue = 0, maxValue = 0;  ///< over the steps shown in the window
    bool shown =
        false;  ///< a finite value in the window (false before the first sample or after the last)
};

/// Calls `step(const CounterStep&)` for each step of `slice` (a counter track's answer),
/// in time order, without storing them: the timeline's counter rows take a wide window's
/// hundreds of thousands of samples this way. The last value holds until `holdUntilNs`.
template<typename Step>
void forEachCounterStep(const storage::TrackSlice& slice, const model::LodGrid& grid,
    model::TimeNs holdUntilNs, Step&& step)
{
    if (slice.counterLevel == 0) {
        const auto& s = slice.samples;
        for (std::size_t i = 0; i < s.size(); ++i) {
            const model::TimeNs until =
                i + 1 < s.size() ? s[i + 1].timeNs : std::max(s[i].timeNs, holdUntilNs);
            step(CounterStep { s[i].timeNs, until, s[i].value, s[i].value, s[i].value, true });
        }
        return;
    }
    const model::TimeNs w = grid.bucketNs(slice.counterLevel);
    const auto& c = slice.counterCells;
    for (std::size_t i = 0; i < c.size(); ++i) {
        const model::TimeNs start = c[i].bucket * w;
        const model::TimeNs end = start + w;
        step(CounterStep { start, end, c[i].min, c[i].max, c[i].mean, false });
        // Buckets without samples, up to the next cell or the hold's end, carry the
        // cell's last value.
        const model::TimeNs gapEnd = i + 1 < c.size() ? c[i + 1].bucket * w : holdUntilNs;
        if (gapEnd > end)
            step(CounterStep { end, gapEnd, c[i].last, c[i].last, c[i].last, true });
    }
}

/// Where a counter's last value stops holding in `window`: its end, or the track's last
/// sample `trackEndNs` when that comes first.
inline model::TimeNs counterHoldEnd(model::TimeRange window, model::TimeNs trackEndNs)
{
    return std::min(window.endNs, trackEndNs);
}

/// The steps of `slice` (a counter track's answer) in `window`; `trackEndNs` is the
/// track's last sample, where the last value stops holding.
HeldCounter heldCounter(const storage::TrackSlice& slice, const model::LodGrid& grid,
    model::TimeRange window, model::TimeNs trackEndNs);

struct CounterSeries
{
    QList<QPointF> minPoints;  ///< lower edge of the envelope
    QList<QPointF> maxPoints;  ///< upper edge
    QList<QPointF> meanPoints;
    double minValue = 0, maxValue = 0;  ///< y range over the window (0,0 when empty)
    bool exact = false;  ///< drawn from samples (counter level 0), not from cells

    /// Nothing held in the window (the chart shows no value range).
    bool empty() const { return meanPoints.isEmpty(); }
};

/// The chart points of `slice` in `window` (x in store ns), from heldCounter().
CounterSeries counterSeries(const storage::TrackSlice& slice, const model::LodGrid& grid,
    model::TimeRange window, model::TimeNs trackEndNs);

}  // namespace strata::views
