#include "views/time_ticks.h"

#include "model/lod_grid.h"

#include <algorithm>
#include <cmath>

namespace strata::views {

model::TimeNs tickStep(double nsPerPx, int targetPx)
{
    const double raw = nsPerPx * targetPx;
    double step = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
    for (const double m : { 1.0, 2.0, 5.0, 10.0 }) {
        if (step * m >= raw)
            return std::max<model::TimeNs>(1, static_cast<model::TimeNs>(step * m));
    }
    return static_cast<model::TimeNs>(step * 10);
}

std::vector<TimeTick> timeTicks(model::TimeRange window, int plotWidthPx)
{
    std::vector<TimeTick> ticks;
    if (window.empty() || plotWidthPx <= 0)
        return ticks;
    const model::TimeNs step = tickStep(static_cast<double>(window.durationNs()) / plotWidthPx);
    const model::TimeNs first = model::floorDiv(window.startNs, step) * step + step;
    for (model::TimeNs t = first; t < window.endNs; t += step)
        ticks.push_back({ t,
            t == first ? model::formatTimestamp(t, step)
                       : "+" + model::formatDuration(t - first) });
    return ticks;
}

}  // namespace strata::views
