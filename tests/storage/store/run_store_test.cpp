// A run of shards (run_manifest.h, run_builder.h) reads exactly like the single store of
// the same trace, is built deterministically and published atomically, and a manifest
// that points out of its folder or at a damaged shard is refused with the shard's name.

#include "storage/store/builder_tag.h"
#include "storage/store/run_builder.h"
#include "storage/store/run_manifest.h"
#include "storage/store/shard_router.h"
#include "storage/store/sqlite_db.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "storage/store/store_schema.h"

#include "tests/support/random_trace.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

using namespace strata;

namespace {

std::string readBytes(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

const storage::MemoryTrace& threeNodes()
{
    static const storage::MemoryTrace trace = [] {
        storage::MemoryTrace t;
        test::RandomTraceOptions options;
        options.nodes = 3;
        options.intervalsPerThread = 2500;
        test::makeRandomTrace(options, t);
        return t;
    }();
    return trace;
}

void buildSingle(const storage::MemoryTrace& trace, const std::filesystem::path& path)
{
    storage::StoreBuilder builder(path);
    trace.replayInto(builder);
    builder.finish();
}

void buildRun(const storage::MemoryTrace& trace, const std::filesystem::path& path, int shards,
              storage::RunBuildOptions options = {})
{
    options.shards = shards;
    storage::RunBuilder run(path, options);
    storage::ShardRouter router(run, 1);
    trace.replayInto(router);
    run.finish();
}

/// Everything a view can ask of one track in a window, with ids spelled as text: stores
/// of the same trace intern strings and stacks in different orders.
std::string describe(storage::StoreReader& store, model::TrackId track, model::TimeRange w, int pixels)
{
    const auto& s = store.strings();
    auto stack = [&](model::StackId id) {
        std::string path;
        for (model::StringId f : store.stacks().path(id))
            path += std::string(s.text(f)) + ";";
        return path;
    };
    std::ostringstream out;
    const storage::TrackSlice slice = store.query({{track}, w.startNs, w.endNs, pixels}).front();
    out << "levels " << slice.intervalLevel << slice.instantLevel << slice.counterLevel << "\n";
    for (const model::Interval& e : slice.intervals)
        out << "I " << e.startNs << " " << e.endNs << " " << s.text(e.name) << " " << s.text(e.category) << " "
            << int(e.depth) << " " << e.seq << " " << store.intervalArgs(track, e) << "\n";
    for (const storage::IntervalCell& c : slice.cells)
        out << "C " << c.bucket << " " << int(c.depth) << " " << c.count << " " << c.longestStartNs << " "
            << (c.longestName == storage::kOtherNames ? "*" : s.text(c.longestName)) << "\n";
    for (const storage::Coverage& c : slice.entries)
        out << "E " << (c.name == storage::kOtherNames ? "*" : s.text(c.name)) << " " << c.coverageNs << "\n";
    for (const model::Instant& i : slice.instants)
        out << "i " << i.timeNs << " " << s.text(i.name) << "\n";
    for (const storage::InstantCell& c : slice.instantCells)
        out << "c " << c.bucket << " " << c.count << " " << s.text(c.firstName) << "\n";
    for (const model::CounterSample& c : slice.samples)
        out << "s " << c.timeNs << " " << c.value << "\n";
    for (const storage::CounterCell& c : slice.counterCells)
        out << "k " << c.bucket << " " << c.min << " " << c.max << " " << c.mean << "\n";
    for (const model::Flow& f : slice.flows)
        out << "f " << f.fromNs << " " << f.toTrack << " " << f.toNs << " " << s.text(f.name) << "\n";
    for (const model::StackSample& x : slice.stackSamples)
        out << "x " << x.timeNs << " " << stack(x.stack) << "\n";
    if (const auto levels = store.flameLevels(track)) {
        const model::StackTable paths = store.flamePaths(track);
        for (int level = levels->finest; level <= levels->coarsest; ++level) {
            for (const storage::FlameBucket& b : store.flameBuckets(track, level, 0, INT64_MAX)) {
                std::vector<std::string> entries;
                for (const storage::FlameEntry& e : b.entries) {
                    std::string path;
                    if (b.samples > 0) {
                        path = stack(e.path);
                    } else {
                        for (model::StringId f : paths.path(e.path))
                            path += std::string(s.text(f)) + ";";
                    }
                    entries.push_back(path + " " + std::to_string(e.weight));
                }
                std::sort(entries.begin(), entries.end());
                out << "F " << level << " " << b.bucket << " " << b.samples;
                for (const std::string& e : entries)
                    out << " " << e;
                out << "\n";
            }
        }
    }
    return out.str();
}

std::string describeStore(const storage::StoreReader& store)
{
    std::ostringstream out;
    out << "span " << store.span().startNs << " " << store.span().endNs << " activity "
        << store.activitySpan().startNs << " " << store.activitySpan().endNs << " levels " << store.grid().levels
        << "\n";
    for (const model::TrackInfo& t : store.resources().tracks()) {
        const storage::TrackSummary& s = store.summary(t.id);
        out << t.id << " " << t.parent << " " << int(t.kind) << " " << t.name << " " << t.sortKey << " " << t.unit
            << ": " << s.intervals << " " << s.instants << " " << s.counters << " " << s.flows << " " << s.samples
            << " " << s.firstNs << " " << s.lastNs << " " << s.maxDepth << "\n";
    }
    for (const auto& [category, totals] : store.categories())
        out << "category " << store.strings().text(category) << " " << totals.intervals << " " << totals.totalNs << "\n";
    return out.str();
}

} // namespace

TEST_CASE("a run of shards reads exactly like the single store of the same trace", "[store][run]")
{
    test::TempDir dir;
    buildSingle(threeNodes(), dir.path() / "one.strata");
    buildRun(threeNodes(), dir.path() / "run.strata", 3);
    storage::StoreReader one(dir.path() / "one.strata");
    storage::StoreReader run(dir.path() / "run.strata");
    REQUIRE(run.isRun());
    REQUIRE(run.shards().size() == 3);
    REQUIRE_FALSE(one.isRun());
    REQUIRE(one.shards().size() == 1);
    REQUIRE(describeStore(run) == describeStore(one));

    std::mt19937_64 rng(7);
    const model::TimeNs span = one.span().endNs;
    for (int i = 0; i < 60; ++i) {
        const auto track = static_cast<model::TrackId>(rng() % one.resources().size());
        const model::TimeNs a = static_cast<model::TimeNs>(rng() % span);
        const model::TimeNs width = i % 3 == 0 ? span : 1 + static_cast<model::TimeNs>(rng() % (span / 4));
        const model::TimeRange w {a - width / 2, a + width / 2 + 1};
        const int pixels = 100 + static_cast<int>(rng() % 1800);
        INFO("track " << track << " window " << w.startNs << ".." << w.endNs << " pixels " << pixels);
        REQUIRE(describe(run, track, w, pixels) == describe(one, track, w, pixels));
    }

    // One query over tracks of every shard, split over both cores.
    std::vector<model::TrackId> all;
    for (const model::TrackInfo& t : one.resources().tracks())
        all.push_back(t.id);
    const auto fromOne = one.query({all, 0, span, 1920});
    const auto fromRun = run.query({all, 0, span, 1920});
    REQUIRE(fromRun.size() == fromOne.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        REQUIRE(fromRun[i].track == all[i]);
        REQUIRE(fromRun[i].intervalLevel == fromOne[i].intervalLevel);
        REQUIRE(fromRun[i].intervals.size() == fromOne[i].intervals.size());
        REQUIRE(fromRun[i].cells.size() == fromOne[i].cells.size());
        REQUIRE(fromRun[i].counterCells.size() == fromOne[i].counterCells.size());
    }
}

TEST_CASE("a run is built deterministically: the same trace gives the same bytes", "[store][run]")
{
    test::TempDir a, b;
    buildRun(threeNodes(), a.path() / "run.strata", 2);
    buildRun(threeNodes(), b.path() / "run.strata", 2);
    REQUIRE(readBytes(a.path() / "run.strata") == readBytes(b.path() / "run.strata"));
    const storage::StoreReader ra(a.path() / "run.strata"), rb(b.path() / "run.strata");
    REQUIRE(ra.shards().size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        REQUIRE(ra.shards()[i].path.filename() == rb.shards()[i].path.filename());
        REQUIRE(readBytes(ra.shards()[i].path) == readBytes(rb.shards()[i].path));
    }
}

TEST_CASE("while a run's shard is tiled, the shards waiting for their turn hold no events", "[store][run]")
{
    test::TempDir dir;
    storage::RunBuilder* building = nullptr;
    std::vector<std::size_t> waitingHeld;  // what shards 1 and 2 hold while shard 0 is tiled
    storage::RunBuildOptions options;
    options.shards = 3;
    options.progress = [&](std::uint64_t done, std::uint64_t) {
        if (done == 1)
            waitingHeld = {building->shard(1).heldBytes(), building->shard(2).heldBytes()};
        return true;
    };
    storage::RunBuilder run(dir / "run.strata", options);
    building = &run;
    storage::ShardRouter router(run, 1);
    threeNodes().replayInto(router);
    REQUIRE(run.shard(2).heldBytes() > 100'000);  // the budget is far from full
    run.finish();
    REQUIRE(waitingHeld.size() == 2);
    CHECK(waitingHeld[0] < 1000);  // the empty strings' inline capacity, no events
    CHECK(waitingHeld[1] < 1000);
    // And the run is the one built without the spill (the determinism above).
    test::TempDir other;
    buildRun(threeNodes(), other / "run.strata", 3);
    CHECK(readBytes(dir / "run.strata") == readBytes(other / "run.strata"));
}

TEST_CASE("a failed or cancelled run build leaves nothing and keeps the old store", "[store][run]")
{
    test::TempDir dir;
    const auto target = dir.path() / "run.strata";
    buildRun(threeNodes(), target, 3);
    const std::string manifest = readBytes(target);
    std::vector<std::string> shards;
    {
        const storage::StoreReader old(target);
        for (const auto& s : old.shards())
            shards.push_back(readBytes(s.path));
    }
    auto files = [&] {
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path()))
            names.push_back(e.path().lexically_relative(dir.path()).string());
        std::sort(names.begin(), names.end());
        return names;
    };
    const auto before = files();

    // Another trace over it, failing at each phase: a shard's tiling, the publish, a cancel.
    storage::MemoryTrace other;
    test::RandomTraceOptions o;
    o.nodes = 3;
    o.seed = 99;
    test::makeRandomTrace(o, other);
    // Shards tiled one after another, and side by side (their workers sharing the cores:
    // those waiting for a core must give up when their shard fails).
    for (int failure = 0; failure < 8; ++failure) {
        INFO("failure " << failure);
        storage::RunBuildOptions options;
        options.concurrentShards = failure < 4 ? 1 : 3;
        if (failure % 4 < 2) {
            options.abortShard = failure % 4;  // the first shard, or one after a finished one
            options.abortAfterTiles = 5;
        } else if (failure % 4 == 2) {
            options.abortBeforeManifest = true;
        } else {
            options.progress = [](std::uint64_t done, std::uint64_t) { return done < 4; };
        }
        REQUIRE_THROWS(buildRun(other, target, 3, options));
        REQUIRE(files() == before);
        REQUIRE(readBytes(target) == manifest);
        storage::StoreReader kept(target);
        for (std::size_t i = 0; i < shards.size(); ++i)
            REQUIRE(readBytes(kept.shards()[i].path) == shards[i]);
    }

    // A good build replaces the run, and removes the old run's shards.
    buildRun(other, target, 2);
    storage::StoreReader replaced(target);
    REQUIRE(replaced.shards().size() == 2);
    std::size_t shardFiles = 0;
    for (const auto& e : std::filesystem::directory_iterator(storage::shardFolder(target)))
        shardFiles += e.is_regular_file() ? 1 : 0;
    REQUIRE(shardFiles == 2);
    // And any single store over a run (a cut, an ingest of one file) leaves no shard
    // folder behind.
    buildSingle(other, target);
    REQUIRE_FALSE(std::filesystem::exists(storage::shardFolder(target)));
    REQUIRE_FALSE(storage::StoreReader(target).isRun());
}

TEST_CASE("the leftovers of a killed run build go with the next build there", "[store][run]")
{
    test::TempDir dir;
    const auto target = dir.path() / "run.strata";
    const auto folder = storage::shardFolder(target);
    std::filesystem::create_directories(folder);
    // Process ids that cannot run (above pid_max) and one that does: our parent.
    const std::string dead = "4194999";
    const std::string alive = std::to_string(::getppid());
    for (const auto& name : {".shard-0000.tmp." + dead + ".strata", "..shard-0001.tmp." + dead + ".strata.spill." + dead,
                             ".shard-0000.tmp." + alive + ".strata"})
        std::ofstream(folder / name) << "partial";
    std::ofstream(dir.path() / (".run.strata.tmp." + dead)) << "partial";
    // A file Strata did not write there stays, whatever the folder's name says.
    std::ofstream(folder / "notes.txt") << "mine";
    std::ofstream(folder / ("notes.tmp." + dead)) << "mine";
    buildRun(threeNodes(), target, 2);
    REQUIRE_FALSE(std::filesystem::exists(folder / (".shard-0000.tmp." + dead + ".strata")));
    REQUIRE_FALSE(std::filesystem::exists(folder / ("..shard-0001.tmp." + dead + ".strata.spill." + dead)));
    REQUIRE_FALSE(std::filesystem::exists(dir.path() / (".run.strata.tmp." + dead)));
    REQUIRE(std::filesystem::exists(folder / (".shard-0000.tmp." + alive + ".strata")));
    REQUIRE(std::filesystem::exists(folder / "notes.txt"));
    REQUIRE(std::filesystem::exists(folder / ("notes.tmp." + dead)));
    // A single store over the run removes the run's shards, and only them.
    buildSingle(threeNodes(), target);
    std::vector<std::string> left;
    for (const auto& e : std::filesystem::directory_iterator(folder))
        left.push_back(e.path().filename().string());
    std::sort(left.begin(), left.end());
    REQUIRE(left == std::vector<std::string> {".shard-0000.tmp." + alive + ".strata", "notes.tmp." + dead, "notes.txt"});
}

TEST_CASE("leftovers of a build on another host go once no one writes them", "[store][run]")
{
    // An MPI build's ranks write shard temporaries from other nodes: their processes
    // cannot be asked, so a file idle for longer than a live build leaves one goes.
    test::TempDir dir;
    const auto target = dir.path() / "run.strata";
    const auto folder = storage::shardFolder(target);
    std::filesystem::create_directories(folder);
    const std::string idle = ".shard-0003.tmp.4242@othernode.strata";
    const std::string busy = ".shard-0004.tmp.4243@othernode.strata";
    const std::string here = ".shard-0005.tmp.4194999@" + storage::builderTag().substr(storage::builderTag().find('@') + 1) + ".strata";
    for (const auto& name : {idle, busy, here})
        std::ofstream(folder / name) << "partial";
    std::filesystem::last_write_time(folder / idle, std::filesystem::file_time_type::clock::now()
                                                        - storage::kForeignIdle - std::chrono::minutes(1));
    CHECK(storage::builderGone(folder / idle));
    CHECK_FALSE(storage::builderGone(folder / busy));
    CHECK(storage::builderGone(folder / here));  // this host: its process is gone
    CHECK_FALSE(storage::builderGone(folder / "shard-0000-0123456789ab.strata"));
    buildRun(threeNodes(), target, 2);
    CHECK_FALSE(std::filesystem::exists(folder / idle));
    CHECK(std::filesystem::exists(folder / busy));
    CHECK_FALSE(std::filesystem::exists(folder / here));
}

TEST_CASE("a missing, truncated or replaced shard is named in one clean error", "[store][run][bad]")
{
    test::TempDir dir;
    const auto target = dir.path() / "run.strata";
    buildRun(threeNodes(), target, 3);
    const std::filesystem::path shard = storage::StoreReader(target).shards()[1].path;
    const std::string bytes = readBytes(shard);
    const std::string name = shard.filename().string();

    std::filesystem::remove(shard);
    REQUIRE_THROWS_WITH(storage::StoreReader(target), Catch::Contains(name) && Catch::Contains("is missing"));

    std::ofstream(shard, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    REQUIRE_THROWS_WITH(storage::StoreReader(target), Catch::Contains(name) && Catch::Contains("truncated"));

    std::string altered = bytes;
    altered[altered.size() - 100] ^= 0x5A;
    std::ofstream(shard, std::ios::binary | std::ios::trunc) << altered;
    REQUIRE_THROWS_WITH(storage::StoreReader(target), Catch::Contains(name) && Catch::Contains("altered"));

    // Another run's shard of the same size in its place.
    buildRun(threeNodes(), dir.path() / "other.strata", 3);
    std::filesystem::copy_file(storage::StoreReader(dir.path() / "other.strata").shards()[0].path, shard,
                               std::filesystem::copy_options::overwrite_existing);
    REQUIRE_THROWS_WITH(storage::StoreReader(target), Catch::Contains(name));

    std::ofstream(shard, std::ios::binary | std::ios::trunc) << bytes;
    REQUIRE_NOTHROW(storage::StoreReader(target));
}

TEST_CASE("a shard's checksum is XXH3-64; a manifest's older FNV-1a checksums still verify",
    "[store][run][bad]") {
    test::TempDir dir;
    const auto empty = dir.path() / "empty";
    std::ofstream(empty, std::ios::binary).flush();
    CHECK(storage::fileChecksum(empty) == "xxh3:2d06800538d394c2");  // XXH3-64 of no bytes
    const auto a = dir.path() / "a";
    std::ofstream(a, std::ios::binary) << "a";
    CHECK(storage::fileHasChecksum(a, "af63dc4c8601ec8c"));  // FNV-1a 64 of "a"
    CHECK_FALSE(storage::fileHasChecksum(a, "af63dc4c8601ec8d"));
    CHECK_FALSE(storage::fileHasChecksum(a, storage::fileChecksum(empty)));

    // A run whose manifest lists its shards' FNV-1a checksums, as runs written before.
    const auto target = dir.path() / "run.strata";
    buildRun(threeNodes(), target, 2);
    storage::RunManifest manifest = [&] {
        storage::SqliteDb db(target, storage::SqliteDb::Mode::ReadOnly);
        return storage::readRunManifest(db, target);
    }();
    const auto old = dir.path() / "old.strata";
    std::filesystem::create_directory(dir.path() / "old.strata.d");
    for (storage::RunShard& s : manifest.shards) {
        const std::filesystem::path from = storage::shardFile(target, s.path);
        s.path = "old.strata.d/" + from.filename().string();
        std::filesystem::copy_file(from, storage::shardFile(old, s.path));
        REQUIRE(s.checksum.starts_with("xxh3:"));
        s.checksum = storage::textChecksum(readBytes(from));
    }
    storage::writeRunManifest(old, manifest);
    CHECK(storage::StoreReader(old).verifyShards() == 2);

    const std::filesystem::path shard = storage::shardFile(old, manifest.shards[1].path);
    std::string bytes = readBytes(shard);
    bytes[bytes.size() / 2] ^= 0x20;  // where the head checksum does not look
    std::ofstream(shard, std::ios::binary | std::ios::trunc) << bytes;
    const storage::StoreReader altered(old);
    REQUIRE_THROWS_WITH(altered.verifyShards(), Catch::Contains("is altered"));
}

TEST_CASE("a manifest whose shard paths leave its folder is refused", "[store][run][bad]")
{
    test::TempDir dir;
    const auto target = dir.path() / "run.strata";
    buildRun(threeNodes(), target, 2);
    std::filesystem::create_directories(dir.path() / "inner");
    std::filesystem::create_symlink(dir.path(), dir.path() / "inner" / "up");
    const std::string shard = storage::StoreReader(target).shards()[0].path.filename().string();
    // The copy lives in inner/, beside a link up to the folder holding the run.
    for (const std::string& path :
         {"../run.strata.d/" + shard, (dir.path() / "run.strata.d" / shard).string(),
          "x/../../run.strata.d/" + shard, "up/run.strata.d/" + shard}) {
        INFO(path);
        const auto copy = dir.path() / "inner" / "escape.strata";
        std::filesystem::remove(copy);
        storage::RunManifest manifest = [&] {
            storage::SqliteDb db(target, storage::SqliteDb::Mode::ReadOnly);
            return storage::readRunManifest(db, target);
        }();
        manifest.shards[0].path = path;
        storage::writeRunManifest(copy, manifest);
        REQUIRE_THROWS_WITH(storage::StoreReader(copy), Catch::Contains("outside the manifest's folder"));
    }
}

TEST_CASE("flows between the shards of a run read like the single store's", "[store][run][flows]") {
    storage::MemoryTrace talking;
    test::RandomTraceOptions o;
    o.nodes = 3;
    o.intervalsPerThread = 600;
    o.crossNodeFlowsPerThread = 150;
    o.seed = 17;
    test::makeRandomTrace(o, talking);
    test::TempDir dir;
    buildSingle(talking, dir.path() / "one.strata");
    buildRun(talking, dir.path() / "run.strata", 3);
    storage::StoreReader one(dir.path() / "one.strata");
    storage::StoreReader run(dir.path() / "run.strata");
    REQUIRE(run.shards().size() == 3);
    REQUIRE(run.meta("format_version") == "2");  // a manifest with foreign tracks
    REQUIRE(describeStore(run) == describeStore(one));

    // Every flow of the whole span, on every track, with its target in the run's ids.
    std::vector<model::TrackId> all;
    for (const model::TrackInfo& t : one.resources().tracks())
        all.push_back(t.id);
    const model::TimeNs span = one.span().endNs;
    const auto fromOne = one.query({ all, 0, span + 1, 1920 });
    const auto fromRun = run.query({ all, 0, span + 1, 1920 });
    const auto shardOf = [&](model::TrackId t) {
        std::size_t s = 0;
        while (s + 1 < run.shards().size() && run.shards()[s + 1].firstTrack <= t)
            ++s;
        return s;
    };
    std::size_t crossing = 0, flows = 0;
    const auto flowText = [](const storage::StoreReader& store,
                              const std::vector<model::Flow>& slice) {
        std::ostringstream out;
        for (const model::Flow& f : slice)
            out << f.fromNs << " " << f.toTrack << " " << f.toNs << " "
                << store.strings().text(f.name) << " " << f.sizeBytes << " " << f.tag << "\n";
        return out.str();
    };
    for (std::size_t i = 0; i < all.size(); ++i) {
        REQUIRE(flowText(run, fromRun[i].flows) == flowText(one, fromOne[i].flows));
        for (const model::Flow& f : fromRun[i].flows) {
            ++flows;
            crossing += shardOf(f.toTrack) != shardOf(all[i]) ? 1 : 0;
        }
    }
    REQUIRE(crossing >= 3 * 3 * 150);  // the cross-node flows, each between two shards
    REQUIRE(flows > crossing);

    std::mt19937_64 rng(11);
    for (int i = 0; i < 40; ++i) {
        const auto track = static_cast<model::TrackId>(rng() % one.resources().size());
        const model::TimeNs a = static_cast<model::TimeNs>(rng() % span);
        const model::TimeNs width = 1 + static_cast<model::TimeNs>(rng() % (span / 4));
        const model::TimeRange w { a - width / 2, a + width / 2 + 1 };
        const int pixels = 100 + static_cast<int>(rng() % 1800);
        INFO("track " << track << " window " << w.startNs << ".." << w.endNs << " pixels "
                      << pixels);
        REQUIRE(describe(run, track, w, pixels) == describe(one, track, w, pixels));
    }

    // A manifest that does not resolve its shards' foreign tracks (one written before
    // flows could cross shards, over such shards) is refused, naming the shard.
    std::filesystem::copy(dir.path() / "run.strata", dir.path() / "older.strata");
    std::filesystem::copy(dir.path() / "run.strata.d", dir.path() / "older.strata.d");
    {
        storage::SqliteDb older(dir.path() / "older.strata", storage::SqliteDb::Mode::Create);
        older.exec("UPDATE shards SET path = replace(path, 'run.strata.d', 'older.strata.d');"
                   "DELETE FROM shard_ids WHERE kind = 'foreign_tracks';"
                   "UPDATE meta SET value = '1' WHERE key = 'format_version'");
    }
    REQUIRE_THROWS_WITH(storage::StoreReader(dir.path() / "older.strata"),
        Catch::Contains("older.strata: shard older.strata.d/shard-0000-")
            && Catch::Contains("has flows to 6 tracks of other shards, the manifest resolves 0"));

    // A shard with flows to other shards is no store of its own.
    REQUIRE_THROWS_WITH(storage::StoreReader(run.shards()[0].path),
        Catch::Contains("a shard of a run, not a whole store")
            && Catch::Contains("open the run's manifest"));
}

TEST_CASE(
    "a run whose flows stay inside their shards keeps the formats it had", "[store][run][flows]") {
    test::TempDir dir;
    buildRun(threeNodes(), dir.path() / "run.strata", 3);
    const storage::StoreReader run(dir.path() / "run.strata");
    REQUIRE(run.meta("format_version") == "1");
    storage::SqliteDb shard(run.shards()[0].path, storage::SqliteDb::Mode::ReadOnly);
    auto version = shard.prepare("SELECT value FROM meta WHERE key = 'format_version'");
    REQUIRE(version.step());
    REQUIRE(version.text(0) == std::to_string(storage::kStoreFormatVersion));
    REQUIRE_FALSE(
        shard.prepare("SELECT 1 FROM sqlite_master WHERE name = 'foreign_tracks'").step());
}

TEST_CASE("a flow to a track the run does not have is refused when the run is published",
    "[store][run][flows][bad]") {
    test::TempDir dir;
    const auto target = dir.path() / "run.strata";
    storage::RunBuildOptions options;
    options.shards = 2;
    {
        storage::RunBuilder run(target, options);
        const auto a =
            run.shard(0).addTrack(model::kNoTrack, model::ResourceKind::Node, "node 0", 0);
        run.shard(1).addTrack(model::kNoTrack, model::ResourceKind::Node, "node 1", 1);
        const auto lost = run.shard(0).addForeignTrack({ { "node 1", 1 }, { "rank 7", 0 } });
        run.shard(0).addFlow(a, { 10, lost, 20, run.shard(0).intern("message"), 8, 0 });
        run.shard(1).addInterval(0, { 0, 30, run.shard(1).intern("work") });
        REQUIRE_THROWS_WITH(run.finish(),
            Catch::Contains("shard run.strata.d/shard-0000-")
                && Catch::Contains(
                    "a flow's target 'node 1 / rank 7' (sort key 0) is no track of the run"));
    }
    REQUIRE_FALSE(std::filesystem::exists(target));
    if (std::filesystem::exists(storage::shardFolder(target)))
        REQUIRE(std::filesystem::is_empty(storage::shardFolder(target)));
}
