#pragma once
// Which rows the timeline shows, in which order and at which height. Rows follow the
// resource tree (node > rank > threads; GPU > streams): an inner resource gets a group
// header row that can be collapsed, a track holding events gets its own row under it.
// Event rows get one lane per nesting depth (up to kMaxLanes); counter rows a fixed
// height. A filter keeps the tracks whose path contains it (case-insensitive) and the
// groups above them.

#include "model/resource_tree.h"
#include "storage/store/store_reader.h"

#include <set>
#include <string>
#include <vector>

namespace strata::views {

struct TimelineRow
{
    model::TrackId track = model::kNoTrack;
    std::string label;  ///< the track's name (the path is in the tree above it)
    int indent = 0;  ///< tree depth, for the label column
    int topPx = 0;
    int heightPx = 0;
    int lanes = 1;
    bool counter = false;
    bool group = false;  ///< a header row of an inner resource; holds no events itself
    bool collapsed = false;  ///< group rows: their children are hidden
};

struct LayoutOptions
{
    int laneHeightPx = 14;
    std::set<model::TrackId> collapsed;
    std::string filter;
    bool filterIsRegex = false;  ///< ECMAScript regex searched in the track's path
    bool groupHeaders = true;  ///< false: only event rows (the overview strip)
    int maxLanes = 6;
};

struct TimelineLayout
{
    static constexpr int kMaxLanes = 6;
    static constexpr int kGroupHeightPx = 16;
    static constexpr int kRowGapPx = 3;

    std::vector<TimelineRow> rows;
    int heightPx = 0;
    int laneHeightPx = 14;

    static TimelineLayout forStore(const storage::StoreReader& store, const LayoutOptions& options = {});

    /// The row at content y (0 = top of the first row), or nullptr in a gap.
    const TimelineRow* rowAt(int contentY) const;
    /// The row of a track holding events, or nullptr when hidden or absent.
    const TimelineRow* rowOf(model::TrackId track) const;
    int counterHeightPx() const { return laneHeightPx * 5 / 2; }
};

/// An ECMAScript regex matching exactly these tracks' paths ("^(a/b|c/d)$"), for the
/// layout filter and `cut --tracks`; "" for no tracks.
std::string exactTracksPattern(const model::ResourceTree& tree, const std::vector<model::TrackId>& tracks);

} // namespace strata::views
