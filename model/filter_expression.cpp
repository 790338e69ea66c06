#include "model/filter_expression.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <vector>

namespace strata::model {

FilterSyntaxError::FilterSyntaxError(int column, const std::string& what)
    : std::runtime_error("column " + std::to_string(column) + ": " + what)
    , m_column(column)
    , m_detail(what)
{}

std::string FilterSyntaxError::caretLines(std::string_view text, int column)
{
    std::string out(text);
    out += '\n';
    out.append(static_cast<std::size_t>(std::max(column, 1) - 1), ' ');
    out += '^';
    return out;
}

enum class Field { Role, Category, Name, Duration, Track };
enum class Op { Equal, NotEqual, Match, NoMatch, Greater, GreaterEqual, Less, LessEqual };

struct FilterExpression::Node
{
    enum class Kind { Or, And, Not, Condition } kind = Kind::Condition;
    std::vector<std::unique_ptr<Node>> children;
    // Condition:
    Field field = Field::Name;
    Op op = Op::Equal;
    std::string value;
    std::shared_ptr<const std::regex> regex;  // shared by copies: it is immutable
    Role role = Role::Useful;
    TimeNs durationNs = 0;
    mutable std::vector<std::int8_t> memo;  // per key: -1 unknown, 0 false, 1 true

    std::unique_ptr<Node> clone() const
    {
        auto copy = std::make_unique<Node>();
        copy->kind = kind;
        for (const auto& child : children)
            copy->children.push_back(child->clone());
        copy->field = field;
        copy->op = op;
        copy->value = value;
        copy->regex = regex;
        copy->role = role;
        copy->durationNs = durationNs;
        return copy;
    }
};

namespace {

using Node = FilterExpression::Node;

bool equalsIgnoreCase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x))
            == std::tolower(static_cast<unsigned char>(y));
    });
}

std::string_view fieldName(Field f)
{
    switch (f) {
    case Field::Role:
        return "role";
    case Field::Category:
        return "cat";
    case Field::Name:
        return "name";
    case Field::Duration:
        return "dur";
    case Field::Track:
        return "track";
    }
    return "?";
}

std::string_view opText(Op op)
{
    switch (op) {
    case Op::Equal:
        return "=";
    case Op::NotEqual:
        return "!=";
    case Op::Match:
        return "~";
    case Op::NoMatch:
        return "!~";
    case Op::Greater:
        return ">";
    case Op::GreaterEqual:
        return ">=";
    case Op::Less:
        return "<";
    case Op::LessEqual:
        return "<=";
    }
    return "?";
}

/// Recursive descent over the text; `m_pos` is a byte offset, columns are m_pos + 1.
class Parser
{
public:
    explicit Parser(std::string_view text)
        : m_text(text)
    {}

    std::unique_ptr<Node> parseAll()
    {
        skipSpace();
        if (atEnd())
            fail("expected a condition such as role=comm, name~'^nccl' or dur>5ms");
        auto root = parseOr();
        skipSpace();
        if (!atEnd()) {
            if (peek() == ')')
                fail("unexpected ')' without a matching '('");
            fail("expected 'and', 'or' or the end of the filter");
        }
        return root;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { failAt(m_pos, what); }
    [[noreturn]] void failAt(std::size_t pos, const std::string& what) const
    {
        throw FilterSyntaxError(static_cast<int>(pos) + 1, what);
    }
    bool atEnd() const { return m_pos >= m_text.size(); }
    char peek(std::size_t ahead = 0) const
    {
        return m_pos + ahead < m_text.size() ? m_text[m_pos + ahead] : '\0';
    }
    void skipSpace()
    {
        while (!atEnd() && std::isspace(static_cast<unsigned char>(peek())))
            ++m_pos;
    }
    static bool isWordChar(char c)
    {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    }
    /// The identifier at the cursor (letters, digits, '_'), without consuming it.
    std::string_view word() const
    {
        std::size_t end = m_pos;
        while (end < m_text.size() && isWordChar(m_text[end]))
            ++end;
        return m_text.substr(m_pos, end - m_pos);
    }
    /// Consumes keyword `kw` (or its symbol) if it is next.
    bool keyword(std::string_view kw, std::string_view symbol)
    {
        skipSpace();
        if (m_text.substr(m_pos).starts_with(symbol)) {
            // "!" must not be the start of "!=" / "!~" (which cannot appear here anyway).
            m_pos += symbol.size();
            return true;
        }
        if (equalsIgnoreCase(word(), kw)) {
            m_pos += kw.size();
            return true;
        }
        return false;
    }

    std::unique_ptr<Node> combine(Node::Kind kind, std::unique_ptr<Node> first,
        bool (Parser::*more)(), std::unique_ptr<Node> (Parser::*next)())
    {
        if (!(this->*more)())
            return first;
        auto node = std::make_unique<Node>();
        node->kind = kind;
        node->children.push_back(std::move(first));
        do {
            node->children.push_back((this->*next)());
        } while ((this->*more)());
        return node;
    }
    bool orKeyword() { return keyword("or", "||"); }
    bool andKeyword() { return keyword("and", "&&"); }

    std::unique_ptr<Node> parseOr()
    {
        return combine(Node::Kind::Or, parseAnd(), &Parser::orKeyword, &Parser::parseAnd);
    }
    std::unique_ptr<Node> parseAnd()
    {
        return combine(Node::Kind::And, parseNot(), &Parser::andKeyword, &Parser::parseNot);
    }

    std::unique_ptr<Node> parseNot()
    {
        skipSpace();
        if (atEnd())
            fail("expected a condition after this point");
        if ((peek() == '!' && peek(1) != '=' && peek(1) != '~')
            || equalsIgnoreCase(word(), "not")) {
            m_pos += peek() == '!' ? 1 : 3;
            auto node = std::make_unique<Node>();
            node->kind = Node::Kind::Not;
            node->children.push_back(parseNot());
            return node;
        }
        if (peek() == '(') {
            const std::size_t open = m_pos++;
            auto inner = parseOr();
            skipSpace();
            if (peek() != ')')
                fail("expected ')' to close the '(' at column " + std::to_string(open + 1));
            ++m_pos;
            return inner;
        }
        return parseCondition();
    }

    std::unique_ptr<Node> parseCondition()
    {
        auto node = std::make_unique<Node>();
        const std::size_t fieldPos = m_pos;
        const std::string_view f = word();
        if (f.empty())
            fail("expected a field (role, cat, name, dur or track)");
        if (equalsIgnoreCase(f, "role"))
            node->field = Field::Role;
        else if (equalsIgnoreCase(f, "cat") || equalsIgnoreCase(f, "category"))
            node->field = Field::Category;
        else if (equalsIgnoreCase(f, "name"))
            node->field = Field::Name;
        else if (equalsIgnoreCase(f, "dur") || equalsIgnoreCase(f, "duration"))
            node->field = Field::Duration;
        else if (equalsIgnoreCase(f, "track"))
            node->field = Field::Track;
        else
            fail("unknown field '" + std::string(f) + "' (expected role, cat, name, dur or track)");
        m_pos += f.size();
        skipSpace();
        const std::size_t opPos = m_pos;
        node->op = parseOp(fieldPos);
        checkOpFitsField(*node, opPos);
        skipSpace();
        const std::size_t valuePos = m_pos;
        node->value = parseValue();
        interpretValue(*node, valuePos);
        return node;
    }

    Op parseOp(std::size_t fieldPos)
    {
        static constexpr std::pair<std::string_view, Op> kOps[] = { { "==", Op::Equal },
            { "!=", Op::NotEqual }, { "!~", Op::NoMatch }, { ">=", Op::GreaterEqual },
            { "<=", Op::LessEqual }, { "=", Op::Equal }, { "~", Op::Match }, { ">", Op::Greater },
            { "<", Op::Less } };
        for (const auto& [text, op] : kOps) {
            if (m_text.substr(m_pos).starts_with(text)) {
                m_pos += text.size();
                return op;
            }
        }
        fail("expected an operator (=, !=, ~, !~, >, >=, <, <=) after '"
            + std::string(m_text.substr(fieldPos, m_pos - fieldPos)) + "'");
    }

    void checkOpFitsField(const Node& node, std::size_t opPos) const
    {
        const bool ordering = node.op == Op::Greater || node.op == Op::GreaterEqual
            || node.op == Op::Less || node.op == Op::LessEqual;
        const bool regex = node.op == Op::Match || node.op == Op::NoMatch;
        if (node.field == Field::Duration && regex)
            failAt(opPos,
                "dur compares with =, !=, >, >=, <, <=, not '" + std::string(opText(node.op))
                    + "'");
        if (node.field == Field::Role && (ordering || regex))
            failAt(opPos, "role compares with = or !=, not '" + std::string(opText(node.op)) + "'");
        if (node.field != Field::Duration && node.field != Field::Role && ordering)
            failAt(opPos,
                std::string(fieldName(node.field)) + " compares with =, !=, ~ or !~, not '"
                    + std::string(opText(node.op)) + "'");
    }

    std::string parseValue()
    {
        if (atEnd())
            fail("expected a value");
        const char quote = peek();
        if (quote == '\'' || quote == '"') {
            const std::size_t open = m_pos++;
            std::string value;
            while (!atEnd() && peek() != quote) {
                if (peek() == '\\' && peek(1) == quote)
                    ++m_pos;
                value.push_back(m_text[m_pos++]);
            }
            if (atEnd())
                failAt(open, std::string("unterminated quote: no closing ") + quote);
            ++m_pos;
            return value;
        }
        const std::size_t start = m_pos;
        while (!atEnd() && !std::isspace(static_cast<unsigned char>(peek())) && peek() != '('
            && peek() != ')')
            ++m_pos;
        if (m_pos == start)
            fail("expected a value");
        return std::string(m_text.substr(start, m_pos - start));
    }

    void interpretValue(Node& node, std::size_t valuePos) const
    {
        if (node.field == Field::Role) {
            const auto role = parseRole(node.value);
            if (!role)
                failAt(valuePos,
                    "unknown role '" + node.value
                        + "' (expected useful, comm, sync, transfer, runtime or idle)");
            node.role = *role;
        } else if (node.field == Field::Duration) {
            const auto ns = parseTime(node.value);
            if (!ns)
                failAt(valuePos,
                    "expected a duration such as 5ms, 300us, 2s or 42ns, not '" + node.value + "'");
            node.durationNs = *ns;
        } else if (node.op == Op::Match || node.op == Op::NoMatch) {
            try {
                node.regex = std::make_shared<const std::regex>(node.value, std::regex::ECMAScript);
            } catch (const std::regex_error& e) {
                failAt(valuePos, "bad regular expression '" + node.value + "': " + e.what());
            }
        }
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
};

bool compareDuration(Op op, TimeNs have, TimeNs want)
{
    switch (op) {
    case Op::Equal:
        return have == want;
    case Op::NotEqual:
        return have != want;
    case Op::Greater:
        return have > want;
    case Op::GreaterEqual:
        return have >= want;
    case Op::Less:
        return have < want;
    case Op::LessEqual:
        return have <= want;
    default:
        return false;
    }
}

bool testText(const Node& node, std::string_view text)
{
    switch (node.op) {
    case Op::Equal:
        return text == node.value;
    case Op::NotEqual:
        return text != node.value;
    case Op::Match:
        return std::regex_search(text.begin(), text.end(), *node.regex);
    case Op::NoMatch:
        return !std::regex_search(text.begin(), text.end(), *node.regex);
    default:
        return false;
    }
}

/// testText, remembered per key.
bool testTextMemo(const Node& node, std::string_view text, std::uint32_t key)
{
    // Exact comparisons are as cheap as a lookup: memoise regexes only.
    if (key == FilterEvent::kNoKey || !node.regex)
        return testText(node, text);
    if (key >= node.memo.size())
        node.memo.resize(std::max<std::size_t>(key + 1, node.memo.size() * 2), -1);
    std::int8_t& slot = node.memo[key];
    if (slot < 0)
        slot = testText(node, text) ? 1 : 0;
    return slot == 1;
}

bool evaluate(const Node& node, const FilterEvent& e)
{
    switch (node.kind) {
    case Node::Kind::Or:
        return std::any_of(node.children.begin(), node.children.end(),
            [&](const auto& c) { return evaluate(*c, e); });
    case Node::Kind::And:
        return std::all_of(node.children.begin(), node.children.end(),
            [&](const auto& c) { return evaluate(*c, e); });
    case Node::Kind::Not:
        return !evaluate(*node.children.front(), e);
    case Node::Kind::Condition:
        break;
    }
    switch (node.field) {
    case Field::Role:
        if (!e.role)
            return false;
        return node.op == Op::Equal ? *e.role == node.role : *e.role != node.role;
    case Field::Duration:
        return e.durationNs && compareDuration(node.op, *e.durationNs, node.durationNs);
    case Field::Name:
        return testTextMemo(node, e.name, e.nameKey);
    case Field::Category:
        return testTextMemo(node, e.category, e.categoryKey);
    case Field::Track:
        return testTextMemo(node, e.track, e.trackKey);
    }
    return false;
}

void clearMemos(const Node& node)
{
    node.memo.clear();
    for (const auto& child : node.children)
        clearMemos(*child);
}

void appendCanonical(std::string& out, const Node& node)
{
    switch (node.kind) {
    case Node::Kind::Or:
    case Node::Kind::And:
        out += '(';
        for (std::size_t i = 0; i < node.children.size(); ++i) {
            if (i > 0)
                out += node.kind == Node::Kind::Or ? " or " : " and ";
            appendCanonical(out, *node.children[i]);
        }
        out += ')';
        return;
    case Node::Kind::Not:
        out += "not ";
        appendCanonical(out, *node.children.front());
        return;
    case Node::Kind::Condition:
        break;
    }
    out += fieldName(node.field);
    out += ' ';
    out += opText(node.op);
    out += ' ';
    if (node.field == Field::Role)
        out += roleName(node.role);
    else if (node.field == Field::Duration)
        out += std::to_string(node.durationNs) + "ns";
    else
        out += "'" + node.value + "'";
}

}  // namespace

FilterExpression::FilterExpression(std::string text, std::unique_ptr<Node> root)
    : m_text(std::move(text))
    , m_root(std::move(root))
{}

FilterExpression FilterExpression::parse(std::string_view text)
{
    Parser parser(text);
    auto root = parser.parseAll();
    return FilterExpression(std::string(text), std::move(root));
}

FilterExpression::FilterExpression(const FilterExpression& other)
    : m_text(other.m_text)
    , m_root(other.m_root->clone())
{}

FilterExpression& FilterExpression::operator=(const FilterExpression& other)
{
    if (this != &other) {
        m_text = other.m_text;
        m_root = other.m_root->clone();
    }
    return *this;
}

FilterExpression::FilterExpression(FilterExpression&&) noexcept = default;
FilterExpression& FilterExpression::operator=(FilterExpression&&) noexcept = default;
FilterExpression::~FilterExpression() = default;

bool FilterExpression::matches(const FilterEvent& event) const
{
    return evaluate(*m_root, event);
}

std::string FilterExpression::canonical() const
{
    std::string out;
    appendCanonical(out, *m_root);
    return out;
}

void FilterExpression::clearMemo() const
{
    clearMemos(*m_root);
}

}  // namespace strata::model
