#include "views/timeline_layout.h"

#include "model/text_match.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <regex>

namespace strata::views {

namespace {

bool holdsEvents(const storage::TrackSummary& s)
{
    return s.intervals + s.instants + s.counters + s.samples > 0;
}

} // namespace

TimelineLayout TimelineLayout::forStore(const storage::StoreReader& store, const LayoutOptions& options)
{
    TimelineLayout layout;
    layout.laneHeightPx = std::clamp(options.laneHeightPx, 4, 64);
    const model::ResourceTree& tree = store.resources();

    // Which tracks survive the filter: those whose path matches, and their ancestors.
    std::optional<std::regex> re;
    if (options.filterIsRegex && !options.filter.empty())
        re.emplace(options.filter, std::regex::ECMAScript);  // throws std::regex_error
    auto matches = [&](model::TrackId id) {
        const std::string path = tree.path(id);
        return options.filter.empty() || (re ? std::regex_search(path, *re) : model::containsNoCase(path, options.filter));
    };
    std::vector<char> shown(tree.size(), options.filter.empty() ? 1 : 0);
    if (!options.filter.empty()) {
        for (model::TrackId id = 0; id < tree.size(); ++id) {
            if (!holdsEvents(store.summary(id)) || !matches(id))
                continue;
            for (model::TrackId t = id; t != model::kNoTrack && !shown[t]; t = tree.track(t).parent)
                shown[t] = 1;
        }
    }
    // Whether a subtree holds events anywhere (empty resources get no header).
    std::vector<char> hasEvents(tree.size(), 0);
    for (model::TrackId id = static_cast<model::TrackId>(tree.size()); id-- > 0;) {
        if (holdsEvents(store.summary(id)))
            hasEvents[id] = 1;
        const model::TrackId parent = tree.track(id).parent;
        if (hasEvents[id] && parent != model::kNoTrack)
            hasEvents[parent] = 1;
    }

    int y = 0;
    auto place = [&](TimelineRow row) {
        row.topPx = y;
        y += row.heightPx + kRowGapPx;
        layout.rows.push_back(std::move(row));
    };
    std::function<void(model::TrackId, int)> visit = [&](model::TrackId id, int indent) {
        const model::TrackInfo& info = tree.track(id);
        const storage::TrackSummary& s = store.summary(id);
        const std::vector<model::TrackId> children = tree.children(id);
        const bool hasVisibleChildren = std::any_of(children.begin(), children.end(), [&](model::TrackId c) {
            return shown[c] && hasEvents[c];
        });
        int childIndent = indent;
        if (hasVisibleChildren && options.groupHeaders) {
            TimelineRow header;
            header.track = id;
            header.label = info.name;
            header.indent = indent;
            header.group = true;
            header.collapsed = options.collapsed.count(id) > 0;
            header.heightPx = kGroupHeightPx;
            place(header);
            if (header.collapsed)
                return;
            childIndent = indent + 1;
        }
        if (holdsEvents(s) && matches(id)) {
            TimelineRow row;
            row.track = id;
            row.label = info.name;
            row.indent = childIndent;
            row.counter = s.counters > 0 && s.intervals == 0;
            row.lanes = row.counter ? 1 : std::clamp(s.maxDepth + 1, 1, std::min(kMaxLanes, options.maxLanes));
            row.heightPx = row.counter ? layout.counterHeightPx() : row.lanes * layout.laneHeightPx;
            place(row);
        }
        for (const model::TrackId c : children) {
            if (shown[c] && hasEvents[c])
                visit(c, childIndent);
        }
    };
    for (const model::TrackId root : tree.children(model::kNoTrack)) {
        if (shown[root] && hasEvents[root])
            visit(root, 0);
    }
    layout.heightPx = y;
    return layout;
}

const TimelineRow* TimelineLayout::rowAt(int contentY) const
{
    const auto it = std::upper_bound(rows.begin(), rows.end(), contentY,
                                     [](int y, const TimelineRow& r) { return y < r.topPx; });
    if (it == rows.begin())
        return nullptr;
    const TimelineRow& row = *std::prev(it);
    return contentY < row.topPx + row.heightPx ? &row : nullptr;
}

std::string exactTracksPattern(const model::ResourceTree& tree, const std::vector<model::TrackId>& tracks)
{
    std::string pattern;
    for (const model::TrackId track : tracks) {
        pattern += pattern.empty() ? "" : "|";
        for (const char c : tree.path(track)) {
            if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos)
                pattern += '\\';
            pattern += c;
        }
    }
    return pattern.empty() ? pattern : "^(" + pattern + ")$";
}

const TimelineRow* TimelineLayout::rowOf(model::TrackId track) const
{
    for (const TimelineRow& row : rows) {
        if (row.track == track && !row.group)
            return &row;
    }
    return nullptr;
}

} // namespace strata::views
