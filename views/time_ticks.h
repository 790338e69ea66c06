#pragma once
// The time ticks of a window: where the timeline's ruler and the counter charts' x axis
// put their ticks and what they write there, so both read the same times at the same x.
// Like Perfetto, the first tick gets its full time and the others an offset from it, so
// labels stay short however deep into the run the window is.

#include "model/time_units.h"

#include <string>
#include <vector>

namespace strata::views {

/// Pixels between ruler ticks the step aims for.
inline constexpr int kTickSpacingPx = 110;

/// A "nice" tick step (1, 2 or 5 times a power of ten ns) giving ~`targetPx` per tick.
model::TimeNs tickStep(double nsPerPx, int targetPx = kTickSpacingPx);

struct TimeTick
{
    model::TimeNs timeNs = 0;
    std::string label;  ///< "12.5ms" for the first tick, "+2ms" for the others
};

/// The ticks strictly inside `window` drawn `plotWidthPx` wide, a tickStep() apart.
std::vector<TimeTick> timeTicks(model::TimeRange window, int plotWidthPx);

}  // namespace strata::views
