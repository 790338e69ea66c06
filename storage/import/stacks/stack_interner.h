#pragma once
// StackInterner turns a call path (frame names, root first) into a stack id of a
// TraceSink, as the stack importers need it. Consecutive samples usually share a long
// prefix (folded files are sorted; perf samples of one loop repeat), so it remembers the
// previous path and re-interns only the frames after the common prefix: O(changed frames)
// string interning per sample instead of O(depth).

#include "storage/store/trace_sink.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

class StackInterner
{
public:
    explicit StackInterner(TraceSink& sink)
        : m_sink(sink)
    {
    }

    /// The stack id of `rootFirst` (0, the empty stack, for an empty path).
    model::StackId intern(const std::vector<std::string_view>& rootFirst)
    {
        std::size_t common = 0;
        while (common < rootFirst.size() && common < m_frames.size()
               && m_frames[common] == rootFirst[common])
            ++common;
        m_frames.resize(common);
        m_ids.resize(common);
        model::StackId stack = common == 0 ? 0 : m_ids[common - 1];
        for (std::size_t i = common; i < rootFirst.size(); ++i) {
            stack = m_sink.internStack(stack, m_sink.intern(rootFirst[i]));
            m_frames.emplace_back(rootFirst[i]);
            m_ids.push_back(stack);
        }
        return stack;
    }

private:
    TraceSink& m_sink;
    std::vector<std::string> m_frames;  ///< the previous path
    std::vector<model::StackId> m_ids;  ///< its stack ids, one per prefix length
};

/// Adds a sample of any weight: StackSample::weight is 32-bit, so a larger weight becomes
/// several samples at the same time whose weights add up to it (a weight of 0 stays one
/// sample of weight 0). Returns how many samples were added.
inline std::uint64_t addWeightedSample(TraceSink& sink, model::TrackId track, model::TimeNs timeNs,
                                       model::StackId stack, std::uint64_t weight)
{
    std::uint64_t added = 0;
    do {
        const auto part = static_cast<std::uint32_t>(std::min<std::uint64_t>(weight, 0xFFFFFFFFu));
        sink.addStackSample(track, {timeNs, stack, part});
        weight -= part;
        ++added;
    } while (weight > 0);
    return added;
}

} // namespace strata::storage
