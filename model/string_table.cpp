#include "model/string_table.h"

#include <algorithm>

namespace strata::model {

StringTable::StringTable()
{
    intern({});
}

StringId StringTable::intern(std::string_view text)
{
    if (auto it = m_ids.find(text); it != m_ids.end())
        return it->second;
    const std::string& stored = m_storage.emplace_back(text);
    const auto id = static_cast<StringId>(m_texts.size());
    m_texts.push_back(stored);
    m_ids.emplace(stored, id);
    return id;
}

void StringTable::truncate(std::size_t size)
{
    size = std::max<std::size_t>(size, 1);  // the empty string stays
    while (m_texts.size() > size) {
        m_ids.erase(m_texts.back());
        m_texts.pop_back();
        m_storage.pop_back();
    }
}

bool StringTable::find(std::string_view text, StringId& id) const
{
    auto it = m_ids.find(text);
    if (it == m_ids.end())
        return false;
    id = it->second;
    return true;
}

} // namespace strata::model
