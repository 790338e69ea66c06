#pragma once
// What one counter chart draws for a window, from the store's answer for its track:
// a min/max envelope and a time-weighted mean line, one point per summary bucket (or
// per exact sample), so a million samples cost what the window's pixels cost.
//
// Points sit at the start of their bucket (or at the sample's time) and the values
// hold until the next point: a value carried across buckets without samples is drawn
// flat (a point at the end of the last bucket repeats its `last`), never interpolated.

#include "model/lod_grid.h"
#include "storage/store/store_reader.h"

#include <QPointF>
#include <QList>

namespace strata::views {

struct CounterSeries
{
    QList<QPointF> minPoints;  ///< lower edge of the envelope
    QList<QPointF> maxPoints;  ///< upper edge
    QList<QPointF> meanPoints;
    double minValue = 0, maxValue = 0;  ///< y range over the window (0,0 when empty)
    bool exact = false;  ///< drawn from samples (counter level 0), not from cells

    bool empty() const { return meanPoints.isEmpty(); }
};

/// The chart points of `slice` (a counter track's answer) in `window`. x is in store ns.
/// The last value holds to the window's end or the track's last sample (`trackEndNs`),
/// whichever comes first.
CounterSeries counterSeries(const storage::TrackSlice& slice, const model::LodGrid& grid,
                            model::TimeRange window, model::TimeNs trackEndNs);

} // namespace strata::views
