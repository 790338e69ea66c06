#pragma once
// FilterExpression: the event filter of `strata cut` (and of any view that wants one),
// parsed from text such as
//
//     role=comm or (role=useful and dur>5ms)
//     name~'^nccl' and not track~'rank [23]'
//
// Grammar (keywords and field names are case-insensitive; `&&`, `||`, `!` are accepted
// for and, or, not):
//
//     expr       := and_expr ( "or" and_expr )*
//     and_expr   := not_expr ( "and" not_expr )*
//     not_expr   := "not" not_expr | "(" expr ")" | condition
//     condition  := field op value
//     field      := role | cat (category) | name | dur (duration) | track
//     op         := = | == | != | ~ | !~ | > | >= | < | <=
//     value      := 'quoted' | "quoted" | bare word (up to a space or a parenthesis)
//
// so `not` binds tighter than `and`, which binds tighter than `or`. Per field:
//   role   = != a role name (model/role.h)
//   cat, name, track   = != exact text;  ~ !~ an ECMAScript regex, searched anywhere in the
//          text (anchor with ^ and $); track is the track's path "node/rank 1/thread 7"
//   dur    = != > >= < <= a time with a unit as model::parseTime reads it ("5ms", "300us")
// Inside quotes a backslash escapes the quote character only (other backslashes reach the
// regex as they are: '\d+' is \d+).
//
// An event that lacks a field (an instant has no role) fails every condition on it, `!=`
// included; `not role=comm` is true for it.
//
// Errors: parse() throws FilterSyntaxError carrying the 1-based column where the text
// stops making sense, for the CLI to print the text with a caret under that column.
//
// Evaluation cost: string tests are memoised per key (FilterEvent::*Key, e.g. a StringId
// or a TrackId) so that a regex runs once per distinct name, not once per event; the
// keys given to one FilterExpression must therefore come from one string table (call
// clearMemo() before switching). Not thread-safe for that reason: copy it per thread.

#include "model/role.h"
#include "model/time_units.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace strata::model {

/// A bad filter: what was expected, and where (1-based column of the text).
class FilterSyntaxError : public std::runtime_error
{
public:
    FilterSyntaxError(int column, const std::string& what);
    int column() const { return m_column; }
    /// The plain message, without "column N: ".
    const std::string& detail() const { return m_detail; }
    /// Two lines: the expression, and a caret under the column.
    static std::string caretLines(std::string_view text, int column);

private:
    int m_column;
    std::string m_detail;
};

/// What the filter sees of one event. Keys (0xFFFFFFFF = none) let string tests be
/// memoised: equal keys must mean equal text.
struct FilterEvent
{
    static constexpr std::uint32_t kNoKey = 0xFFFFFFFFu;

    std::string_view name;
    std::string_view category;
    std::string_view track;  ///< the track's path
    std::optional<Role> role;  ///< intervals only
    std::optional<TimeNs> durationNs;  ///< intervals: end - start; instants: 0
    std::uint32_t nameKey = kNoKey;
    std::uint32_t categoryKey = kNoKey;
    std::uint32_t trackKey = kNoKey;
};

class FilterExpression
{
public:
    /// Parses `text`; throws FilterSyntaxError.
    static FilterExpression parse(std::string_view text);

    FilterExpression(const FilterExpression& other);
    FilterExpression& operator=(const FilterExpression& other);
    FilterExpression(FilterExpression&&) noexcept;
    FilterExpression& operator=(FilterExpression&&) noexcept;
    ~FilterExpression();

    bool matches(const FilterEvent& event) const;
    /// The expression fully parenthesised with canonical names, e.g.
    /// "(role = comm or (role = useful and dur > 5000000ns))": shows how it was read.
    std::string canonical() const;
    /// The text it was parsed from.
    const std::string& text() const { return m_text; }
    void clearMemo() const;

    struct Node;

private:
    FilterExpression(std::string text, std::unique_ptr<Node> root);
    std::string m_text;
    std::unique_ptr<Node> m_root;
};

}  // namespace strata::model
