// `strata render --view counters`: the counter charts of a window, offscreen, on the real
// H100 run (Kineto trace + NVML log).

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

#include <catch2/catch.hpp>

#include <fstream>

using namespace strata;

namespace {

std::string fileText(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

} // namespace

TEST_CASE("render --view counters draws the chosen counters' charts", "[cli][counters][real]")
{
    const auto kineto = test::realTrace("h100/kineto_gpt_train_1gpu.json.gz");
    const auto nvml = test::realTrace("h100/nvml_counters_1gpu.csv");
    if (kineto.empty() || nvml.empty())
        return;
    test::TempDir dir;
    const auto store = (dir / "h100.strata").string();
    REQUIRE(test::runStrata({"ingest", kineto.string(), nvml.string(), "-o", store}).exitCode == 0);

    const auto png = dir / "counters.png";
    const auto r = test::runStrata({"render", store, "-o", png.string(), "--view", "counters", "--counters",
                                    "power|gpu_util", "--window", "0:50ms", "--size", "1000x500"});
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.out, Catch::Contains("view counters"));
    const std::string bytes = fileText(png);
    REQUIRE(bytes.size() > 8);
    CHECK(bytes.substr(1, 3) == "PNG");
    CHECK(bytes.size() > 10'000);  // charts, axes and titles, not a blank page

    // SVG keeps the titles as text: the two chosen counters, with their units and range
    // over the run (NVML: 0..30 % utilisation, 116.9..152.3 W).
    const auto svg = dir / "counters.svg";
    REQUIRE(test::runStrata({"render", store, "-o", svg.string(), "--view", "counters", "--counters", "power|gpu_util"})
                .exitCode
            == 0);
    const std::string text = fileText(svg);
    CHECK_THAT(text, Catch::Contains("power (mW) [116.9k … 152.3k]"));
    CHECK_THAT(text, Catch::Contains("gpu_util (%) [0 … 30]"));
    CHECK_THAT(text, !Catch::Contains("sm_clock (MHz) ["));  // listed in the chooser, not charted

    const auto none = test::runStrata({"render", store, "-o", png.string(), "--view", "counters", "--counters", "nope"});
    CHECK(none.exitCode == 2);
    CHECK_THAT(none.err, Catch::Contains("no counter track matches 'nope'"));
    const auto bad = test::runStrata({"render", store, "-o", png.string(), "--view", "counters", "--counters", "("});
    CHECK(bad.exitCode == 2);
    CHECK_THAT(bad.err, Catch::Contains("--counters: bad regex"));
}
