#pragma once
// Which tracks the timeline shows, in which order and at which height: leaves of the
// resource tree that hold events, in tree order (parents' sort keys, then the track's),
// each labelled with its path. An interval track gets one lane per nesting depth (up
// to kMaxLanes); a counter track a fixed height.

#include "model/resource_tree.h"
#include "storage/store_reader.h"

#include <string>
#include <vector>

namespace strata::views {

struct TimelineRow
{
    model::TrackId track = model::kNoTrack;
    std::string label;
    int topPx = 0;
    int heightPx = 0;
    int lanes = 1;
    bool counter = false;
};

struct TimelineLayout
{
    static constexpr int kLaneHeightPx = 14;
    static constexpr int kMaxLanes = 6;
    static constexpr int kCounterHeightPx = 36;
    static constexpr int kRowGapPx = 3;

    std::vector<TimelineRow> rows;
    int heightPx = 0;

    static TimelineLayout forStore(const storage::StoreReader& store, int topPx);
};

} // namespace strata::views
