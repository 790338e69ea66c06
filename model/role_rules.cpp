#include "model/role_rules.h"

#include <sstream>
#include <stdexcept>

namespace strata::model {

namespace {

bool searches(const std::optional<std::regex>& re, std::string_view text)
{
    return !re || std::regex_search(text.begin(), text.end(), *re);
}

}  // namespace

RoleRules RoleRules::parse(const std::string& text)
{
    RoleRules out;
    std::istringstream in(text);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (const auto hash = line.find('#'); hash != std::string::npos)
            line.resize(hash);
        std::istringstream words(line);
        std::string roleWord;
        if (!(words >> roleWord))
            continue;
        auto fail = [&](const std::string& what) {
            throw std::invalid_argument("line " + std::to_string(number) + ": " + what);
        };
        RoleRule rule;
        rule.line = number;
        const auto role = parseRole(roleWord);
        if (!role && roleWord != "ignore")
            fail("expected a role (useful|comm|sync|transfer|runtime|idle|ignore), not '" + roleWord
                + "'");
        rule.role = role;
        rule.text = roleWord;
        std::string matcher;
        while (words >> matcher) {
            const auto eq = matcher.find('=');
            const std::string key = matcher.substr(0, eq == std::string::npos ? 0 : eq);
            if (key != "name" && key != "category")
                fail("expected name=REGEX or category=REGEX, not '" + matcher + "'");
            std::regex re;
            try {
                re = std::regex(
                    matcher.substr(eq + 1), std::regex::ECMAScript | std::regex::optimize);
            } catch (const std::regex_error& e) {
                fail("bad regex in '" + matcher + "': " + e.what());
            }
            (key == "name" ? rule.name : rule.category) = std::move(re);
            rule.text += " " + matcher;
        }
        out.m_usesCategory = out.m_usesCategory || rule.category.has_value();
        out.m_rules.push_back(std::move(rule));
    }
    return out;
}

RoleRules RoleRules::defaults()
{
    return parse(kDefaultRulesText);
}

void RoleRules::restrictToCategories(
    const StringTable& strings, const std::vector<StringId>& categories)
{
    m_usesCategory = false;
    for (RoleRule& rule : m_rules) {
        if (rule.category) {
            rule.live = false;
            for (StringId c : categories)
                rule.live = rule.live || searches(rule.category, strings.text(c));
        }
        m_usesCategory = m_usesCategory || (rule.live && rule.category);
    }
    m_cache.clear();
    m_nameCache.clear();
}

int RoleRules::match(const StringTable& strings, StringId name, StringId category) const
{
    const auto key = std::make_pair(name, category);
    if (auto it = m_cache.find(key); it != m_cache.end())
        return it->second;
    int found = -1;
    for (std::size_t i = 0; i < m_rules.size() && found < 0; ++i) {
        if (m_rules[i].live && searches(m_rules[i].category, strings.text(category))
            && searches(m_rules[i].name, strings.text(name)))
            found = static_cast<int>(i);
    }
    m_cache.emplace(key, found);
    return found;
}

std::optional<int> RoleRules::matchNameOnly(const StringTable& strings, StringId name) const
{
    if (auto it = m_nameCache.find(name); it != m_nameCache.end())
        return it->second;
    std::optional<int> found = -1;
    for (std::size_t i = 0; i < m_rules.size(); ++i) {
        if (!m_rules[i].live || !searches(m_rules[i].name, strings.text(name)))
            continue;
        found = m_rules[i].category ? std::nullopt : std::optional<int>(static_cast<int>(i));
        break;
    }
    m_nameCache.emplace(name, found);
    return found;
}

}  // namespace strata::model
