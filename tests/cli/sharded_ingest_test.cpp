// `strata ingest` of several trace files as a run of shards built by parallel workers
// (issue 16): the run answers info, metrics, render and cut exactly as the single store
// of the same files, is byte-identical from one build to the next, and a bad file among
// them leaves no run behind and the old store intact.

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <regex>

using namespace strata;

namespace {

/// Ingests `inputs` into DIR/run.strata with `--shards N`, checks the answers of the
/// commands against the same ingest into one store.
void checkShardedEqualsSingle(const std::vector<std::string>& inputs, int shards)
{
    test::TempDir one, many;
    std::vector<std::string> args { "ingest" };
    args.insert(args.end(), inputs.begin(), inputs.end());
    args.insert(args.end(), { "-o", "run.strata", "--threads", "2" });
    auto argsFor = [&](int n) {
        auto a = args;
        a.insert(a.end(), { "--shards", std::to_string(n) });
        return a;
    };
    test::RunOptions inOne, inMany;
    inOne.workDir = one.path();
    inMany.workDir = many.path();
    const auto single = test::runStrata(argsFor(1), inOne);
    const auto sharded = test::runStrata(argsFor(shards), inMany);
    REQUIRE(single.exitCode == 0);
    REQUIRE(sharded.exitCode == 0);
    // The same warnings, in the same order; the last line (sizes, time) differs.
    auto warnings = [](const std::string& err) {
        return err.substr(0, err.rfind("ingested "));
    };
    CHECK(warnings(sharded.err) == warnings(single.err));

    const std::string infoMany = test::runStrataIn(many.path(), { "info", "run.strata", "--json" });
    CHECK(std::regex_search(infoMany,
        std::regex("\"shards\":\\[(\\{[^}]*\\},){" + std::to_string(shards - 1) + "}\\{")));
    CHECK(test::infoFigures(infoMany)
        == test::infoFigures(test::runStrataIn(one.path(), { "info", "run.strata", "--json" })));
    CHECK(test::runStrataIn(many.path(), { "info", "run.strata" })
              .find("shards       " + std::to_string(shards))
        != std::string::npos);
    CHECK(test::runStrataIn(many.path(), { "metrics", "run.strata", "--json" })
        == test::runStrataIn(one.path(), { "metrics", "run.strata", "--json" }));
    CHECK(test::runStrataIn(many.path(), { "metrics", "run.strata", "--level", "thread" })
        == test::runStrataIn(one.path(), { "metrics", "run.strata", "--level", "thread" }));
    for (const auto* dir : { &one, &many }) {
        test::runStrataIn(dir->path(), { "cut", "run.strata", "-o", "cut.json" });
        test::runStrataIn(
            dir->path(), { "render", "run.strata", "--view", "flame", "-o", "flame.svg" });
    }
    CHECK(test::readFile(many / "cut.json") == test::readFile(one / "cut.json"));
    CHECK(test::readFile(many / "flame.svg") == test::readFile(one / "flame.svg"));
}

}  // namespace

TEST_CASE(
    "ingest: synthetic rank files as a run of shards answer like one store", "[cli][shards]") {
    test::TempDir dir;
    checkShardedEqualsSingle(test::synthRankFiles(dir.path(), 3), 3);
}

TEST_CASE("ingest: the real 4-rank DDP files as 2 and 4 shards answer like one store",
    "[cli][shards][real]") {
    std::vector<std::string> ranks;
    for (int r = 0; r < 4; ++r) {
        const auto rank = test::realTrace("h100/kineto_ddp_rank" + std::to_string(r) + ".json.gz");
        if (rank.empty())
            return;  // the shared real-trace folder is not here
        ranks.push_back(rank.string());
    }
    checkShardedEqualsSingle(ranks, 4);
    checkShardedEqualsSingle(ranks, 2);
}

TEST_CASE("ingest: a sharded build is byte-identical from one run to the next", "[cli][shards]") {
    test::TempDir dir;
    const auto inputs = test::synthRankFiles(dir.path(), 2);
    for (const char* out : { "a", "b" }) {
        std::filesystem::create_directories(dir / out);
        test::runStrataIn(
            dir / out, { "ingest", inputs[0], inputs[1], "-o", "run.strata", "--shards", "2" });
    }
    CHECK(test::readFile(dir / "a" / "run.strata") == test::readFile(dir / "b" / "run.strata"));
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir / "a" / "run.strata.d")) {
        names.push_back(e.path().filename().string());
        CHECK(test::readFile(e.path())
            == test::readFile(dir / "b" / "run.strata.d" / e.path().filename()));
    }
    CHECK(names.size() == 2);
}

TEST_CASE("ingest: a bad file among sharded inputs leaves no run and keeps the old one",
    "[cli][shards][bad]") {
    test::TempDir dir;
    auto inputs = test::synthRankFiles(dir.path(), 3);
    test::runStrataIn(dir.path(),
        { "ingest", inputs[0], inputs[1], inputs[2], "-o", "run.strata", "--shards", "3" });
    const std::string manifest = test::readFile(dir / "run.strata");
    auto listing = [&] {
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path()))
            names.push_back(e.path().lexically_relative(dir.path()).string());
        std::sort(names.begin(), names.end());
        return names;
    };
    const auto before = listing();

    // The middle file holds no event: an error, found by one worker while others import.
    std::ofstream(dir / "bad.json", std::ios::binary) << R"({"traceEvents": []})";
    const auto failed = test::runStrata({ "ingest", inputs[0], (dir / "bad.json").string(),
        inputs[2], "-o", (dir / "run.strata").string(), "--shards", "3" });
    CHECK(failed.exitCode == 1);
    CHECK(failed.err.find("no events in " + (dir / "bad.json").string()) != std::string::npos);
    auto after = listing();
    after.erase(std::remove(after.begin(), after.end(), "bad.json"), after.end());
    CHECK(after == before);
    CHECK(test::readFile(dir / "run.strata") == manifest);
    test::runStrataIn(dir.path(), { "info", "run.strata" });
}

TEST_CASE("ingest: a sharded build killed mid-write keeps the old run; the next build clears its "
          "leftovers",
    "[cli][shards][bad]") {
    test::TempDir dir;
    const auto inputs = test::synthRankFiles(dir.path(), 3);
    test::runStrataIn(dir.path(),
        { "ingest", inputs[0], inputs[1], inputs[2], "-o", "run.strata", "--shards", "3" });
    const std::string manifest = test::readFile(dir / "run.strata");

    // A file-size limit below a shard's size: the kernel kills the build (SIGXFSZ) in the
    // middle of writing a shard, as a kill -9 would, with no chance to clean up.
    test::RunOptions limited;
    limited.workDir = dir.path();
    limited.wrapper = "prlimit --fsize=150000";
    const auto killed = test::runStrata(
        { "ingest", inputs[2], inputs[1], inputs[0], "-o", "run.strata", "--shards", "3" },
        limited);
    CHECK(killed.exitCode != 0);
    CHECK(test::readFile(dir / "run.strata") == manifest);
    test::runStrataIn(dir.path(), { "info", "run.strata" });
    auto leftovers = [&] {
        int n = 0;
        for (const auto& folder : { dir.path(), dir / "run.strata.d" }) {
            for (const auto& e : std::filesystem::directory_iterator(folder))
                n += e.path().filename().string().find(".tmp.") != std::string::npos;
        }
        return n;
    };
    CHECK(leftovers() > 0);

    test::runStrataIn(dir.path(),
        { "ingest", inputs[2], inputs[1], inputs[0], "-o", "run.strata", "--shards", "3" });
    CHECK(leftovers() == 0);
    CHECK(test::readFile(dir / "run.strata") != manifest);
    std::size_t shards = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir / "run.strata.d"))
        shards += e.is_regular_file() ? 1 : 0;
    CHECK(shards == 3);
}

TEST_CASE("info --verify finds a shard altered where opening does not look", "[cli][shards][bad]") {
    test::TempDir dir;
    auto inputs = test::synthRankFiles(dir.path(), 2);
    test::runStrataIn(
        dir.path(), { "ingest", inputs[0], inputs[1], "-o", "run.strata", "--shards", "2" });
    CHECK(test::runStrataIn(dir.path(), { "info", "run.strata", "--verify" })
              .find("verified     2 shards match")
        != std::string::npos);

    // Same size, same first and last 64 KiB: opening sees the file the manifest lists.
    std::filesystem::path shard;
    for (const auto& e : std::filesystem::directory_iterator(dir / "run.strata.d"))
        shard = std::max(shard, e.path());
    std::string bytes = test::readFile(shard);
    REQUIRE(bytes.size() > 3 * 65536);
    bytes[bytes.size() / 2] ^= 0x20;
    std::ofstream(shard, std::ios::binary) << bytes;
    test::runStrataIn(dir.path(), { "info", "run.strata" });

    const auto verify = test::runStrata({ "info", (dir / "run.strata").string(), "--verify" });
    CHECK(verify.exitCode == 1);
    CHECK(verify.out.empty());
    CHECK(verify.err
        == "strata: " + (dir / "run.strata").string() + ": shard run.strata.d/"
            + shard.filename().string()
            + " is altered: its content differs from the checksum the manifest lists\n");
}

TEST_CASE("ingest: one big Chrome file scanned by two threads gives the same store as by one", "[cli][shards]")
{
    // Large enough for several scan batches (4 MB of text per thread each).
    test::TempDir dir;
    test::runStrataIn(dir.path(), {"synth", "-o", "big.json", "--events", "150000", "--ranks", "4"});
    REQUIRE(std::filesystem::file_size(dir / "big.json") > (std::uintmax_t(20) << 20));
    const auto one = test::runStrata({"ingest", (dir / "big.json").string(), "-o", (dir / "one.strata").string(), "--threads", "1"});
    const auto two = test::runStrata({"ingest", (dir / "big.json").string(), "-o", (dir / "two.strata").string(), "--threads", "2"});
    REQUIRE(one.exitCode == 0);
    REQUIRE(two.exitCode == 0);
    CHECK(test::readFile(dir / "one.strata") == test::readFile(dir / "two.strata"));
}
