#include "model/lod_grid.h"

namespace strata::model {

LodGrid LodGrid::forSpan(TimeNs spanNs)
{
    LodGrid grid;
    grid.levels = 1;
    // Stop when one tile covers the span, or before the shift would overflow.
    while (grid.tileNs(grid.levels) < spanNs && grid.levels < 22)
        ++grid.levels;
    return grid;
}

int LodGrid::bandByLoop(TimeNs durationNs) const
{
    int band = 0;
    while (band < levels && durationNs >= bucketNs(band + 1))
        ++band;
    return band;
}

int LodGrid::levelFor(double nsPerPx) const
{
    int level = 0;
    while (level < levels && static_cast<double>(bucketNs(level + 1)) <= nsPerPx)
        ++level;
    return level;
}

} // namespace strata::model
