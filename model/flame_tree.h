#pragma once
// FlameTree is the aggregated call tree behind a flame graph: one node per distinct call
// path (root first), with the weight spent in the node itself (self) and in it and its
// callees (total). Node 0 is the root ("all"); a child's id is greater than its parent's.
//
// Two ways to fill it (FlameTreeBuilder):
//   - stack samples: each sample adds its weight to the self of its stack's node. A stack
//     id is mapped to its node once (memoised), so n samples over s distinct stacks cost
//     O(n + s * depth).
//   - interval nesting (CPU ops, Python functions, NVTX ranges with depth): an interval
//     adds its duration clipped to the window to the self of its node and subtracts it
//     from its parent interval's node, so that self = own time minus nested time.
// finish() computes totals bottom-up (total = self + sum of children's totals, so the
// root's total is the sum of every weight added) and orders children. Names are copied
// into the tree, so trees from two stores can be compared (flame_analysis.h).
//
// Invariants after finish(): node(0).total = sum of weights added; for every node,
// total = self + sum of its children's totals.

#include "model/events.h"
#include "model/stack_table.h"
#include "model/string_table.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strata::model {

using FlameNodeId = std::uint32_t;
inline constexpr FlameNodeId kNoFlameNode = 0xFFFFFFFFu;

struct FlameNode
{
    std::string name;  ///< the frame; "all" for the root
    FlameNodeId parent = kNoFlameNode;
    std::uint32_t depth = 0;  ///< 0 for the root
    std::int64_t self = 0;
    std::int64_t total = 0;
    std::vector<FlameNodeId> children;  ///< ordered by finish()
};

/// How siblings are ordered: by name (flamegraph.pl, stable between windows) or by
/// decreasing total ("left heavy": the heaviest path runs along the left edge).
enum class FlameOrder : std::uint8_t { ByName, LeftHeavy };

class FlameTree
{
public:
    FlameTree();

    static constexpr FlameNodeId kRoot = 0;

    /// The child of `parent` named `name`, created when missing.
    FlameNodeId child(FlameNodeId parent, std::string_view name);
    /// Adds `weight` to the node's self (call finish() before reading totals).
    void addSelf(FlameNodeId node, std::int64_t weight) { m_nodes[node].self += weight; }
    /// Totals bottom-up and sibling order; call again after more additions.
    void finish(FlameOrder order = FlameOrder::ByName);

    const FlameNode& node(FlameNodeId id) const { return m_nodes[id]; }
    std::size_t size() const { return m_nodes.size(); }
    std::int64_t total() const { return m_nodes[kRoot].total; }
    /// The nodes from the root to `id`, both included.
    std::vector<FlameNodeId> pathTo(FlameNodeId id) const;
    /// The node at the end of `names` (root first, the root's name excluded), or kNoFlameNode.
    FlameNodeId find(const std::vector<std::string>& names) const;

    /// What a weight counts: "ns" for interval trees, the sample unit ("cycles",
    /// "cpu-clock", "samples") for sample trees.
    std::string unit;
    /// Sample trees: how many samples were added (a sample of weight w counts once).
    std::int64_t sampleCount = 0;

private:
    struct PairHash
    {
        std::size_t operator()(const std::pair<FlameNodeId, std::string>& k) const
        {
            return std::hash<std::string>()(k.second) * 31 + k.first;
        }
    };
    std::vector<FlameNode> m_nodes;
    std::unordered_map<std::pair<FlameNodeId, std::string>, FlameNodeId, PairHash> m_children;
};

/// Fills a FlameTree from the samples or intervals of one store (string ids resolved with
/// its StringTable). One builder per tree; add any number of tracks, then take().
class FlameTreeBuilder
{
public:
    FlameTreeBuilder(const StringTable& strings, const StackTable& stacks);

    /// A stack sample: its weight goes to the self of its stack's node. Unknown stack ids
    /// (a corrupted store) count at the root.
    void addSample(const StackSample& sample);
    /// The intervals of ONE track overlapping [startNs, endNs), sorted by (start, seq)
    /// with their nesting depth (as StoreReader returns them). Each one's time inside the
    /// window is attributed to the call path of enclosing intervals.
    void addTrackIntervals(const std::vector<Interval>& intervals, TimeNs startNs, TimeNs endNs);
    /// Pre-aggregated weight (an entry of a flame pyramid bucket, storage/store/flame_summarizer.h):
    /// `weight` goes to the self of the node of `path`, a call path of `paths` (the
    /// store's stacks, or a track's interval paths); names resolve as for the other adds.
    /// `memo` maps paths of that table to nodes: one per table, empty at first.
    void addPathWeight(const StackTable& paths, std::vector<FlameNodeId>& memo, StackId path,
                       std::int64_t weight);
    /// Samples whose weights were added pre-aggregated (they count in sampleCount).
    void addSampleCount(std::int64_t samples) { m_tree.sampleCount += samples; }
    /// The finished tree.
    FlameTree take(FlameOrder order = FlameOrder::ByName);

    FlameTree& tree() { return m_tree; }

private:
    FlameNodeId nodeOfPath(const StackTable& paths, std::vector<FlameNodeId>& memo, StackId path);
    FlameNodeId childById(FlameNodeId parent, StringId name);

    const StringTable& m_strings;
    const StackTable& m_stacks;
    FlameTree m_tree;
    std::vector<FlameNodeId> m_stackNode;  ///< memo: stack id -> node
    std::unordered_map<std::uint64_t, FlameNodeId> m_childById;  ///< (parent, string id) -> node
};

} // namespace strata::model
