#pragma once
// The interned call stacks of a trace, as a tree stored parent-pointer style: stack 0 is
// the empty stack (the root); stack i > 0 is frame(i) called from stack parent(i), with
// parent(i) < i. A stack sample names its leaf; walking parents gives the call path.
// Filled by the store reader from the store's `stacks` table.

#include "model/events.h"

#include <stdexcept>
#include <vector>

namespace strata::model {

class StackTable
{
public:
    StackTable()
        : m_entries(1)
    {
    }

    /// Appends stack `size()`; `parent` must already exist.
    StackId add(StackId parent, StringId frame)
    {
        if (parent >= m_entries.size())
            throw std::out_of_range("StackTable::add: unknown parent stack");
        m_entries.push_back({parent, frame});
        return static_cast<StackId>(m_entries.size() - 1);
    }

    std::size_t size() const { return m_entries.size(); }
    bool contains(StackId id) const { return id < m_entries.size(); }
    /// The caller's stack of `id` (0 for a root frame and for 0 itself).
    StackId parent(StackId id) const { return m_entries.at(id).parent; }
    /// The frame `id` ends with (kEmptyString for stack 0).
    StringId frame(StackId id) const { return m_entries.at(id).frame; }

    /// The frames of `id`, root first.
    std::vector<StringId> path(StackId id) const
    {
        std::vector<StringId> out;
        for (; id != 0; id = m_entries.at(id).parent)
            out.push_back(m_entries[id].frame);
        return {out.rbegin(), out.rend()};
    }

private:
    struct Entry
    {
        StackId parent = 0;
        StringId frame = kEmptyString;
    };
    std::vector<Entry> m_entries;
};

} // namespace strata::model
