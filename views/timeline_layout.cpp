#include "views/timeline_layout.h"

#include <algorithm>
#include <functional>

namespace strata::views {

TimelineLayout TimelineLayout::forStore(const storage::StoreReader& store, int topPx)
{
    TimelineLayout layout;
    const model::ResourceTree& tree = store.resources();
    int y = topPx;
    std::function<void(model::TrackId)> visit = [&](model::TrackId parent) {
        for (const model::TrackId id : tree.children(parent)) {
            const storage::TrackSummary& s = store.summary(id);
            const bool counter = s.counters > 0;
            if (s.intervals + s.instants + s.counters > 0) {
                TimelineRow row;
                row.track = id;
                row.label = tree.path(id);
                row.counter = counter && s.intervals == 0;
                row.lanes = row.counter ? 1 : std::min(kMaxLanes, s.maxDepth + 1);
                row.heightPx = row.counter ? kCounterHeightPx : row.lanes * kLaneHeightPx;
                row.topPx = y;
                y += row.heightPx + kRowGapPx;
                layout.rows.push_back(std::move(row));
            }
            visit(id);
        }
    };
    visit(model::kNoTrack);
    layout.heightPx = y;
    return layout;
}

} // namespace strata::views
