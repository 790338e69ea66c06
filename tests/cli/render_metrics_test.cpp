// `strata render --view metrics`: the Efficiency panel as a picture.

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

using namespace strata;

namespace {

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
}

} // namespace

TEST_CASE("render --view metrics draws the efficiency table to PNG and SVG", "[cli][render]")
{
    const auto rank0 = test::realTrace("h100/kineto_ddp_rank0.json.gz");
    if (rank0.empty())
        return; // the shared real-trace folder is not here
    test::TempDir dir;
    const auto store = (dir / "ddp.strata").string();
    std::vector<std::string> ingest = { "ingest" };
    for (int r = 0; r < 4; ++r)
        ingest.push_back(test::realTrace("h100/kineto_ddp_rank" + std::to_string(r) + ".json.gz").string());
    ingest.insert(ingest.end(), { "-o", store });
    REQUIRE(test::runStrata(ingest).exitCode == 0);

    const auto png = (dir / "x.png").string();
    REQUIRE(test::runStrata({ "render", store, "--view", "metrics", "-o", png }).exitCode == 0);
    const std::string bytes = readAll(png);
    CHECK(bytes.substr(1, 3) == "PNG");
    CHECK(bytes.size() > 20000); // a blank 1600x900 picture compresses to a few kB

    const auto svg = (dir / "x.svg").string();
    REQUIRE(test::runStrata({ "render", store, "--view", "metrics", "--window", "100ms:150ms", "-o", svg })
                .exitCode
        == 0);
    const std::string text = readAll(svg);
    CHECK_THAT(text, Catch::Contains("Parallel efficiency") && Catch::Contains("GPU 0 (rank 3)")
            && Catch::Contains("window (50.00ms)"));
}
