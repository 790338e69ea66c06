// The flame pyramid (storage/store/flame_summarizer.h, storage/analysis/flame_query.h): flame graphs
// merged from pre-aggregated buckets equal the exact walk over every event, for random
// traces and windows, real perf samples, improperly nested tracks and stores written
// before the pyramid existed. Regression tests for issue #7.
#include "model/flame_tree.h"
#include "storage/analysis/flame_query.h"
#include "storage/import/stacks/perf_script_importer.h"
#include "storage/store/byte_io.h"
#include "storage/store/flame_codec.h"
#include "storage/store/memory_trace.h"
#include "storage/store/sqlite_db.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"

#include "tests/support/random_trace.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <limits>
#include <map>
#include <random>
#include <string>

using namespace strata;
using model::TimeNs;

namespace {

/// Every node as "a;b;c" -> (self, total). Interval trees leave out nodes of zero weight
/// (flame_query.h: the only nodes where the pyramid may differ from the walk).
std::map<std::string, std::pair<std::int64_t, std::int64_t>> flatten(
    const model::FlameTree& tree, bool dropZero)
{
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> out;
    std::vector<std::string> paths(tree.size());
    for (model::FlameNodeId id = 0; id < tree.size(); ++id) {
        const model::FlameNode& n = tree.node(id);
        paths[id] = id == 0 ? n.name : paths[n.parent] + ";" + n.name;
        if (dropZero && n.total == 0 && n.self == 0)
            continue;
        out[paths[id]] = { n.self, n.total };
    }
    return out;
}

void build(const storage::MemoryTrace& trace, const std::filesystem::path& store)
{
    storage::StoreBuildOptions options;
    options.flame.minEvents = 0;  // small test traces get a pyramid too,
    options.flame.minCompression = 1;  // even where it saves nothing
    options.flame.minEventsPerBucket = 1;
    storage::StoreBuilder builder(store, options);
    trace.replayInto(builder);
    builder.finish();
}

/// A store of test::makeRandomTrace's default trace (pyramids on its nested tracks).
std::filesystem::path buildRandomStore(const std::filesystem::path& store)
{
    storage::MemoryTrace trace;
    test::makeRandomTrace({}, trace);
    build(trace, store);
    return store;
}

model::FlameTree flame(storage::StoreReader& reader, TimeNs startNs, TimeNs endNs, bool pyramid)
{
    storage::FlameRequest request;
    request.startNs = startNs;
    request.endNs = endNs;
    request.usePyramid = pyramid;
    request.exactBelowEvents = 0;  // small test traces: the pyramid even for few events
    return storage::buildFlameTree(reader, request);
}

/// Random stack samples on two threads: 300 stacks up to 8 frames deep, bursts and
/// silences, weights 0..1000.
void makeSampleTrace(std::uint64_t seed, int samplesPerThread, storage::MemoryTrace& trace)
{
    std::mt19937_64 rng(seed);
    auto below = [&](std::uint64_t n) {
        return static_cast<std::int64_t>(rng() % n);
    };
    const auto process = trace.addTrack(model::kNoTrack, model::ResourceKind::Process, "app");
    std::vector<model::StackId> stacks { 0 };
    for (int i = 0; i < 300; ++i) {
        const model::StackId parent = stacks[static_cast<std::size_t>(below(stacks.size()))];
        if (trace.stacks().size() > 1 && below(8) == 0)
            continue;
        stacks.push_back(trace.internStack(parent, trace.intern("f" + std::to_string(below(40)))));
    }
    for (int thread = 0; thread < 2; ++thread) {
        const auto track = trace.addTrack(process, model::ResourceKind::Thread,
            "thread " + std::to_string(thread), thread, "cycles");
        TimeNs t = 0;
        for (int i = 0; i < samplesPerThread; ++i) {
            t += below(50) == 0 ? below(20'000'000) : below(40'000);
            const auto weight = static_cast<std::uint32_t>(below(10) == 0 ? 0 : below(1001));
            trace.addStackSample(
                track, { t, stacks[static_cast<std::size_t>(below(stacks.size()))], weight });
        }
    }
}

/// Random windows over [0, spanNs): tiny to wider than the trace, some on bucket borders.
std::vector<model::TimeRange> randomWindows(std::uint64_t seed, TimeNs spanNs, int count)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0, 1);
    std::vector<model::TimeRange> out { { 0, 0 } };  // the whole run
    for (int i = 0; i < count; ++i) {
        TimeNs start = static_cast<TimeNs>(unit(rng) * 1.1 * spanNs) - spanNs / 20;
        const auto length = static_cast<TimeNs>(std::exp(unit(rng) * std::log(1.2 * spanNs)));
        if (i % 5 == 0)
            start = start / 65536 * 65536;  // on a border of the coarser levels
        out.push_back({ start, start + std::max<TimeNs>(1, length) });
    }
    return out;
}

void checkPlanTiles(
    const storage::StoreReader& reader, model::TrackId track, model::TimeRange window)
{
    const auto levels = reader.flameLevels(track);
    REQUIRE(levels);
    const storage::FlameWindowPlan plan = storage::planFlameWindow(reader.grid(), *levels, window);
    std::vector<model::TimeRange> pieces = plan.exact;
    for (const storage::FlameRun& run : plan.runs) {
        const TimeNs w = reader.grid().bucketNs(run.level);
        CHECK(run.firstBucket < run.endBucket);
        pieces.push_back({ run.firstBucket * w, run.endBucket * w });
    }
    std::sort(pieces.begin(), pieces.end(),
        [](const model::TimeRange& a, const model::TimeRange& b) { return a.startNs < b.startNs; });
    REQUIRE(!pieces.empty());
    CHECK(pieces.front().startNs == window.startNs);
    CHECK(pieces.back().endNs == window.endNs);
    for (std::size_t i = 1; i < pieces.size(); ++i)
        CHECK(pieces[i].startNs == pieces[i - 1].endNs);
    // Segment-tree shape: per level at most one middle run or one run per side.
    CHECK(plan.runs.size() <= 2 * static_cast<std::size_t>(levels->coarsest - levels->finest + 1));
}

}  // namespace

TEST_CASE("Flame pyramid of nested intervals equals the exact walk", "[flame][pyramid]") {
    test::TempDir tmp;
    for (std::uint64_t seed : { 3u, 17u, 101u }) {
        INFO("seed " << seed);
        storage::MemoryTrace trace;
        test::RandomTraceOptions options;
        options.seed = seed;
        test::makeRandomTrace(options, trace);
        for (model::TrackId t : { 2, 3, 4 })
            trace.track(t).samples.clear();  // so that flame graphs use interval nesting
        const auto store = tmp / ("intervals" + std::to_string(seed) + ".strata");
        build(trace, store);
        storage::StoreReader reader(store);
        const std::vector<model::TrackId> threads { 2, 3, 4 };
        for (model::TrackId t : threads)
            REQUIRE(reader.flameLevels(t));  // the random trace nests properly
        int merged = 0;
        for (const model::TimeRange& w : randomWindows(seed, options.spanNs, 60)) {
            INFO("window [" << w.startNs << ", " << w.endNs << ")");
            const model::FlameTree exact = flame(reader, w.startNs, w.endNs, false);
            const model::FlameTree fast = flame(reader, w.startNs, w.endNs, true);
            REQUIRE(exact.unit == "ns");
            CHECK(fast.total() == exact.total());
            CHECK(flatten(fast, true) == flatten(exact, true));
            if (w.startNs != w.endNs) {
                checkPlanTiles(reader, threads[0], w);
                merged +=
                    !storage::planFlameWindow(reader.grid(), *reader.flameLevels(threads[0]), w)
                         .runs.empty();
            }
        }
        CHECK(merged > 20);  // most windows did use stored buckets
    }
}

TEST_CASE("Flame pyramid of stack samples equals the exact walk exactly", "[flame][pyramid]") {
    test::TempDir tmp;
    for (std::uint64_t seed : { 5u, 42u }) {
        INFO("seed " << seed);
        storage::MemoryTrace trace;
        makeSampleTrace(seed, 20000, trace);
        const auto store = tmp / ("samples" + std::to_string(seed) + ".strata");
        build(trace, store);
        storage::StoreReader reader(store);
        REQUIRE(reader.flameLevels(1));
        REQUIRE(reader.flameLevels(2));
        for (const model::TimeRange& w : randomWindows(seed, reader.span().endNs, 60)) {
            INFO("window [" << w.startNs << ", " << w.endNs << ")");
            const model::FlameTree exact = flame(reader, w.startNs, w.endNs, false);
            const model::FlameTree fast = flame(reader, w.startNs, w.endNs, true);
            CHECK(fast.unit == "cycles");
            CHECK(fast.sampleCount == exact.sampleCount);
            CHECK(fast.total() == exact.total());
            // Zero-weight samples included: every node, exactly.
            CHECK(flatten(fast, false) == flatten(exact, false));
        }
    }
}

TEST_CASE("Whole-run flame graph of real perf samples from the pyramid", "[flame][pyramid][real]") {
    const auto path = test::realTrace("public/perf-flamegraph/example-perf-stacks.txt.gz");
    if (path.empty() || !std::filesystem::exists(path))
        return;
    storage::MemoryTrace trace;
    const storage::PerfImportStats stats = storage::importPerfScript(path, trace);
    REQUIRE(stats.samples == 1315);  // README: samples, all event=cycles, no period
    test::TempDir tmp;
    build(trace, tmp / "perf.strata");
    storage::StoreReader reader(tmp / "perf.strata");
    bool anyPyramid = false;
    for (model::TrackId t = 0; t < reader.resources().size(); ++t)
        anyPyramid = anyPyramid || reader.flameLevels(t).has_value();
    CHECK(anyPyramid);
    const model::FlameTree fast = flame(reader, 0, 0, true);
    CHECK(fast.total() == 1315);
    CHECK(fast.sampleCount == 1315);
    CHECK(flatten(fast, false) == flatten(flame(reader, 0, 0, false), false));
    // A mid-zoom window: the middle third of the run.
    const model::TimeRange span = reader.span();
    const TimeNs third = span.durationNs() / 3;
    CHECK(flatten(flame(reader, span.startNs + third, span.endNs - third, true), false)
        == flatten(flame(reader, span.startNs + third, span.endNs - third, false), false));
}

TEST_CASE("Improperly nested tracks get no pyramid and keep the exact walk", "[flame][pyramid]") {
    storage::MemoryTrace trace;
    const auto track = trace.addTrack(model::kNoTrack, model::ResourceKind::Thread, "t");
    const model::StringId a = trace.intern("a"), b = trace.intern("b");
    for (TimeNs t = 0; t < 400'000; t += 1000) {
        trace.addInterval(track, { t, t + 600, a, 0, model::kAutoDepth });
        // Starts inside `a` and outlives it: depth 1 by containment, but not contained.
        trace.addInterval(track, { t + 500, t + 900, b, 0, model::kAutoDepth });
    }
    test::TempDir tmp;
    build(trace, tmp / "overlap.strata");
    storage::StoreReader reader(tmp / "overlap.strata");
    CHECK_FALSE(reader.flameLevels(track));
    const model::FlameTree tree = flame(reader, 100'250, 300'750, true);
    CHECK(flatten(tree, false) == flatten(flame(reader, 100'250, 300'750, false), false));
    CHECK(tree.find({ "a", "b" }) != model::kNoFlameNode);
}

TEST_CASE(
    "Stores written before the flame pyramid fall back to the exact walk", "[flame][pyramid]") {
    test::TempDir tmp;
    const auto store = buildRandomStore(tmp / "old.strata");
    std::vector<model::FlameTree> before;
    const std::vector<model::TimeRange> windows { { 0, 0 }, { 1'000'000, 31'000'000 },
        { 7, 40'000'001 } };
    {
        storage::StoreReader reader(store);
        REQUIRE(reader.flameLevels(2));
        for (const model::TimeRange& w : windows)
            before.push_back(flame(reader, w.startNs, w.endNs, true));
    }
    {
        storage::SqliteDb db(store, storage::SqliteDb::Mode::Create);
        db.exec("DROP TABLE flame_levels; DROP TABLE flame_paths; DROP TABLE flame_bucket_groups;");
    }
    storage::StoreReader reader(store);
    for (model::TrackId t = 0; t < reader.resources().size(); ++t)
        CHECK_FALSE(reader.flameLevels(t));
    for (std::size_t i = 0; i < windows.size(); ++i) {
        const model::FlameTree old = flame(reader, windows[i].startNs, windows[i].endNs, true);
        CHECK(flatten(old, false)
            == flatten(flame(reader, windows[i].startNs, windows[i].endNs, false), false));
        CHECK(flatten(old, true) == flatten(before[i], true));
    }
}

TEST_CASE("Flame bucket and path payloads round-trip and reject damage", "[flame][pyramid]") {
    storage::FlameBucket bucket { 0, 12, { { 0, 5 }, { 3, -7 }, { 9, 0 }, { 400000, 1LL << 40 } } };
    const std::string payload = storage::encodeFlameBucket(bucket);
    CHECK(storage::decodeFlameBucket(payload) == bucket);
    CHECK_THROWS_AS(
        storage::decodeFlameBucket(payload.substr(0, payload.size() - 3)), storage::CorruptTile);

    model::StackTable paths;
    paths.add(paths.add(0, 4), 7);
    paths.add(0, 9);
    const model::StackTable back = storage::decodeFlamePaths(storage::encodeFlamePaths(paths));
    REQUIRE(back.size() == paths.size());
    for (model::StackId id = 1; id < paths.size(); ++id) {
        CHECK(back.parent(id) == paths.parent(id));
        CHECK(back.frame(id) == paths.frame(id));
    }
    CHECK_THROWS_AS(
        storage::decodeFlamePaths(payload), storage::CorruptTile);  // a bucket, not paths
}

TEST_CASE("Flame bucket groups keep their buckets, give those of a range, and reject damage",
    "[flame][pyramid]") {
    using storage::kFlameBucketsPerGroup;
    const storage::FlameBucket a { 0, 3, { { 1, 10 } } };
    const storage::FlameBucket b { 0, 0, { { 2, -4 }, { 7, 9 } } };
    const storage::FlameBucket c { 0, 5, { { 4, 1 } } };
    // Group -2 holds buckets [-128, -64): negative buckets floor to their group.
    const std::int64_t group = -2;
    const std::int64_t first = group * kFlameBucketsPerGroup;
    CHECK(storage::flameGroup(first) == group);
    CHECK(storage::flameGroup(first + kFlameBucketsPerGroup - 1) == group);
    CHECK(storage::flameGroup(first - 1) == group - 1);
    storage::ByteWriter row;
    storage::appendToFlameGroup(row, first, storage::encodeFlameBucket(a));
    storage::appendToFlameGroup(row, first + 5, storage::encodeFlameBucket(b));
    storage::appendToFlameGroup(row, first + 63, storage::encodeFlameBucket(c));
    const std::string bytes = row.bytes();

    std::vector<storage::FlameBucket> all;
    storage::decodeFlameGroup(bytes, group, first, first + kFlameBucketsPerGroup, all);
    REQUIRE(all.size() == 3);
    CHECK(all[0].bucket == first);
    CHECK(all[1].bucket == first + 5);
    CHECK(all[2].bucket == first + 63);
    CHECK(all[0].entries == a.entries);
    CHECK(all[1].entries == b.entries);
    CHECK(all[2].samples == 5);

    std::vector<storage::FlameBucket> some { a };  // appended to what is there
    storage::decodeFlameGroup(bytes, group, first + 1, first + 63, some);
    REQUIRE(some.size() == 2);
    CHECK(some[1].bucket == first + 5);

    std::vector<storage::FlameBucket> none;
    CHECK_THROWS_AS(storage::decodeFlameGroup("", group, first, 0, none), storage::CorruptTile);
    CHECK_THROWS_AS(
        storage::decodeFlameGroup(bytes.substr(0, bytes.size() - 1), group, first, 0, none),
        storage::CorruptTile);
    storage::ByteWriter descending;  // a bucket before the one ahead of it
    storage::appendToFlameGroup(descending, first + 5, storage::encodeFlameBucket(b));
    storage::appendToFlameGroup(descending, first, storage::encodeFlameBucket(a));
    CHECK_THROWS_AS(
        storage::decodeFlameGroup(descending.bytes(), group, first, 0, none), storage::CorruptTile);
    storage::ByteWriter twice;  // the same bucket twice
    storage::appendToFlameGroup(twice, first, storage::encodeFlameBucket(a));
    storage::appendToFlameGroup(twice, first, storage::encodeFlameBucket(a));
    CHECK_THROWS_AS(
        storage::decodeFlameGroup(twice.bytes(), group, first, 0, none), storage::CorruptTile);
    storage::ByteWriter outside;  // an offset past the group
    outside.varint(kFlameBucketsPerGroup);
    outside.string(storage::encodeFlameBucket(a));
    CHECK_THROWS_AS(
        storage::decodeFlameGroup(outside.bytes(), group, first, 0, none), storage::CorruptTile);
}

TEST_CASE("Stores of format version 6, a row per flame bucket, give the same flame graphs",
    "[flame][pyramid]") {
    test::TempDir tmp;
    const auto store = buildRandomStore(tmp / "v6.strata");
    const std::vector<model::TimeRange> windows { { 0, 0 }, { 1'000'000, 31'000'000 },
        { 7, 40'000'001 } };
    std::vector<model::FlameTree> before;
    {
        storage::StoreReader reader(store);
        REQUIRE(reader.flameLevels(2));
        for (const model::TimeRange& w : windows)
            before.push_back(flame(reader, w.startNs, w.endNs, true));
    }
    {
        // The groups' buckets a row each, as format version 6 wrote them.
        storage::SqliteDb db(store, storage::SqliteDb::Mode::Create);
        db.exec("CREATE TABLE flame_buckets(track INTEGER NOT NULL, level INTEGER NOT NULL,"
                " bucket INTEGER NOT NULL, payload BLOB NOT NULL,"
                " PRIMARY KEY(track, level, bucket)) WITHOUT ROWID");
        auto insert = db.prepare("INSERT INTO flame_buckets VALUES(?,?,?,?)");
        std::int64_t rows = 0;
        for (auto q = db.prepare("SELECT track, level, grp, payload FROM flame_bucket_groups");
             q.step();) {
            std::vector<storage::FlameBucket> buckets;
            storage::decodeFlameGroup(q.blob(3), q.int64(2),
                std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                buckets);
            for (const storage::FlameBucket& b : buckets) {
                insert.bind(1, q.int64(0))
                    .bind(2, q.int64(1))
                    .bind(3, b.bucket)
                    .bindBlob(4, storage::encodeFlameBucket(b))
                    .run();
                ++rows;
            }
        }
        CHECK(rows > 2 * storage::kFlameBucketsPerGroup);  // groups of several buckets
        db.exec("DROP TABLE flame_bucket_groups;"
                " UPDATE meta SET value = '6' WHERE key = 'format_version'");
    }
    storage::StoreReader reader(store);
    REQUIRE(reader.flameLevels(2));
    for (std::size_t i = 0; i < windows.size(); ++i) {
        const model::FlameTree old = flame(reader, windows[i].startNs, windows[i].endNs, true);
        CHECK(flatten(old, true) == flatten(before[i], true));
        CHECK(flatten(old, false)
            == flatten(flame(reader, windows[i].startNs, windows[i].endNs, false), false));
    }
}

TEST_CASE("A damaged flame bucket group fails the flame query with the store's name",
    "[flame][pyramid]") {
    test::TempDir tmp;
    const auto store = buildRandomStore(tmp / "damaged.strata");
    {
        storage::SqliteDb db(store, storage::SqliteDb::Mode::Create);
        // Offset 64 lies past its group: the row's first bucket is out of it.
        db.exec("UPDATE flame_bucket_groups SET payload = x'40' || substr(payload, 2)");
    }
    storage::StoreReader reader(store);
    REQUIRE(reader.flameLevels(2));
    try {
        flame(reader, 0, 0, true);
        FAIL("a damaged group was read");
    } catch (const storage::StoreError& e) {
        CHECK_THAT(e.what(),
            Catch::Contains("damaged.strata") && Catch::Contains("corrupted flame bucket"));
    }
}
