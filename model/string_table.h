#pragma once
// StringTable interns names, categories and other repeated strings once per store.
// Ids are dense, start at 0 and never change; id 0 is always the empty string, so a
// zero-initialised event has "no name". Lookup by text is O(1) average; memory is one
// copy of each distinct string plus a hash entry.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strata::model {

using StringId = std::uint32_t;
inline constexpr StringId kEmptyString = 0;

class StringTable
{
public:
    StringTable();
    StringTable(const StringTable&) = delete;
    StringTable& operator=(const StringTable&) = delete;
    StringTable(StringTable&&) = default;
    StringTable& operator=(StringTable&&) = default;

    /// Returns the id of `text`, adding it if it is new.
    StringId intern(std::string_view text);
    /// The id of `text` if present.
    bool find(std::string_view text, StringId& id) const;
    /// The text of a valid id (the view stays valid for the table's lifetime, or until
    /// truncate() forgets the id).
    std::string_view text(StringId id) const { return m_texts[id]; }
    std::size_t size() const { return m_texts.size(); }
    /// Forgets the strings interned after the first `size` (an import undone, see
    /// storage::RevisableSink); the ids below it keep their texts.
    void truncate(std::size_t size);

private:
    std::deque<std::string> m_storage;  // deque: stable addresses for the views below
    std::vector<std::string_view> m_texts;
    std::unordered_map<std::string_view, StringId> m_ids;
};

} // namespace strata::model
