// `strata variability` (issue 18): the JSON keys the issue names, the straggler of the
// hand-made DDP fixture, the table, and one-line errors for bad options.

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>

using namespace strata;

namespace {

std::string ingestFixture(const test::TempDir& dir)
{
    const std::string store = (dir / "v.strata").string();
    test::runStrataIn(dir.path(), { "ingest", std::string(STRATA_TEST_DATA_DIR) + "/chrome/ddp_straggler.json", "-o", store });
    return store;
}

}  // namespace

TEST_CASE("issue 18: strata variability --json names the straggler, its cause and the keys of "
          "the issue",
    "[cli][variability]") {
    test::TempDir dir;
    const std::string store = ingestFixture(dir);
    const auto r = test::runStrata({ "variability", store, "--json", "--top", "3" });
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    for (const char* key : { "\"names\": [", "\"workers\": [", "\"worker\": ", "\"count\": ",
             "\"total_ns\": ", "\"mean_ns\": ", "\"p50_ns\": ", "\"p95_ns\": ", "\"p99_ns\": ",
             "\"max_ns\": ", "\"stddev_ns\": ", "\"cv\": ", "\"outliers\": ", "\"slowest\": [",
             "\"stragglers\": [", "\"excess_ns\": ", "\"steps\": ", "\"causes\": [",
             "\"coincidence\": [", "\"side\": ", "\"with\": ", "\"slow\": ", "\"fast\": " })
        CHECK_THAT(r.out, Catch::Contains(key));
    CHECK_THAT(r.out,
        Catch::Contains("\"stragglers\": [{\"worker\": \"rank 2\", \"excess_ns\": 144500000"));
    CHECK_THAT(r.out,
        Catch::Contains("\"causes\": [{\"name\": \"dataloader_wait\", \"excess_ns\": 144500000}"));
    CHECK_THAT(r.out,
        Catch::Contains("{\"name\": \"sm90_gemm\", \"side\": \"device\", \"with\": \"memcpy\", "
                        "\"slow\": 1, \"fast\": 0}"));
    // --top bounds the names; the first is the costliest.
    CHECK_THAT(r.out, Catch::Contains("\"names\": [\n    {\"name\": \"dataloader_wait\""));

    const auto table = test::runStrata({ "variability", store, "--names", "^forward$" });
    REQUIRE(table.exitCode == 0);
    CHECK_THAT(table.out,
        Catch::Contains("forward") && !Catch::Contains("dataloader_wait  ")
            && Catch::Contains("rank 2: 144.5ms excess in 5 step(s)")
            && Catch::Contains("cause dataloader_wait +144.5ms"));
}

TEST_CASE("issue 18: strata variability rejects bad options with one line", "[cli][variability]") {
    test::TempDir dir;
    const std::string store = ingestFixture(dir);
    const auto level = test::runStrata({ "variability", store, "--level", "rack" });
    CHECK(level.exitCode == 2);
    CHECK_THAT(level.err,
        Catch::StartsWith("strata: --level expects process, thread, gpu or "
                          "stream, not rack\n"));
    const auto regex = test::runStrata({ "variability", store, "--names", "(" });
    CHECK(regex.exitCode == 1);
    CHECK(regex.err == "strata: --names: not a regular expression: (\n");
    const auto missing = test::runStrata({ "variability", (dir / "none.strata").string() });
    CHECK(missing.exitCode == 1);
    CHECK(std::count(missing.err.begin(), missing.err.end(), '\n') == 1);
}

TEST_CASE(
    "issue 18: strata render --view variability draws the dock headless", "[cli][variability]") {
    test::TempDir dir;
    const std::string store = ingestFixture(dir);
    const std::string svg = (dir / "v.svg").string();
    const auto r =
        test::runStrata({ "render", store, "--view", "variability", "--names", "wait", "-o", svg });
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    std::ifstream in(svg);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Text as text: the chosen name, the workers on the axis, the straggler and its cause.
    CHECK_THAT(text,
        Catch::Contains("dataloader_wait: 20 instances") && Catch::Contains("rank 3")
            && Catch::Contains("cause: dataloader_wait") && !Catch::Contains("sm90_gemm"));
}
