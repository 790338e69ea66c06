// The store keeps every event exactly, and the same input gives the same bytes.

#include "storage/store/sqlite_db.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "storage/synth/synthetic_trace.h"

#include "tests/support/random_trace.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>

using namespace strata;

namespace {

std::string readBytes(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

std::filesystem::path buildStore(const storage::MemoryTrace& trace,
    const std::filesystem::path& path, storage::StoreBuildOptions options = {},
    std::size_t* tiledInPieces = nullptr)
{
    storage::StoreBuilder builder(path, options);
    trace.replayInto(builder);
    builder.finish();
    if (tiledInPieces)
        *tiledInPieces = builder.tracksTiledInPieces();
    return path;
}

/// The trace as a producer with a late layout first sends it (trace_sink.h's
/// RevisableSink): every track a Group named "?", every time `deltaNs` later.
class Provisional : public storage::MemoryTrace
{
public:
    model::TrackId addTrack(model::TrackId parent, model::ResourceKind, std::string, std::int64_t,
        std::string unit) override
    {
        return MemoryTrace::addTrack(parent, model::ResourceKind::Group, "?", 0, std::move(unit));
    }

    void shift(model::TimeNs deltaNs)
    {
        for (model::TrackId id = 0; id < resources().size(); ++id) {
            storage::MemoryTrack& t = track(id);
            for (model::Interval& e : t.intervals) {
                e.startNs += deltaNs;
                e.endNs += deltaNs;
            }
            for (model::Instant& e : t.instants)
                e.timeNs += deltaNs;
            for (model::CounterSample& e : t.counters)
                e.timeNs += deltaNs;
            for (model::Flow& f : t.flows) {
                f.fromNs += deltaNs;
                f.toNs += deltaNs;
            }
            for (model::StackSample& e : t.samples)
                e.timeNs += deltaNs;
        }
    }
};

} // namespace

TEST_CASE("a build revised late (an import undone, tracks described and moved at the end) gives "
          "the store of the final trace",
    "[store][spill]") {
    storage::MemoryTrace trace;
    test::makeRandomTrace({ .seed = 29, .threads = 4, .intervalsPerThread = 4000 }, trace);
    Provisional provisional;
    trace.replayInto(provisional);
    const model::TimeNs deltaNs = 1'234'567'891;
    provisional.shift(deltaNs);
    test::TempDir dir;
    for (const std::size_t budget : { std::size_t(512) << 20, std::size_t(64) << 10 }) {
        INFO("memory budget " << budget);
        storage::StoreBuildOptions options;
        options.memoryBudgetBytes = budget;  // 64 KB: spills every ~1000 events
        const std::string expected = readBytes(buildStore(trace, dir / "expected.strata", options));

        storage::StoreBuilder builder(dir / "revised.strata", options);
        storage::RevisableSink& revisable = *builder.revisable();
        const storage::RevisableSink::Mark empty = revisable.mark();
        provisional.replayInto(builder);  // an import, undone
        CHECK(builder.eventCount() == trace.eventCount());
        revisable.rollback(empty);
        CHECK(builder.eventCount() == 0);
        CHECK(builder.resources().size() == 0);
        CHECK(builder.strings().size() == 1);

        provisional.replayInto(builder);  // read again; described and moved at the end
        for (const model::TrackInfo& info : trace.resources().tracks())
            revisable.describeTrack(info.id, info.kind, info.name, info.sortKey);
        revisable.shiftTracks(0, static_cast<model::TrackId>(builder.resources().size()), -deltaNs);
        builder.finish();
        CHECK(readBytes(dir / "revised.strata") == expected);
    }
}

TEST_CASE("events written then read back are identical", "[store]")
{
    storage::MemoryTrace trace;
    test::makeRandomTrace({}, trace);
    test::TempDir dir;
    storage::StoreReader reader(buildStore(trace, dir / "t.strata"));

    REQUIRE(reader.resources().tracks() == trace.resources().tracks());
    REQUIRE(reader.meta("origin_ns") == "1700000000000000000");
    const model::TimeNs end = reader.span().endNs + 1;
    for (const model::TrackInfo& info : trace.resources().tracks()) {
        const storage::MemoryTrack& expected = trace.track(info.id);
        // Intervals: in (start, arrival) order, every field and the args.
        std::vector<std::size_t> order(expected.intervals.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return expected.intervals[a].startNs < expected.intervals[b].startNs;
        });
        const auto got = reader.intervals(info.id, 0, end);
        REQUIRE(got.size() == expected.intervals.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            const model::Interval& want = expected.intervals[order[i]];
            CHECK(got[i].startNs == want.startNs);
            CHECK(got[i].endNs == want.endNs);
            CHECK(reader.strings().text(got[i].name) == trace.strings().text(want.name));
            CHECK(reader.strings().text(got[i].category) == trace.strings().text(want.category));
            CHECK(got[i].depth == want.depth);
            CHECK(got[i].role == want.role);
            CHECK(got[i].seq == order[i]);
            if (i % 7 == 0)
                CHECK(reader.intervalArgs(info.id, got[i]) == expected.intervalArgs[order[i]]);
        }
        // Everything else through an exact viewport query (one pixel per nanosecond).
        const auto slice = reader.query({{info.id}, 0, end, static_cast<int>(std::min<model::TimeNs>(end, 1 << 30))})[0];
        auto instants = expected.instants;
        std::stable_sort(instants.begin(), instants.end(), [](auto& a, auto& b) { return a.timeNs < b.timeNs; });
        REQUIRE(slice.instants.size() == instants.size());
        for (std::size_t i = 0; i < instants.size(); ++i) {
            CHECK(slice.instants[i].timeNs == instants[i].timeNs);
            CHECK(reader.strings().text(slice.instants[i].name) == trace.strings().text(instants[i].name));
        }
        auto counters = expected.counters;
        std::stable_sort(counters.begin(), counters.end(), [](auto& a, auto& b) { return a.timeNs < b.timeNs; });
        CHECK(slice.samples == counters);
        auto flows = expected.flows;
        std::stable_sort(flows.begin(), flows.end(), [](auto& a, auto& b) { return a.fromNs < b.fromNs; });
        REQUIRE(slice.flows.size() == flows.size());
        for (std::size_t i = 0; i < flows.size(); ++i) {
            CHECK(slice.flows[i].toNs == flows[i].toNs);
            CHECK(slice.flows[i].toTrack == flows[i].toTrack);
            CHECK(slice.flows[i].sizeBytes == flows[i].sizeBytes);
            CHECK(slice.flows[i].tag == flows[i].tag);
        }
        CHECK(slice.stackSamples.size() == expected.samples.size());
    }
}

TEST_CASE("the same input gives a byte-identical store", "[store]")
{
    storage::MemoryTrace trace;
    test::makeRandomTrace({.seed = 7}, trace);
    test::TempDir dir;
    storage::StoreBuildOptions oneThread;
    oneThread.threads = 1;
    const std::string a = readBytes(buildStore(trace, dir / "a.strata"));
    const std::string b = readBytes(buildStore(trace, dir / "b.strata", oneThread));
    REQUIRE(a.size() > 1000);
    CHECK(a == b);

    storage::MemoryTrace other;
    test::makeRandomTrace({.seed = 8}, other);
    CHECK(readBytes(buildStore(other, dir / "c.strata")) != a);
}

TEST_CASE("a build that spills to disk gives the same store as one in memory", "[store][spill]")
{
    storage::MemoryTrace trace;
    test::makeRandomTrace({.seed = 17, .threads = 4, .intervalsPerThread = 20000}, trace);
    test::TempDir dir;
    const std::string inMemory = readBytes(buildStore(trace, dir / "memory.strata"));
    storage::StoreBuildOptions tight;
    tight.memoryBudgetBytes = 64 << 10;  // spills every ~1000 events
    const std::string spilled = readBytes(buildStore(trace, dir / "spilled.strata", tight));
    CHECK(spilled == inMemory);
    // Only the two stores remain: no spill or temporary file.
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) == 2);
}

TEST_CASE("a failed build leaves no file and keeps the old store", "[store]")
{
    storage::MemoryTrace trace;
    test::makeRandomTrace({}, trace);
    test::TempDir dir;
    const auto path = buildStore(trace, dir / "run.strata");
    const std::string before = readBytes(path);

    storage::MemoryTrace changed;
    test::makeRandomTrace({.seed = 99}, changed);
    storage::StoreBuildOptions abortEarly;
    abortEarly.abortAfterTiles = 5;
    REQUIRE_THROWS_WITH(buildStore(changed, path, abortEarly), Catch::Contains("aborted"));
    CHECK(readBytes(path) == before);
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) == 1);
    CHECK_NOTHROW(storage::StoreReader(path));

    // A cancel from the progress callback cleans up the same way.
    storage::StoreBuildOptions cancel;
    cancel.progress = [](std::uint64_t done, std::uint64_t) { return done < 2; };
    CHECK_THROWS(buildStore(changed, dir / "new.strata", cancel));
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) == 1);

    // Also when it had spilled to disk.
    cancel.memoryBudgetBytes = 64 << 10;
    CHECK_THROWS(buildStore(changed, dir / "new.strata", cancel));
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) == 1);
}

TEST_CASE("a build that tiles its tracks in pieces leaves no piece file, failed or not",
    "[store][spill][pieces]") {
    storage::MemoryTrace trace;
    test::makeRandomTrace({ .seed = 19, .threads = 2, .intervalsPerThread = 20000 }, trace);
    test::TempDir dir;
    const std::string whole = readBytes(buildStore(trace, dir / "whole.strata"));
    storage::StoreBuildOptions pieces;
    pieces.memoryBudgetBytes = 64 << 10;
    pieces.pieceBytes = 4 << 10;
    std::size_t inPieces = 0;
    CHECK(readBytes(buildStore(trace, dir / "pieces.strata", pieces, &inPieces)) == whole);
    CHECK(inPieces >= 2);  // both threads' tracks at least
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) == 2);

    // A failure while the tracks are tiled (the writer takes each as it is done) and a
    // cancel: the pieces' spill files go with the build.
    pieces.abortAfterTiles = 5;
    CHECK_THROWS(buildStore(trace, dir / "failed.strata", pieces));
    pieces.abortAfterTiles = -1;
    pieces.progress = [](std::uint64_t done, std::uint64_t) {
        return done < 2;
    };
    CHECK_THROWS(buildStore(trace, dir / "cancelled.strata", pieces));
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) == 2);
}

TEST_CASE("a track of flows alone is tiled in pieces as if held whole", "[store][spill][pieces]") {
    // Flows out of time order, some of one start (stable order), across spilled segments:
    // the pieces take them by start, and FlowCutter cuts the same tiles.
    storage::MemoryTrace trace;
    const auto process = trace.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank 0");
    const auto from = trace.addTrack(process, model::ResourceKind::Thread, "sender");
    const auto to = trace.addTrack(process, model::ResourceKind::Thread, "receiver");
    trace.addInterval(to, { .startNs = 0, .endNs = 10, .name = trace.intern("recv") });
    std::uint64_t state = 7;
    for (int i = 0; i < 60'000; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const model::TimeNs at = static_cast<model::TimeNs>((state >> 33) % 50'000'000) / 4 * 4;
        trace.addFlow(from,
            { .fromNs = at,
                .toTrack = to,
                .toNs = at + 1000,
                .name = trace.intern(i % 3 ? "send" : "put"),
                .tag = i });
    }
    test::TempDir dir;
    storage::StoreBuildOptions whole;
    whole.memoryBudgetBytes = 64 << 10;
    whole.pieceBytes = std::size_t(1) << 30;
    storage::StoreBuildOptions pieces = whole;
    pieces.pieceBytes = 16 << 10;  // ~180 pieces
    std::size_t inPieces = 0;
    std::size_t wholeInPieces = 0;
    CHECK(readBytes(buildStore(trace, dir / "pieces.strata", pieces, &inPieces))
        == readBytes(buildStore(trace, dir / "whole.strata", whole, &wholeInPieces)));
    CHECK(inPieces == 1);  // the sender's flows: the path this case is for
    CHECK(wholeInPieces == 0);
    const storage::StoreReader reader(dir / "pieces.strata");
    CHECK(reader.summary(from).flows == 60'000);
}

TEST_CASE(
    "a track of stack samples is tiled in pieces as if held whole", "[store][spill][pieces]") {
    // Samples out of time order, many at one time (their stable order counts), of a few
    // dozen stacks with weights, across spilled segments: the pieces give the same exact
    // tiles and the same flame pyramid (sample_flame_summarizer.h) as the track held whole.
    // With intervals on the track or not (the pyramid is the samples' either way).
    const bool withIntervals = GENERATE(false, true);
    storage::MemoryTrace trace;
    const auto process = trace.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank 0");
    const auto thread = trace.addTrack(process, model::ResourceKind::Thread, "main");
    std::vector<model::StackId> stacks;
    for (int i = 0; i < 40; ++i) {
        const model::StackId parent = i < 4 ? 0 : stacks[static_cast<std::size_t>(i / 4 - 1)];
        stacks.push_back(trace.internStack(parent, trace.intern("f" + std::to_string(i))));
    }
    std::uint64_t state = 11;
    const auto next = [&state](std::uint64_t n) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (state >> 33) % n;
    };
    for (int i = 0; i < 80'000; ++i) {
        const auto at = static_cast<model::TimeNs>(next(40'000'000) / 16 * 16);
        trace.addStackSample(thread,
            { .timeNs = at,
                .stack = stacks[next(stacks.size())],
                .weight = static_cast<std::uint32_t>(1 + next(3)) });
    }
    if (withIntervals) {
        for (int i = 0; i < 2'000; ++i)
            trace.addInterval(thread,
                { .startNs = i * 20'000,
                    .endNs = i * 20'000 + 5'000,
                    .name = trace.intern("step") });
    }
    test::TempDir dir;
    storage::StoreBuildOptions whole;
    whole.memoryBudgetBytes = 64 << 10;
    whole.pieceBytes = std::size_t(1) << 30;
    storage::StoreBuildOptions pieces = whole;
    pieces.pieceBytes = 16 << 10;
    std::size_t inPieces = 0;
    std::size_t wholeInPieces = 0;
    CHECK(readBytes(buildStore(trace, dir / "pieces.strata", pieces, &inPieces))
        == readBytes(buildStore(trace, dir / "whole.strata", whole, &wholeInPieces)));
    CHECK(inPieces == 1);  // the samples' track: the path this case is for
    CHECK(wholeInPieces == 0);
    storage::StoreReader reader(dir / "pieces.strata");
    CHECK(reader.summary(thread).samples == 80'000);
    const auto levels = reader.flameLevels(thread);
    REQUIRE(levels);  // a pyramid was built, and it is the samples'
    CHECK(reader.flamePaths(thread).size() <= 1);
}

TEST_CASE("a store of a small trace is not padded out to SQLite's fixed cost", "[store]") {
    // At 4 KiB pages every table and index took a page: 57 KB for a ping-pong of four
    // messages (issue 16, store size <= gzip of the trace).
    storage::MemoryTrace trace;
    const auto process = trace.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank 0");
    const auto thread = trace.addTrack(process, model::ResourceKind::Thread, "main");
    for (int i = 0; i < 4; ++i)
        trace.addInterval(thread,
            { .startNs = i * 1000, .endNs = i * 1000 + 500, .name = trace.intern("MPI_Send") });
    test::TempDir dir;
    const auto path = buildStore(trace, dir / "small.strata");
    CHECK(std::filesystem::file_size(path) <= 16 << 10);
    storage::StoreReader reader(path);
    CHECK(reader.intervals(thread, 0, 10'000).size() == 4);
}

TEST_CASE("a store's pages hold its payloads with little space left unused", "[store]") {
    // At 4 KiB pages a payload a little longer than what fits a page left the rest of it
    // empty: a fifth of this synthetic store was unused space (issue 16).
    storage::MemoryTrace trace;
    storage::SynthOptions options;
    options.events = 200'000;
    options.ranks = 4;
    storage::generateSyntheticTrace(options, trace);
    test::TempDir dir;
    const auto path = buildStore(trace, dir / "synth.strata");
    storage::SqliteDb db(path, storage::SqliteDb::Mode::ReadOnly);
    std::int64_t payloads = 0;
    for (const char* table : { "tiles", "tile_index", "flame_bucket_groups", "flame_paths" }) {
        auto q = db.prepare(std::string("SELECT coalesce(sum(length(payload)), 0) FROM ") + table);
        REQUIRE(q.step());
        payloads += q.int64(0);
    }
    const auto size = static_cast<std::int64_t>(std::filesystem::file_size(path));
    INFO(size << " bytes holding " << payloads << " bytes of payloads");
    REQUIRE(size > (1 << 20));
    CHECK(size * 100 <= payloads * 120);
}

TEST_CASE("a store whose path holds URI delimiters opens by any path", "[store]")
{
    // Published stores are opened through an SQLite URI (immutable=1): '%', '?' and '#'
    // in a folder or file name must reach the file system as they are.
    storage::MemoryTrace trace;
    test::makeRandomTrace({ .seed = 5, .threads = 2, .intervalsPerThread = 200 }, trace);
    test::TempDir dir;
    const std::filesystem::path folder = dir / "50% of runs?#1 (copy)";
    std::filesystem::create_directories(folder);
    const auto path = buildStore(trace, folder / "a%41b#?.strata");
    storage::StoreReader reader(path);
    CHECK(reader.resources().tracks() == trace.resources().tracks());
    const auto cwd = std::filesystem::current_path();
    std::filesystem::current_path(folder);
    CHECK(storage::StoreReader("a%41b#?.strata").resources().tracks().size()
          == trace.resources().tracks().size());
    std::filesystem::current_path(cwd);
    // A name that differs only where an unescaped URI would be read differently is not
    // found: "%41" stays three characters, not "A".
    CHECK_THROWS_AS(storage::StoreReader(folder / "aAb#?.strata"), storage::StoreError);
}

TEST_CASE(
    "exact tiles after a band's first keep their own args, and flows their order", "[store]") {
    // The tiler reuses one tile's columns for the next (their memory kept): a column not
    // emptied would give a later tile the rows of an earlier one. Flows that come in time
    // order are not sorted again; out of order, a sort keeps the arrival order of ties.
    storage::MemoryTrace trace;
    const auto process = trace.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank 0");
    const auto thread = trace.addTrack(process, model::ResourceKind::Thread, "main");
    const auto peer = trace.addTrack(process, model::ResourceKind::Thread, "peer");
    const auto name = trace.intern("work");
    constexpr int kShort = 1300;  // three exact tiles of the shortest band
    std::vector<std::string> args;
    for (int i = 0; i < kShort; ++i) {
        // Args on every third event of the first tile, on one event of the later ones.
        args.push_back(
            i < 512 ? (i % 3 == 0 ? "a" + std::to_string(i) : "") : (i == 900 ? "late" : ""));
        trace.addInterval(
            thread, { .startNs = i * 100, .endNs = i * 100 + 10, .name = name }, args.back());
        // A longer band between them: its tiles are cut apart from the short ones'.
        if (i % 2 == 0)
            trace.addInterval(thread,
                { .startNs = i * 100 + 20, .endNs = i * 100 + 20 + 5000, .name = name },
                "long" + std::to_string(i));
    }
    // Flows: 600 in time order, then 600 that go back in time with ties (tag = arrival).
    std::vector<model::Flow> sent;
    for (int i = 0; i < 1200; ++i) {
        const model::TimeNs from = i < 600 ? i * 50 : (1200 - i) / 2 * 100;
        sent.push_back({ from, peer, from + 7, name, 8, i });
        trace.addFlow(thread, sent.back());
    }
    test::TempDir dir;
    storage::StoreReader reader(buildStore(trace, dir / "t.strata"));

    const auto got = reader.intervals(thread, 0, kShort * 100 + 10'000);
    int shortSeen = 0;
    for (const model::Interval& e : got) {
        if (e.durationNs() == 10) {
            REQUIRE(e.startNs == shortSeen * 100);
            CHECK(reader.intervalArgs(thread, e) == args[shortSeen]);
            ++shortSeen;
        } else {
            CHECK(
                reader.intervalArgs(thread, e) == "long" + std::to_string((e.startNs - 20) / 100));
        }
    }
    CHECK(shortSeen == kShort);

    const auto slice = reader.query({ { thread }, 0, 200'000, 200'000 })[0];
    std::stable_sort(
        sent.begin(), sent.end(), [](auto& a, auto& b) { return a.fromNs < b.fromNs; });
    REQUIRE(slice.flows.size() == sent.size());
    for (std::size_t i = 0; i < sent.size(); ++i) {
        CHECK(slice.flows[i].fromNs == sent[i].fromNs);
        CHECK(slice.flows[i].tag == sent[i].tag);
    }
}
