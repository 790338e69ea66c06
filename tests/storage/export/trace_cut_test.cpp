// Tests of cutTrace on a tiny hand-made store whose every expected event is written out:
// clipping at both borders and its marks, zero-length intervals and instants on the
// borders, the counter value carried in to the window start, flows that keep or lose an
// end (by the window, the track selection or the filter), stack samples, track selection
// with ancestors, the filter, rebasing and meta.

#include "storage/export/trace_cut.h"

#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

using namespace strata;
using model::ResourceKind;
using model::TimeNs;
using model::TrackId;

namespace {

struct Tiny
{
    test::TempDir dir;
    std::filesystem::path store = dir / "tiny.strata";
};

/// node > proc > {thread1, thread2, counter "util", counter "exact"}.
void buildTiny(const std::filesystem::path& path)
{
    storage::StoreBuilder b(path);
    const TrackId node = b.addTrack(model::kNoTrack, ResourceKind::Node, "node0");
    const TrackId proc = b.addTrack(node, ResourceKind::Process, "rank 0");
    const TrackId t1 = b.addTrack(proc, ResourceKind::Thread, "thread1");
    const TrackId t2 = b.addTrack(proc, ResourceKind::Thread, "thread2");
    const TrackId util = b.addTrack(proc, ResourceKind::Counter, "util", 0, "%");
    const TrackId exact = b.addTrack(proc, ResourceKind::Counter, "exact");
    b.setMeta("origin_ns", "1000000");
    b.setMeta("source", "tiny");
    auto interval = [&](TrackId t, TimeNs s, TimeNs e, const char* name, model::Depth depth,
                        model::Role role = model::Role::Useful, std::string_view args = {}) {
        model::Interval i;
        i.startNs = s;
        i.endNs = e;
        i.name = b.intern(name);
        i.category = b.intern("cpu_op");
        i.depth = depth;
        i.role = role;
        b.addInterval(t, i, args);
    };
    interval(t1, 5, 30, "both", 0);
    interval(t1, 0, 15, "crossStart", 1, model::Role::Useful, R"({"k":1})");
    interval(t1, 12, 14, "inside", 2, model::Role::Comm);
    interval(t1, 18, 25, "crossEnd", 1, model::Role::Sync);
    interval(t1, 0, 10, "before", 1);  // ends at the window start: out
    interval(t1, 20, 22, "after", 1);  // starts at the window end: out
    interval(t1, 10, 10, "zeroAtStart", 3);  // in
    interval(t1, 20, 20, "zeroAtEnd", 3);  // out
    interval(t2, 11, 19, "t2work", 0);
    for (TimeNs t : { 9, 10, 19, 20 }) {
        model::Instant i;
        i.timeNs = t;
        i.name = b.intern("mark" + std::to_string(t));
        b.addInstant(t1, i, R"({"at":)" + std::to_string(t) + "}");
    }
    b.addCounterSample(util, { 0, 1.0 });
    b.addCounterSample(util, { 8, 2.0 });
    b.addCounterSample(util, { 15, 3.0 });
    b.addCounterSample(util, { 25, 4.0 });
    b.addCounterSample(exact, { 10, 7.0 });
    b.addCounterSample(exact, { 12, 8.0 });
    auto flow = [&](TrackId from, TimeNs f, TrackId to, TimeNs t) {
        model::Flow fl;
        fl.fromNs = f;
        fl.toTrack = to;
        fl.toNs = t;
        fl.name = b.intern("msg");
        fl.sizeBytes = 64;
        fl.tag = 3;
        b.addFlow(from, fl);
    };
    flow(t1, 11, t2, 12);  // kept
    flow(t1, 11, t2, 25);  // target after the window
    flow(t1, 5, t2, 12);  // source before the window
    const model::StackId s1 = b.internStack(0, b.intern("main"));
    const model::StackId s2 = b.internStack(s1, b.intern("work"));
    b.addStackSample(t2, { 9, s2 });
    b.addStackSample(t2, { 10, s2 });
    b.addStackSample(t2, { 19, s1 });
    b.finish();
}

using IntervalRow = std::tuple<TimeNs, TimeNs, std::string, int, model::Role, std::string>;

std::vector<IntervalRow> intervalsOf(const storage::MemoryTrace& trace, TrackId track)
{
    std::vector<IntervalRow> rows;
    const auto& t = trace.track(track);
    for (std::size_t i = 0; i < t.intervals.size(); ++i) {
        const auto& e = t.intervals[i];
        rows.emplace_back(e.startNs, e.endNs, std::string(trace.strings().text(e.name)), e.depth,
            e.role, t.intervalArgs[i]);
    }
    return rows;
}

TrackId trackNamed(const storage::MemoryTrace& trace, const std::string& name)
{
    for (const auto& t : trace.resources().tracks()) {
        if (t.name == name)
            return t.id;
    }
    FAIL("no track " << name);
    return model::kNoTrack;
}

storage::CutStats cut(
    const std::filesystem::path& store, storage::MemoryTrace& out, storage::CutOptions options)
{
    storage::StoreReader reader(store);
    return storage::cutTrace(reader, out, options);
}

}  // namespace

TEST_CASE("cut: a window clips crossing intervals and marks them", "[cut]") {
    Tiny tiny;
    buildTiny(tiny.store);
    storage::CutOptions options;
    options.window = model::TimeRange { 10, 20 };
    storage::MemoryTrace out;
    const storage::CutStats stats = cut(tiny.store, out, options);

    using model::Role;
    const std::vector<IntervalRow> want = {
        { 10, 15, "crossStart", 1, Role::Useful, R"({"k":1,"clipped":"start"})" },
        { 10, 20, "both", 0, Role::Useful, R"({"clipped":"both"})" },
        { 10, 10, "zeroAtStart", 3, Role::Useful, "" },
        { 12, 14, "inside", 2, Role::Comm, "" },
        { 18, 20, "crossEnd", 1, Role::Sync, R"({"clipped":"end"})" },
    };
    // (start, seq) order: "crossStart" began at 0, before "both" at 5.
    CHECK(intervalsOf(out, trackNamed(out, "thread1")) == want);
    CHECK(stats.intervals == 6);  // with t2work
    CHECK(stats.clippedAtStart == 2);
    CHECK(stats.clippedAtEnd == 2);
    CHECK(stats.filteredOut == 0);

    SECTION("instants on the start border are in, on the end border out, args kept") {
        const auto& instants = out.track(trackNamed(out, "thread1")).instants;
        REQUIRE(instants.size() == 2);
        CHECK(instants[0].timeNs == 10);
        CHECK(instants[1].timeNs == 19);
        CHECK(out.track(trackNamed(out, "thread1")).instantArgs[1] == R"({"at":19})");
    }
    SECTION("a counter starts with the value carried in, unless a sample is on the start") {
        using S = model::CounterSample;
        CHECK(out.track(trackNamed(out, "util")).counters
            == std::vector<S> { { 10, 2.0 }, { 15, 3.0 } });
        CHECK(out.track(trackNamed(out, "exact")).counters
            == std::vector<S> { { 10, 7.0 }, { 12, 8.0 } });
        CHECK(out.resources().track(trackNamed(out, "util")).unit == "%");
    }
    SECTION("flows whose both ends are inside survive") {
        const auto& flows = out.track(trackNamed(out, "thread1")).flows;
        REQUIRE(flows.size() == 1);
        CHECK(flows[0].fromNs == 11);
        CHECK(flows[0].toNs == 12);
        CHECK(flows[0].toTrack == trackNamed(out, "thread2"));
        CHECK(flows[0].sizeBytes == 64);
        CHECK(flows[0].tag == 3);
        CHECK(out.strings().text(flows[0].name) == "msg");
        CHECK(stats.flowsDropped == 1);  // the one from before the window is simply outside
    }
    SECTION("stack samples keep their stacks") {
        const auto& samples = out.track(trackNamed(out, "thread2")).samples;
        REQUIRE(samples.size() == 2);
        CHECK(samples[0].timeNs == 10);
        const auto& stacks = out.stacks();
        const auto work = stacks.at(samples[0].stack);
        CHECK(out.strings().text(work.frame) == "work");
        CHECK(out.strings().text(stacks.at(work.parent).frame) == "main");
        CHECK(out.strings().text(stacks.at(samples[1].stack).frame) == "main");
    }
    SECTION("meta: the source's, the cut's own, not the store's computed keys") {
        CHECK(out.meta().at("source") == "tiny");
        CHECK(out.meta().at("origin_ns") == "1000000");
        CHECK(out.meta().at("cut_window") == "10:20");
        CHECK(out.meta().at("cut_rebased") == "0");
        CHECK(out.meta().count("span_end_ns") == 0);
        CHECK(out.meta().count("format") == 0);
    }
}

TEST_CASE("cut: rebasing shifts every time and the origin by the window start", "[cut]") {
    Tiny tiny;
    buildTiny(tiny.store);
    storage::CutOptions options;
    options.window = model::TimeRange { 10, 20 };
    options.rebase = true;
    storage::MemoryTrace out;
    const auto stats = cut(tiny.store, out, options);
    CHECK(stats.shiftNs == 10);
    const auto rows = intervalsOf(out, trackNamed(out, "thread1"));
    REQUIRE(rows.size() == 5);
    CHECK(std::get<0>(rows[0]) == 0);
    CHECK(std::get<1>(rows[4]) == 10);
    CHECK(out.track(trackNamed(out, "util")).counters.front().timeNs == 0);
    CHECK(out.track(trackNamed(out, "thread1")).flows.at(0).fromNs == 1);
    CHECK(out.track(trackNamed(out, "thread1")).flows.at(0).toNs == 2);
    CHECK(out.track(trackNamed(out, "thread2")).samples.at(0).timeNs == 0);
    CHECK(out.meta().at("origin_ns") == "1000010");
    CHECK(out.meta().at("cut_rebased") == "1");
}

TEST_CASE("cut: without a window everything is kept and nothing clipped", "[cut]") {
    Tiny tiny;
    buildTiny(tiny.store);
    storage::MemoryTrace out;
    const auto stats = cut(tiny.store, out, {});
    CHECK(stats.intervals == 9);
    CHECK(stats.instants == 4);
    CHECK(stats.counterSamples == 6);
    CHECK(stats.flows == 3);
    CHECK(stats.stackSamples == 3);
    CHECK(stats.clippedAtStart + stats.clippedAtEnd == 0);
    CHECK(out.resources().size() == 6);
}

TEST_CASE("cut: the filter selects intervals and instants", "[cut]") {
    Tiny tiny;
    buildTiny(tiny.store);
    storage::CutOptions options;
    options.window = model::TimeRange { 10, 20 };
    storage::MemoryTrace out;

    SECTION("by name; counters, flows and samples follow the tracks") {
        options.filter = model::FilterExpression::parse("name~'^cross' or name=mark19");
        const auto stats = cut(tiny.store, out, options);
        const auto rows = intervalsOf(out, trackNamed(out, "thread1"));
        REQUIRE(rows.size() == 2);
        CHECK(std::get<2>(rows[0]) == "crossStart");
        CHECK(std::get<2>(rows[1]) == "crossEnd");
        CHECK(out.track(trackNamed(out, "thread1")).instants.size() == 1);
        CHECK(out.track(trackNamed(out, "thread2")).intervals.empty());
        CHECK(stats.filteredOut == 5);  // 4 intervals + 1 instant in the window
        CHECK(stats.counterSamples == 4);
        // The flow's target end lies in t2work, which the filter dropped.
        CHECK(stats.flows == 0);
    }
    SECTION("a flow survives when kept intervals cover both its ends") {
        options.filter = model::FilterExpression::parse("name=both or name=t2work");
        const auto stats = cut(tiny.store, out, options);
        CHECK(stats.flows == 1);
        CHECK(out.track(trackNamed(out, "thread1")).flows.size() == 1);
    }
    SECTION("by role and the full (unclipped) duration") {
        options.filter = model::FilterExpression::parse("role=comm or (role=useful and dur>=15ns)");
        cut(tiny.store, out, options);
        const auto rows = intervalsOf(out, trackNamed(out, "thread1"));
        REQUIRE(rows.size() == 3);
        CHECK(std::get<2>(rows[0]) == "crossStart");  // 15 ns long before clipping
        CHECK(std::get<2>(rows[1]) == "both");
        CHECK(std::get<2>(rows[2]) == "inside");
        CHECK(out.track(trackNamed(out, "thread1")).instants.empty());  // no role
    }
    SECTION("by track") {
        options.filter = model::FilterExpression::parse("track~'thread2$'");
        cut(tiny.store, out, options);
        CHECK(out.track(trackNamed(out, "thread1")).intervals.empty());
        CHECK(out.track(trackNamed(out, "thread2")).intervals.size() == 1);
        CHECK(out.track(trackNamed(out, "thread1")).flows.empty());  // its source was dropped
    }
}

TEST_CASE("cut: a track regex keeps the matching tracks and their ancestors", "[cut]") {
    Tiny tiny;
    buildTiny(tiny.store);
    storage::CutOptions options;
    options.tracks = "thread2";
    storage::MemoryTrace out;
    const auto stats = cut(tiny.store, out, options);
    REQUIRE(out.resources().size() == 3);
    CHECK(out.resources().path(2) == "node0/rank 0/thread2");
    CHECK(stats.intervals == 1);
    CHECK(stats.stackSamples == 3);
    CHECK(stats.counterSamples == 0);

    SECTION("flows to a dropped track are dropped") {
        options.tracks = "thread1";
        storage::MemoryTrace other;
        const auto s = cut(tiny.store, other, options);
        CHECK(s.flows == 0);
        CHECK(s.flowsDropped == 3);
    }
    SECTION("a bad regex is an error") {
        options.tracks = "thread[";
        storage::MemoryTrace other;
        CHECK_THROWS_AS(cut(tiny.store, other, options), std::invalid_argument);
    }
}

TEST_CASE("cut: progress reaches the total and can cancel", "[cut]") {
    Tiny tiny;
    buildTiny(tiny.store);
    storage::CutOptions options;
    std::uint64_t lastDone = 0, lastTotal = 0;
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
        CHECK(done <= total);
        lastDone = done;
        lastTotal = total;
        return true;
    };
    storage::MemoryTrace out;
    cut(tiny.store, out, options);
    CHECK(lastTotal == 25);
    CHECK(lastDone == lastTotal);
    options.progress = [](std::uint64_t, std::uint64_t) {
        return false;
    };
    storage::MemoryTrace other;
    CHECK_THROWS_AS(cut(tiny.store, other, options), storage::Cancelled);
}

TEST_CASE("cut: tracks come a root's subtree at a time, as from a run of shards", "[cut]") {
    // The tracks of two nodes interleaved, as an importer makes them (both nodes first,
    // then their threads, then a counter as its first sample comes): the cut sends
    // node A's subtree, then node B's, each in id order, as a run whose shards hold one
    // node each would have them.
    test::TempDir dir;
    const auto store = dir / "interleaved.strata";
    {
        storage::StoreBuilder b(store);
        const TrackId nodeA = b.addTrack(model::kNoTrack, ResourceKind::Node, "A");
        const TrackId nodeB = b.addTrack(model::kNoTrack, ResourceKind::Node, "B");
        const TrackId threadA = b.addTrack(nodeA, ResourceKind::Thread, "a1");
        const TrackId threadB = b.addTrack(nodeB, ResourceKind::Thread, "b1");
        const TrackId counterA = b.addTrack(threadA, ResourceKind::Counter, "a-counter");
        for (const TrackId t : { threadA, threadB }) {
            model::Interval i;
            i.startNs = 0;
            i.endNs = 10;
            i.name = b.intern("work");
            b.addInterval(t, i);
        }
        b.addCounterSample(counterA, { 5, 1.0 });
        b.finish();
    }
    storage::MemoryTrace out;
    cut(store, out, {});
    std::vector<std::string> order;
    for (const auto& t : out.resources().tracks())
        order.push_back(t.name);
    CHECK(order == std::vector<std::string> { "A", "a1", "a-counter", "B", "b1" });
}
