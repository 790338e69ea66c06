#pragma once
// RoleRules: a user's rules file that re-assigns roles by category and name, for traces
// whose names Strata cannot know. Without a rules file every interval keeps the role its
// importer gave it (model::classifyRole for Chrome/Kineto, the state for Paraver).
//
// Format, one rule a line, '#' starts a comment, first matching rule wins:
//     ROLE  [category=REGEX]  [name=REGEX]
// ROLE is useful|comm|sync|transfer|runtime|idle, or `ignore` for intervals that are
// annotations rather than work (they then count for no role at all); REGEX is ECMAScript, searched
// (not anchored; use ^...$ for a full match), case-sensitive; a missing matcher matches anything. A
// regex cannot hold spaces; write \s. Example:
//     comm     name=^ncclDevKernel
//     sync     category=^cuda_runtime$ name=Synchronize
//     useful   category=^kernel$
// Matching costs one regex search per distinct (name, category) pair: results are
// cached by string id.

#include "model/role.h"
#include "model/string_table.h"

#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace strata::model {

struct RoleRule
{
    std::optional<Role> role;  ///< nullopt: ignore the interval
    std::string text;  ///< the rule as written (for reports)
    int line = 0;
    std::optional<std::regex> category;
    std::optional<std::regex> name;
    bool live = true;  ///< false: its category matcher matches no category of the store
};

/// Without a rules file the importers' roles hold, except for two kinds of Kineto ranges
/// that are markers rather than work: the GPU-side copies of user ranges (category
/// gpu_user_annotation: "ProfilerStep#2", "gloo:all_reduce" drawn on a stream), which
/// span kernels and gaps alike, and the host's step markers "ProfilerStep#N", which span
/// a whole step, untraced waits included. Other user ranges (a gloo:all_reduce on the
/// host, a forward pass) keep their role.
inline constexpr const char* kDefaultRulesText = "ignore category=^gpu_user_annotation$\n"
                                                 "ignore category=^user_annotation$ name=^ProfilerStep#\n";

class RoleRules
{
public:
    /// Parses rules text; throws std::invalid_argument("LINE: what was expected").
    static RoleRules parse(const std::string& text);
    /// The rules used without a rules file (kDefaultRulesText).
    static RoleRules defaults();

    const std::vector<RoleRule>& rules() const { return m_rules; }
    bool usesCategory() const { return m_usesCategory; }

    /// Retires the rules whose category matcher matches none of `categories` (they can
    /// never fire), so that summary cells, which lack categories, need not doubt them.
    void restrictToCategories(const StringTable& strings, const std::vector<StringId>& categories);

    /// Index of the first rule matching (name, category), or -1.
    int match(const StringTable& strings, StringId name, StringId category) const;
    /// The first rule matching by name alone, counting only rules without a category
    /// matcher; nullopt when a rule with a category matcher could match this name (then
    /// the answer depends on the category, which summary cells do not keep).
    std::optional<int> matchNameOnly(const StringTable& strings, StringId name) const;

private:
    std::vector<RoleRule> m_rules;
    bool m_usesCategory = false;
    mutable std::map<std::pair<StringId, StringId>, int> m_cache;
    mutable std::map<StringId, std::optional<int>> m_nameCache;
};

}  // namespace strata::model
