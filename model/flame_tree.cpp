#include "model/flame_tree.h"

#include <algorithm>

namespace strata::model {

FlameTree::FlameTree()
{
    m_nodes.push_back({"all", kNoFlameNode, 0, 0, 0, {}});
}

FlameNodeId FlameTree::child(FlameNodeId parent, std::string_view name)
{
    const auto [it, inserted] = m_children.try_emplace({parent, std::string(name)},
                                                       static_cast<FlameNodeId>(m_nodes.size()));
    if (inserted) {
        m_nodes.push_back({std::string(name), parent, m_nodes[parent].depth + 1, 0, 0, {}});
        m_nodes[parent].children.push_back(it->second);
    }
    return it->second;
}

void FlameTree::finish(FlameOrder order)
{
    for (FlameNode& n : m_nodes)
        n.total = n.self;
    // Children have larger ids than their parents: one reverse sweep sums every subtree.
    for (std::size_t i = m_nodes.size() - 1; i > 0; --i)
        m_nodes[m_nodes[i].parent].total += m_nodes[i].total;
    for (FlameNode& n : m_nodes) {
        if (order == FlameOrder::LeftHeavy) {
            std::stable_sort(n.children.begin(), n.children.end(), [&](FlameNodeId a, FlameNodeId b) {
                return m_nodes[a].total > m_nodes[b].total
                    || (m_nodes[a].total == m_nodes[b].total && m_nodes[a].name < m_nodes[b].name);
            });
        } else {
            std::sort(n.children.begin(), n.children.end(),
                      [&](FlameNodeId a, FlameNodeId b) { return m_nodes[a].name < m_nodes[b].name; });
        }
    }
}

std::vector<FlameNodeId> FlameTree::pathTo(FlameNodeId id) const
{
    std::vector<FlameNodeId> path;
    for (; id != kNoFlameNode; id = m_nodes[id].parent)
        path.push_back(id);
    return {path.rbegin(), path.rend()};
}

FlameNodeId FlameTree::find(const std::vector<std::string>& names) const
{
    FlameNodeId id = kRoot;
    for (const std::string& name : names) {
        const auto it = m_children.find({id, name});
        if (it == m_children.end())
            return kNoFlameNode;
        id = it->second;
    }
    return id;
}

FlameTreeBuilder::FlameTreeBuilder(const StringTable& strings, const StackTable& stacks)
    : m_strings(strings)
    , m_stacks(stacks)
    , m_stackNode(stacks.size(), kNoFlameNode)
{
    if (!m_stackNode.empty())
        m_stackNode[0] = FlameTree::kRoot;
}

FlameNodeId FlameTreeBuilder::childById(FlameNodeId parent, StringId name)
{
    const std::uint64_t key = (std::uint64_t(parent) << 32) | name;
    const auto it = m_childById.find(key);
    if (it != m_childById.end())
        return it->second;
    const std::string_view text = name < m_strings.size() ? m_strings.text(name) : std::string_view("?");
    const FlameNodeId node = m_tree.child(parent, text);
    m_childById.emplace(key, node);
    return node;
}

FlameNodeId FlameTreeBuilder::nodeOfPath(const StackTable& paths, std::vector<FlameNodeId>& memo,
                                         StackId path)
{
    if (!paths.contains(path))
        return FlameTree::kRoot;
    if (memo.size() != paths.size()) {
        memo.assign(paths.size(), kNoFlameNode);
        memo[0] = FlameTree::kRoot;
    }
    if (memo[path] != kNoFlameNode)
        return memo[path];
    // Walk up to the nearest path already mapped, then map the path back down.
    std::vector<StackId> pending;
    StackId s = path;
    while (memo[s] == kNoFlameNode) {
        pending.push_back(s);
        s = paths.parent(s);
    }
    FlameNodeId node = memo[s];
    for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
        node = childById(node, paths.frame(*it));
        memo[*it] = node;
    }
    return node;
}

void FlameTreeBuilder::addSample(const StackSample& sample)
{
    m_tree.addSelf(nodeOfPath(m_stacks, m_stackNode, sample.stack), sample.weight);
    ++m_tree.sampleCount;
}

void FlameTreeBuilder::addPathWeight(const StackTable& paths, std::vector<FlameNodeId>& memo,
                                     StackId path, std::int64_t weight)
{
    m_tree.addSelf(nodeOfPath(paths, memo, path), weight);
}

void FlameTreeBuilder::addTrackIntervals(const std::vector<Interval>& intervals, TimeNs startNs, TimeNs endNs)
{
    // open[d]: the node and end time of the innermost interval seen at depth d. Sorted by
    // start, the enclosing interval of one at depth d is the last one seen at a smaller
    // depth that has not ended (depth gaps are bridged to the nearest such ancestor).
    struct Open
    {
        FlameNodeId node;
        TimeNs endNs;
    };
    std::vector<Open> open;
    for (const Interval& iv : intervals) {
        const TimeNs clippedStart = std::max(iv.startNs, startNs);
        const TimeNs clippedEnd = std::min(iv.endNs, endNs);
        std::size_t depth = std::min<std::size_t>(iv.depth, open.size());
        while (depth > 0 && open[depth - 1].endNs <= iv.startNs && open[depth - 1].endNs < iv.endNs)
            --depth;
        const FlameNodeId parent = depth == 0 ? FlameTree::kRoot : open[depth - 1].node;
        const FlameNodeId node = childById(parent, iv.name);
        open.resize(depth);
        open.push_back({node, iv.endNs});
        if (clippedEnd <= clippedStart)
            continue;
        const TimeNs ns = clippedEnd - clippedStart;
        m_tree.addSelf(node, ns);
        if (parent != FlameTree::kRoot)
            m_tree.addSelf(parent, -ns);
    }
}

FlameTree FlameTreeBuilder::take(FlameOrder order)
{
    m_tree.finish(order);
    return std::move(m_tree);
}

} // namespace strata::model
