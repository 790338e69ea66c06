#include "views/timeline_picking.h"

#include <cmath>

namespace strata::views {

TimelineHit pickAt(const TimelineLayout& layout, const TimelineFrame& frame, const TimelineData& data,
                   const model::LodGrid& grid, double x, double y)
{
    TimelineHit hit;
    if (y < frame.rulerHeightPx)
        return hit;
    hit.row = layout.rowAt(static_cast<int>(y) - frame.rulerHeightPx + frame.scrollPx);
    hit.timeNs = frame.timeAt(x);
    if (!hit.row || hit.row->group || hit.row->counter || x < frame.labelWidthPx)
        return hit;
    const storage::TrackSlice* slice = data.slice(hit.row->track);
    if (!slice)
        return hit;
    const int depth = (static_cast<int>(y) - frame.rowTop(*hit.row)) / layout.laneHeightPx;
    // The interval whose box (at least 1 px wide) is nearest to x, within 2 px.
    double best = 2.0;
    for (const model::Interval& e : slice->intervals) {
        if (e.depth != depth)
            continue;
        const double x0 = frame.xOf(e.startNs);
        const double x1 = std::max(x0 + 1.0, frame.xOf(e.endNs));
        const double distance = x < x0 ? x0 - x : x > x1 ? x - x1 : 0.0;
        if (distance < best || (distance == 0.0 && best == 0.0)) {
            best = distance;
            hit.interval = PickedInterval{hit.row->track, e};
        }
    }
    if (hit.interval || slice->intervalLevel == 0)
        return hit;
    const std::int64_t bucket = model::floorDiv(hit.timeNs, grid.bucketNs(slice->intervalLevel));
    for (const storage::IntervalCell& c : slice->cells) {
        if (c.bucket == bucket && c.depth == depth) {
            hit.cell = c;
            hit.cellEntries.assign(slice->entries.begin() + c.firstEntry,
                                   slice->entries.begin() + c.firstEntry + c.entryCount);
            break;
        }
    }
    return hit;
}

void readPickedCell(TimelineHit& hit, storage::StoreReader& store, const TimelineData& data)
{
    if (!hit.cell || data.cells == storage::CellDetail::Full)
        return;
    const storage::TrackSlice* slice = data.slice(hit.row->track);
    auto full =
        store.intervalCell(hit.row->track, slice->intervalLevel, hit.cell->bucket, hit.cell->depth);
    if (!full)
        return;  // cannot be: the slice was read from that cell
    hit.cell = full->cell;
    hit.cellEntries = std::move(full->entries);
}

} // namespace strata::views
