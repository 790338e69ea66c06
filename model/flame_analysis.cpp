#include "model/flame_analysis.h"

#include "model/text_match.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace strata::model {

std::vector<FlameBox> layoutFlame(const FlameTree& tree, FlameNodeId zoom, double minWidth)
{
    std::vector<FlameBox> boxes;
    if (zoom >= tree.size())
        zoom = FlameTree::kRoot;
    for (FlameNodeId id : tree.pathTo(zoom))
        boxes.push_back({id, 0.0, 1.0, tree.node(id).depth});
    const double zoomTotal = static_cast<double>(tree.node(zoom).total);
    if (zoomTotal <= 0)
        return boxes;
    // Breadth-first over the zoomed subtree; boxes[i] is expanded once.
    for (std::size_t i = boxes.size() - 1; i < boxes.size(); ++i) {
        const FlameBox parent = boxes[i];
        double x = parent.x0;
        for (FlameNodeId c : tree.node(parent.node).children) {
            const double width = static_cast<double>(tree.node(c).total) / zoomTotal;
            if (width >= minWidth && width > 0)
                boxes.push_back({c, x, x + width, parent.row + 1});
            x += std::max(0.0, width);
        }
    }
    return boxes;
}

namespace {

std::vector<CallerCallee> sortedEdges(const std::map<std::string, std::int64_t>& weights)
{
    std::vector<CallerCallee> out;
    for (const auto& [name, weight] : weights)
        out.push_back({name, weight});
    std::stable_sort(out.begin(), out.end(), [](const CallerCallee& a, const CallerCallee& b) { return a.weight > b.weight; });
    return out;
}

/// Copies every path of `source` into `merged`; returns source node -> merged node.
std::vector<FlameNodeId> mergeInto(FlameTree& merged, const FlameTree& source)
{
    std::vector<FlameNodeId> map(source.size(), FlameTree::kRoot);
    for (FlameNodeId i = 1; i < source.size(); ++i)
        map[i] = merged.child(map[source.node(i).parent], source.node(i).name);
    return map;
}

} // namespace

FlameSearch searchFlame(const FlameTree& tree, std::string_view text)
{
    FlameSearch result;
    result.matched.assign(tree.size(), false);
    if (text.empty())
        return result;
    // A node is counted when it matches and no ancestor did: ids grow downwards, so the
    // "ancestor matched" flag is known before a node is visited.
    std::vector<bool> underMatch(tree.size(), false);
    for (FlameNodeId i = 1; i < tree.size(); ++i) {
        const FlameNode& n = tree.node(i);
        result.matched[i] = containsNoCase(n.name, text);
        if (result.matched[i] && !underMatch[n.parent])
            result.matchedTotal += n.total;
        underMatch[i] = underMatch[n.parent] || result.matched[i];
    }
    if (tree.total() > 0)
        result.share = static_cast<double>(result.matchedTotal) / static_cast<double>(tree.total());
    return result;
}

FrameCallers callersAndCallees(const FlameTree& tree, std::string_view name)
{
    FrameCallers out;
    out.name = std::string(name);
    std::map<std::string, std::int64_t> callers, callees;
    std::vector<bool> underSame(tree.size(), false);
    for (FlameNodeId i = 1; i < tree.size(); ++i) {
        const FlameNode& n = tree.node(i);
        const bool same = n.name == name;
        underSame[i] = underSame[n.parent] || same;
        if (!same)
            continue;
        out.self += n.self;
        if (!underSame[n.parent])
            out.total += n.total;
        callers[tree.node(n.parent).name] += n.total;
        for (FlameNodeId c : n.children)
            callees[tree.node(c).name] += tree.node(c).total;
    }
    out.callers = sortedEdges(callers);
    out.callees = sortedEdges(callees);
    return out;
}

double FlameDiff::change(FlameNodeId node) const
{
    const auto share = [](std::int64_t v, std::int64_t all) { return all > 0 ? static_cast<double>(v) / static_cast<double>(all) : 0.0; };
    return share(after[node], after[FlameTree::kRoot]) - share(before[node], before[FlameTree::kRoot]);
}

FlameDiff diffFlame(const FlameTree& before, const FlameTree& after, FlameOrder order)
{
    FlameDiff diff;
    const std::vector<FlameNodeId> fromBefore = mergeInto(diff.tree, before);
    const std::vector<FlameNodeId> fromAfter = mergeInto(diff.tree, after);
    diff.before.assign(diff.tree.size(), 0);
    diff.after.assign(diff.tree.size(), 0);
    for (FlameNodeId i = 0; i < before.size(); ++i)
        diff.before[fromBefore[i]] = before.node(i).total;
    for (FlameNodeId i = 0; i < after.size(); ++i) {
        diff.after[fromAfter[i]] = after.node(i).total;
        diff.tree.addSelf(fromAfter[i], after.node(i).self);
    }
    diff.tree.unit = after.unit;
    diff.tree.sampleCount = after.sampleCount;
    diff.tree.finish(order);
    return diff;
}

} // namespace strata::model
