#include "views/counter_series.h"

#include <algorithm>
#include <limits>

namespace strata::views {

HeldCounter heldCounter(const storage::TrackSlice& slice, const model::LodGrid& grid,
    model::TimeRange window, model::TimeNs trackEndNs)
{
    const model::TimeNs holdUntil = std::min(window.endNs, trackEndNs);
    HeldCounter out;
    auto& steps = out.steps;
    if (slice.counterLevel == 0) {
        const auto& s = slice.samples;
        for (std::size_t i = 0; i < s.size(); ++i) {
            const model::TimeNs until =
                i + 1 < s.size() ? s[i + 1].timeNs : std::max(s[i].timeNs, holdUntil);
            steps.push_back({ s[i].timeNs, until, s[i].value, s[i].value, s[i].value, true });
        }
    } else {
        const model::TimeNs w = grid.bucketNs(slice.counterLevel);
        const auto& c = slice.counterCells;
        for (std::size_t i = 0; i < c.size(); ++i) {
            const model::TimeNs start = c[i].bucket * w;
            const model::TimeNs end = start + w;
            steps.push_back({ start, end, c[i].min, c[i].max, c[i].mean, false });
            // Buckets without samples, up to the next cell or the hold's end, carry the
            // cell's last value.
            const model::TimeNs gapEnd = i + 1 < c.size() ? c[i + 1].bucket * w : holdUntil;
            if (gapEnd > end)
                steps.push_back({ end, gapEnd, c[i].last, c[i].last, c[i].last, true });
        }
    }
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
