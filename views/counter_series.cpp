#include "views/counter_series.h"

#include <algorithm>
#include <limits>

namespace strata::views {

HeldCounter heldCounter(const storage::TrackSlice& slice, const model::LodGrid& grid,
    model::TimeRange window, model::TimeNs trackEndNs)
{
    HeldCounter out;
    auto& steps = out.steps;
    steps.reserve(slice.counterLevel == 0 ? slice.samples.size() : 2 * slice.counterCells.size());
    forEachCounterStep(slice, grid, counterHoldEnd(window, trackEndNs),
        [&steps](const CounterStep& step) { steps.push_back(step); });
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    for (const CounterStep& step : steps) {
        if (!step.showsIn(window))
            continue;
        lo = std::min(lo, step.min);
        hi = std::max(hi, step.max);
    }
    if (lo <= hi) {
        out.minValue = lo;
        out.maxValue = hi;
        out.shown = true;
    }
    return out;
}

CounterSeries counterSeries(const storage::TrackSlice& slice, const model::LodGrid& grid,
    model::TimeRange window, model::TimeNs trackEndNs)
{
    CounterSeries out;
    out.exact = slice.counterLevel == 0;
    const HeldCounter held = heldCounter(slice, grid, window, trackEndNs);
    if (!held.shown)
        return out;
    out.minValue = held.minValue;
    out.maxValue = held.maxValue;
    auto add = [&out](model::TimeNs t, const CounterStep& s) {
        const double x = static_cast<double>(t);
        out.minPoints.append({ x, s.min });
        out.maxPoints.append({ x, s.max });
        out.meanPoints.append({ x, s.mean });
    };
    // Steps outside the window stay: the line from the one before it enters the window.
    for (const CounterStep& s : held.steps) {
        add(s.startNs, s);
        if (s.held && s.endNs > s.startNs)
            add(s.endNs, s);
    }
    return out;
}

}  // namespace strata::views
