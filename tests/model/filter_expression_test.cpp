// Tests of the cut filter: how expressions are read (precedence shown by canonical()),
// what they match, and the column every kind of mistake is reported at.

#include "model/filter_expression.h"

#include <catch2/catch.hpp>

#include <string>

using namespace strata::model;

namespace {

FilterEvent interval(std::string_view name, std::string_view cat, Role role, TimeNs durationNs,
    std::string_view track = "node0/rank 0/python main")
{
    FilterEvent e;
    e.name = name;
    e.category = cat;
    e.role = role;
    e.durationNs = durationNs;
    e.track = track;
    return e;
}

bool matches(std::string_view text, const FilterEvent& e)
{
    return FilterExpression::parse(text).matches(e);
}

/// The column parse() reports for `text` (0 when it parses).
int errorColumn(std::string_view text)
{
    try {
        FilterExpression::parse(text);
    } catch (const FilterSyntaxError& e) {
        return e.column();
    }
    return 0;
}

std::string errorMessage(std::string_view text)
{
    try {
        FilterExpression::parse(text);
    } catch (const FilterSyntaxError& e) {
        return e.what();
    }
    return {};
}

}  // namespace

TEST_CASE("filter: not binds tighter than and, and tighter than or", "[filter]") {
    CHECK(FilterExpression::parse("role=comm or role=useful and dur>5ms").canonical()
        == "(role = comm or (role = useful and dur > 5000000ns))");
    CHECK(FilterExpression::parse("role=comm and role=useful or dur>5ms").canonical()
        == "((role = comm and role = useful) or dur > 5000000ns)");
    CHECK(FilterExpression::parse("not role=comm and name='a'").canonical()
        == "(not role = comm and name = 'a')");
    CHECK(FilterExpression::parse("not (role=comm and name='a')").canonical()
        == "not (role = comm and name = 'a')");
    CHECK(FilterExpression::parse("(role=comm or role=sync) and dur>=1us").canonical()
        == "((role = comm or role = sync) and dur >= 1000ns)");
    CHECK(FilterExpression::parse("NAME ~ x || !CAT == y && dur<2").canonical()
        == "(name ~ 'x' or (not cat = 'y' and dur < 2ns))");
    CHECK(FilterExpression::parse("not not role=idle").canonical() == "not not role = idle");
}

TEST_CASE("filter: precedence decides what matches", "[filter]") {
    const FilterEvent shortCompute = interval("gemm", "kernel", Role::Useful, 1'000'000);
    const FilterEvent longCompute = interval("gemm", "kernel", Role::Useful, 6'000'000);
    const FilterEvent allReduce = interval("ncclAllReduce", "kernel", Role::Comm, 100);
    const std::string expr = "role=comm or (role=useful and dur>5ms)";
    CHECK_FALSE(matches(expr, shortCompute));
    CHECK(matches(expr, longCompute));
    CHECK(matches(expr, allReduce));
    // Without the parentheses it reads the same; with them around the `or` it does not.
    CHECK(matches("role=comm or role=useful and dur>5ms", allReduce));
    CHECK_FALSE(matches("(role=comm or role=useful) and dur>5ms", allReduce));
}

TEST_CASE("filter: each field and operator", "[filter]") {
    const FilterEvent e = interval(
        "ncclKernel_AllReduce", "kernel", Role::Comm, 5'000'000, "node0/GPU 0 (rank 1)/stream 20");
    CHECK(matches("role=comm", e));
    CHECK(matches("role!=useful", e));
    CHECK_FALSE(matches("role=useful", e));
    CHECK(matches("cat=kernel", e));
    CHECK(matches("category == kernel", e));
    CHECK_FALSE(matches("cat=kern", e));
    CHECK(matches("cat~kern", e));
    CHECK(matches("cat!=cpu_op", e));
    CHECK(matches("name~'^nccl'", e));
    CHECK(matches("name~\"AllReduce$\"", e));
    CHECK_FALSE(matches("name~'^AllReduce'", e));
    CHECK(matches("name!~'^aten'", e));
    CHECK(matches("name='ncclKernel_AllReduce'", e));
    CHECK(matches("name~'nccl[A-Z]\\w+_'", e));  // backslashes reach the regex
    CHECK(matches("dur=5ms", e));
    CHECK(matches("dur>=5ms", e));
    CHECK(matches("dur<=5000us", e));
    CHECK_FALSE(matches("dur>5ms", e));
    CHECK_FALSE(matches("dur<5ms", e));
    CHECK(matches("dur!=4.999999ms", e));
    CHECK(matches("track~'rank 1\\)/stream'", e));
    CHECK_FALSE(matches("track~'rank 0'", e));
    CHECK(matches("ROLE=comm AND NOT dur>1s", e));
    CHECK(matches("name='it\\'s'", interval("it's", "", Role::Useful, 0)));
}

TEST_CASE("filter: a missing field fails every condition on it", "[filter]") {
    FilterEvent instant;
    instant.name = "marker";
    instant.durationNs = 0;
    CHECK_FALSE(matches("role=comm", instant));
    CHECK_FALSE(matches("role!=comm", instant));
    CHECK(matches("not role=comm", instant));
    CHECK(matches("dur<1ns", instant));
    FilterEvent noDuration;
    CHECK_FALSE(matches("dur>=0", noDuration));
}

TEST_CASE("filter: regex results are memoised per key", "[filter]") {
    const FilterExpression f = FilterExpression::parse("name~'^nccl'");
    FilterEvent a = interval("ncclAllReduce", "", Role::Comm, 1);
    a.nameKey = 7;
    CHECK(f.matches(a));
    // Same key, other text: the remembered answer is given (keys promise equal text).
    FilterEvent b = a;
    b.name = "gemm";
    CHECK(f.matches(b));
    f.clearMemo();
    CHECK_FALSE(f.matches(b));
    // Copies evaluate alike.
    const FilterExpression copy = f;
    CHECK_FALSE(copy.matches(b));
    b.nameKey = FilterEvent::kNoKey;
    CHECK_FALSE(copy.matches(b));
}

TEST_CASE("filter: every mistake is reported at its column", "[filter]") {
    CHECK(errorColumn("role=comm") == 0);
    CHECK(errorColumn("") == 1);
    CHECK(errorColumn("   ") == 4);
    CHECK(errorColumn("rol=comm") == 1);  // unknown field
    CHECK(errorMessage("rol=comm")
        == "column 1: unknown field 'rol' (expected role, cat, name, dur or track)");
    CHECK(errorColumn("role") == 5);  // no operator
    CHECK(errorColumn("role comm") == 6);
    CHECK(errorColumn("role=") == 6);  // no value
    CHECK(errorColumn("role=bogus") == 6);  // unknown role
    CHECK(errorMessage("role=bogus").find("unknown role 'bogus'") != std::string::npos);
    CHECK(errorColumn("role~comm") == 5);  // operator not for this field
    CHECK(errorColumn("role>comm") == 5);
    CHECK(errorColumn("dur~5ms") == 4);
    CHECK(errorColumn("name>x") == 5);
    CHECK(errorColumn("dur>5parsecs") == 5);  // bad duration
    CHECK(errorColumn("dur > ") == 7);
    CHECK(errorColumn("name~'[a-'") == 6);  // bad regex, at the value
    CHECK(errorMessage("name~'[a-'").find("bad regular expression") != std::string::npos);
    CHECK(errorColumn("name='abc") == 6);  // unterminated quote, at the quote
    CHECK(errorColumn("role=comm or") == 13);  // nothing after or
    CHECK(errorColumn("role=comm and ") == 15);
    CHECK(errorColumn("role=comm foo") == 11);  // neither and/or nor the end
    CHECK(errorColumn("(role=comm") == 11);  // unclosed (
    CHECK(errorMessage("(role=comm").find("to close the '(' at column 1") != std::string::npos);
    CHECK(errorColumn("role=comm)") == 10);  // stray )
    CHECK(errorColumn("role=comm or (role=useful and dur>)") == 35);
    CHECK(errorColumn("()") == 2);
    CHECK(errorColumn("not") == 4);
    CHECK(errorColumn("=comm") == 1);
}

TEST_CASE("filter: the caret line points at the column", "[filter]") {
    CHECK(FilterSyntaxError::caretLines("role=bogus", 6) == "role=bogus\n     ^");
    CHECK(FilterSyntaxError::caretLines("x", 1) == "x\n^");
}
