#pragma once
// Questions asked of a finished FlameTree, as pure functions: where does a frame box go
// (layout), which frames match a search and what share of the total they hold, who calls
// a function and what it calls, and how two trees differ (differential flame graph).

#include "model/flame_tree.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::model {

/// One box of a flame graph: horizontal extent as fractions [0, 1] of the graph's width
/// and its row (0 = the root row).
struct FlameBox
{
    FlameNodeId node = kNoFlameNode;
    double x0 = 0;
    double x1 = 0;
    std::uint32_t row = 0;
};

/// The boxes of `tree` zoomed into `zoom`: the path from the root to `zoom` spans the
/// full width (rows 0..depth(zoom)), and the subtree of `zoom` is laid out below it,
/// widths proportional to total / total(zoom), children in the tree's order from the
/// parent's left edge. Boxes narrower than `minWidth` (a fraction) are left out with their
/// subtrees (they stay inside their parent's box). Parents come before their children.
std::vector<FlameBox> layoutFlame(const FlameTree& tree, FlameNodeId zoom, double minWidth);

/// Frames whose name contains the search text (ASCII case-insensitive).
struct FlameSearch
{
    std::vector<bool> matched;  ///< per node
    /// Sum of the totals of matched nodes that have no matched ancestor (recursion is not
    /// counted twice), and its share of the root's total (0 for an empty tree).
    std::int64_t matchedTotal = 0;
    double share = 0;
};
FlameSearch searchFlame(const FlameTree& tree, std::string_view text);

/// A function's callers and callees over the whole tree (every node of that name).
struct CallerCallee
{
    std::string name;
    std::int64_t weight = 0;  ///< total of the calls through this edge
};
struct FrameCallers
{
    std::string name;
    std::int64_t self = 0;  ///< self of every node of that name
    std::int64_t total = 0;  ///< totals of the outermost nodes of that name (no recursion twice)
    std::vector<CallerCallee> callers;  ///< by decreasing weight; the root is "all"
    std::vector<CallerCallee> callees;  ///< by decreasing weight
};
FrameCallers callersAndCallees(const FlameTree& tree, std::string_view name);

/// Two trees compared node by node (matched by call path). The merged tree holds the
/// union of both trees' paths, weighted by `after` (the picture shows the new profile);
/// `before`/`after` are each node's totals in the two trees. Since two windows or stores
/// differ in length, growth compares shares of each root's total:
///     change(n) = after(n) / after(root) - before(n) / before(root)
/// in [-1, 1]; 0 is neutral (a tree compared with itself is neutral everywhere).
struct FlameDiff
{
    FlameTree tree;
    std::vector<std::int64_t> before;
    std::vector<std::int64_t> after;
    double change(FlameNodeId node) const;
};
FlameDiff diffFlame(const FlameTree& before, const FlameTree& after, FlameOrder order = FlameOrder::ByName);

} // namespace strata::model
