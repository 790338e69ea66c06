#include "model/string_table.h"

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

bool StringTable::find(std::string_view text, StringId& id) const
{
    auto it = m_ids.find(text);
    if (it == m_ids.end())
        return false;
    id = it->second;
    return true;
}

} // namespace strata::model
