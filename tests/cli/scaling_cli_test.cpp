// `strata metrics RUN1 RUN2 ...`: the POP scaling table across runs (issue 19), on the
// hand-made ping-pong (2 ranks, with counters) and serialization chain (3 ranks, none).

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <regex>

using namespace strata;

namespace {

std::string ingestFixture(const test::TempDir& dir, const std::string& name)
{
    const std::string store = (dir / (name + ".strata")).string();
    test::runStrataIn(dir.path(), { "ingest", std::string(STRATA_TEST_DATA_DIR) + "/paraver/" + name + ".prv", "-o", store });
    return store;
}

}  // namespace

TEST_CASE("metrics of several runs: the scaling table, its JSON keys in order, and what a run "
          "lacks",
    "[cli][metrics][scaling]") {
    test::TempDir dir;
    const std::string chain = ingestFixture(dir, "serial_chain");
    const std::string pingpong = ingestFixture(dir, "pingpong");

    // Given larger run first: the 2-rank ping-pong is still the reference.
    const auto json = test::runStrata({ "metrics", chain, pingpong, "--json" });
    INFO(json.err);
    REQUIRE(json.exitCode == 0);
    const std::vector<std::string> keys = { "store", "processes", "threads", "runtime_ns",
        "parallel_efficiency", "load_balance", "communication_efficiency",
        "serialization_efficiency", "transfer_efficiency", "computation_scalability",
        "global_efficiency", "instruction_scalability", "ipc_scalability", "frequency_scalability",
        "speedup", "average_ipc", "average_frequency_ghz" };
    const auto firstRun = json.out.substr(0, json.out.find('}'));
    std::size_t at = 0;
    for (const std::string& key : keys) {
        INFO(key);
        const auto found = firstRun.find("\"" + key + "\":", at);
        REQUIRE(found != std::string::npos);
        at = found;
    }
    CHECK(json.out.starts_with("{\"runs\":[{\"store\":" + std::string("\"") + pingpong));
    CHECK(firstRun.find("\"processes\":2,") != std::string::npos);
    CHECK(firstRun.find("\"serialization_efficiency\":1,") != std::string::npos);
    CHECK(firstRun.find("\"transfer_efficiency\":0.79,") != std::string::npos);
    // Useful time 1490 ns for the ping-pong, 300 ns for the chain: strong scaling by
    // useful time (the chain has no counters), CompS = 1490 / 300.
    CHECK(json.out.find("\"computation_scalability\":4.966666667") != std::string::npos);
    CHECK(json.out.find("\"scaling\":\"strong\"") != std::string::npos);
    CHECK(json.out.find("\"detected_from\":\"useful_time\"") != std::string::npos);
    CHECK(json.out.find("\"average_ipc\":null") != std::string::npos);
    CHECK(json.out.find("no hardware counters") != std::string::npos);

    const auto text = test::runStrata({ "metrics", pingpong, chain, "--weak" });
    REQUIRE(text.exitCode == 0);
    CHECK(text.out.find("scaling: weak (detected strong") != std::string::npos);
    CHECK(std::regex_search(text.out, std::regex("Serialization efficiency +1\\.0000 +0\\.3333")));
    CHECK(std::regex_search(text.out, std::regex("Processes x threads +2 x 1 +3 x 1")));
    CHECK(text.out.find("serial_chain.strata: no hardware counters") != std::string::npos);

    const auto both = test::runStrata({ "metrics", pingpong, chain, "--weak", "--strong" });
    CHECK(both.exitCode != 0);
    CHECK(both.err.find("--strong and --weak") != std::string::npos);
}

TEST_CASE("render RUN1 RUN2 --view metrics draws the scaling table; other views take one store",
    "[cli][render][scaling]") {
    test::TempDir dir;
    const std::string chain = ingestFixture(dir, "serial_chain");
    const std::string pingpong = ingestFixture(dir, "pingpong");
    const std::string png = (dir / "scaling.png").string();
    const auto r = test::runStrata(
        { "render", pingpong, chain, "--view", "metrics", "-o", png, "--size", "800x500" });
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    CHECK(r.out.find("2 runs") != std::string::npos);
    CHECK(std::filesystem::file_size(png) > 1000);

    const auto timeline = test::runStrata({ "render", pingpong, chain, "-o", png });
    CHECK(timeline.exitCode != 0);
    CHECK(timeline.err.find("several with --view metrics") != std::string::npos);
}
