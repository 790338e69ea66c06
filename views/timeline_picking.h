#pragma once
// What lies under a point of the timeline: a row, and on it an exact interval or the
// summary cell that folds the intervals too short to see at this zoom.

#include "views/timeline_renderer.h"

namespace strata::views {

struct TimelineHit
{
    const TimelineRow* row = nullptr;
    model::TimeNs timeNs = 0;
    std::optional<PickedInterval> interval;  ///< an exact interval under the point
    std::optional<storage::IntervalCell> cell;  ///< or the summary cell under it
    std::vector<storage::Coverage> cellEntries;
};

/// Picks at widget position (x, y); intervals narrower than 3 px are hit within 2 px.
TimelineHit pickAt(const TimelineLayout& layout, const TimelineFrame& frame, const TimelineData& data,
                   const model::LodGrid& grid, double x, double y);

/// A cell picked from data of CellDetail::Drawn holds only its colour: this reads its
/// count, longest event and names from the store (Full data has them already).
void readPickedCell(TimelineHit& hit, storage::StoreReader& store, const TimelineData& data);

} // namespace strata::views
