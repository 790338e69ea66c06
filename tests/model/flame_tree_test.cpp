// Tests of the flame graph's call tree (model/flame_tree.h) and the questions asked of it
// (model/flame_analysis.h). Trees are built from folded-stack text and compared printed as
// indented text (hotspot's habit), plus property tests on random folded files.

#include "model/flame_analysis.h"
#include "model/flame_tree.h"

#include <catch2/catch.hpp>

#include <random>
#include <sstream>
#include <string>

using namespace strata::model;

namespace {

/// A tree from folded text ("a;b;c 3" per line) through the sample builder, as the store
/// would give it: frames interned, each line one sample weighted by its count.
FlameTree treeFromFolded(const std::string& folded, FlameOrder order = FlameOrder::ByName)
{
    StringTable strings;
    StackTable stacks;
    std::vector<StackSample> samples;
    std::istringstream in(folded);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t space = line.rfind(' ');
        if (space == std::string::npos)
            continue;
        StackId stack = 0;
        std::istringstream frames(line.substr(0, space));
        std::string frame;
        while (std::getline(frames, frame, ';'))
            stack = stacks.add(stack, strings.intern(frame));  // duplicates: the builder merges by name
        samples.push_back({0, stack, static_cast<std::uint32_t>(std::stoul(line.substr(space + 1)))});
    }
    FlameTreeBuilder builder(strings, stacks);
    for (const StackSample& s : samples)
        builder.addSample(s);
    return builder.take(order);
}

/// "name total/self" per node, indented by depth, children in the tree's order.
std::string print(const FlameTree& tree, FlameNodeId id = FlameTree::kRoot)
{
    const FlameNode& n = tree.node(id);
    std::string out = std::string(2 * n.depth, ' ') + n.name + " " + std::to_string(n.total) + "/"
        + std::to_string(n.self) + "\n";
    for (FlameNodeId c : n.children)
        out += print(tree, c);
    return out;
}

void checkTotals(const FlameTree& tree)
{
    for (FlameNodeId i = 0; i < tree.size(); ++i) {
        std::int64_t children = 0;
        for (FlameNodeId c : tree.node(i).children)
            children += tree.node(c).total;
        REQUIRE(tree.node(i).total == tree.node(i).self + children);
    }
}

const char* kExample = "main;compute;matmul 5\n"
                       "main;compute 3\n"
                       "main;io;read 2\n"
                       "main;compute;matmul 1\n"
                       "init 4\n";

} // namespace

TEST_CASE("flame tree: paths merge, self and total per node, ordered by name or left heavy", "[flame]")
{
    const FlameTree byName = treeFromFolded(kExample);
    CHECK(print(byName) == "all 15/0\n"
                           "  init 4/4\n"
                           "  main 11/0\n"
                           "    compute 9/3\n"
                           "      matmul 6/6\n"
                           "    io 2/0\n"
                           "      read 2/2\n");
    CHECK(byName.sampleCount == 5);
    const FlameTree heavy = treeFromFolded(kExample, FlameOrder::LeftHeavy);
    CHECK(print(heavy).starts_with("all 15/0\n  main 11/0\n"));
    const FlameNodeId matmul = byName.find({"main", "compute", "matmul"});
    REQUIRE(matmul != kNoFlameNode);
    CHECK(byName.node(matmul).total == 6);
    CHECK(byName.pathTo(matmul).size() == 4);
    CHECK(byName.find({"main", "nothing"}) == kNoFlameNode);
}

TEST_CASE("flame tree: the total equals the sum of a folded file's counts (random files)", "[flame]")
{
    std::mt19937 rng(7);
    for (int round = 0; round < 50; ++round) {
        std::string folded;
        std::int64_t sum = 0;
        const int lines = 1 + static_cast<int>(rng() % 40);
        for (int l = 0; l < lines; ++l) {
            const int depth = 1 + static_cast<int>(rng() % 6);
            std::string path;
            for (int d = 0; d < depth; ++d)
                path += (d ? ";" : "") + std::string(1, static_cast<char>('a' + rng() % 4));
            const std::int64_t count = rng() % 1000;
            sum += count;
            folded += path + " " + std::to_string(count) + "\n";
        }
        const FlameTree tree = treeFromFolded(folded, round % 2 ? FlameOrder::LeftHeavy : FlameOrder::ByName);
        REQUIRE(tree.total() == sum);
        checkTotals(tree);
        // The differential of a tree with itself is neutral everywhere.
        const FlameDiff same = diffFlame(tree, tree);
        REQUIRE(same.tree.size() == tree.size());
        for (FlameNodeId i = 0; i < same.tree.size(); ++i)
            REQUIRE(same.change(i) == 0.0);
    }
}

TEST_CASE("flame tree from interval nesting: time clipped to the window, self excludes nested time", "[flame]")
{
    StringTable strings;
    const StringId a = strings.intern("step"), b = strings.intern("forward"), c = strings.intern("backward"),
                   d = strings.intern("aten::mm");
    // step [0,100) > forward [10,40) > aten::mm [15,20); step > backward [50,60); step [200,300)
    std::vector<Interval> intervals = {
        {0, 100, a, 0, 0}, {10, 40, b, 0, 1}, {15, 20, d, 0, 2}, {50, 60, c, 0, 1}, {200, 300, a, 0, 0}};
    StackTable stacks;
    FlameTreeBuilder whole(strings, stacks);
    whole.addTrackIntervals(intervals, 0, 1000);
    const FlameTree all = whole.take();
    CHECK(print(all) == "all 200/0\n"
                        "  step 200/160\n"
                        "    backward 10/10\n"
                        "    forward 30/25\n"
                        "      aten::mm 5/5\n");
    FlameTreeBuilder part(strings, stacks);
    part.addTrackIntervals(intervals, 30, 250);
    const FlameTree window = part.take();
    CHECK(print(window) == "all 120/0\n"
                           "  step 120/100\n"
                           "    backward 10/10\n"
                           "    forward 10/10\n"
                           "      aten::mm 0/0\n");
    checkTotals(window);
}

TEST_CASE("flame search: matched frames and their share, recursion counted once", "[flame]")
{
    const FlameTree tree = treeFromFolded("main;compute;compute;matmul 6\nmain;io 2\nother 2\n");
    const FlameSearch search = searchFlame(tree, "COMPUTE");
    CHECK(search.matchedTotal == 6);
    CHECK(search.share == Approx(0.6));
    CHECK(search.matched[tree.find({"main", "compute"})]);
    CHECK(search.matched[tree.find({"main", "compute", "compute"})]);
    CHECK_FALSE(search.matched[tree.find({"main", "io"})]);
    CHECK(searchFlame(tree, "").matchedTotal == 0);
    CHECK(searchFlame(tree, "nomatch").share == 0.0);
}

TEST_CASE("flame diff: growth and shrink as change of share", "[flame]")
{
    const FlameTree before = treeFromFolded("main;compute 5\nmain;io 5\n");
    const FlameTree after = treeFromFolded("main;compute 15\nmain;io 5\nmain;new 0\n");
    const FlameDiff diff = diffFlame(before, after);
    const FlameNodeId compute = diff.tree.find({"main", "compute"});
    const FlameNodeId io = diff.tree.find({"main", "io"});
    CHECK(diff.change(compute) == Approx(0.75 - 0.5));
    CHECK(diff.change(io) == Approx(0.25 - 0.5));
    CHECK(diff.change(FlameTree::kRoot) == 0.0);
    CHECK(diff.tree.total() == 20);  // the picture shows the new profile
    CHECK(diff.before[compute] == 5);
    CHECK(diff.after[compute] == 15);
    // A path present only before stays in the tree with no width.
    const FlameDiff back = diffFlame(after, before);
    CHECK(back.after[back.tree.find({"main", "new"})] == 0);
}

TEST_CASE("flame layout: zoomed frame spans the width, ancestors above, narrow boxes culled", "[flame]")
{
    const FlameTree tree = treeFromFolded(kExample);
    const std::vector<FlameBox> boxes = layoutFlame(tree, FlameTree::kRoot, 0.0);
    REQUIRE(boxes.size() == tree.size());
    CHECK(boxes[0].x0 == 0.0);
    CHECK(boxes[0].x1 == 1.0);
    const FlameNodeId compute = tree.find({"main", "compute"});
    const auto box = [&](const std::vector<FlameBox>& bs, FlameNodeId id) {
        for (const FlameBox& b : bs) {
            if (b.node == id)
                return b;
        }
        return FlameBox{};
    };
    // init [0, 4/15), main [4/15, 1), compute first under main.
    CHECK(box(boxes, compute).x0 == Approx(4.0 / 15));
    CHECK(box(boxes, compute).x1 == Approx(13.0 / 15));
    CHECK(box(boxes, compute).row == 2);
    const std::vector<FlameBox> zoomed = layoutFlame(tree, compute, 0.0);
    CHECK(box(zoomed, compute).x0 == 0.0);
    CHECK(box(zoomed, compute).x1 == 1.0);
    CHECK(box(zoomed, tree.find({"main"})).x1 == 1.0);  // ancestor, full width
    CHECK(box(zoomed, tree.find({"main", "compute", "matmul"})).x1 == Approx(6.0 / 9));
    CHECK(box(zoomed, tree.find({"init"})).node == kNoFlameNode);  // outside the zoom
    const std::vector<FlameBox> culled = layoutFlame(tree, FlameTree::kRoot, 0.2);
    CHECK(box(culled, tree.find({"main", "io"})).node == kNoFlameNode);  // 2/15 < 0.2
    CHECK(box(culled, tree.find({"main", "io", "read"})).node == kNoFlameNode);
}

TEST_CASE("flame callers and callees of a function, over every call path", "[flame]")
{
    const FlameTree tree = treeFromFolded("main;compute;matmul 5\nworker;compute;gemv 3\nworker;compute 1\n");
    const FrameCallers fc = callersAndCallees(tree, "compute");
    CHECK(fc.total == 9);
    CHECK(fc.self == 1);
    REQUIRE(fc.callers.size() == 2);
    CHECK(fc.callers[0].name == "main");
    CHECK(fc.callers[0].weight == 5);
    CHECK(fc.callers[1].name == "worker");
    CHECK(fc.callers[1].weight == 4);
    REQUIRE(fc.callees.size() == 2);
    CHECK(fc.callees[0].name == "matmul");
    CHECK(fc.callees[1].weight == 3);
}
